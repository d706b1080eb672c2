"""Which screen the model calls for: :func:`screen_for`, a pure function of the model, so the
screen shown never disagrees with the server's last view or the connection. The platform's
screens cover the connection, a closed table and out of service; while the table is open
the view's game chooses (:meth:`~terminal_client.games.api.TerminalGame.screen_for`)."""

from __future__ import annotations

from terminal_client.model import ConnectionState, TerminalModel
from terminal_client.screens.base import Screen
from terminal_client.screens.status import (
    AttractScreen,
    ConnectionLostScreen,
    NeedsUpdateScreen,
    OutOfServiceScreen,
    RefusedScreen,
)


def screen_for(model: TerminalModel) -> type[Screen]:
    """The base screen for what the model knows now."""
    state = model.connection.state
    if state is ConnectionState.NEEDS_UPDATE:
        return NeedsUpdateScreen
    if state is ConnectionState.CERTIFICATE_REFUSED:
        return RefusedScreen
    view = model.view
    if state is not ConnectionState.CONNECTED or view is None:
        return ConnectionLostScreen
    if view.state == "out-of-service":
        return OutOfServiceScreen
    if view.state not in (None, "open"):
        return AttractScreen
    from terminal_client import games  # the registry at call time: it sits below the screens

    return games.of(model).screen_for(model)  # the table is open: its game's screens
