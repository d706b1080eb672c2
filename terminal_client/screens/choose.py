"""Which screen the model calls for: :func:`screen_for`, a pure function of the model, so the
screen shown never disagrees with the server's last view or the connection."""

from __future__ import annotations

from terminal_client.model import ConnectionState, TerminalModel
from terminal_client.screens.base import Screen
from terminal_client.screens.hybrid import hybrid_screen_for
from terminal_client.screens.status import (
    AttractScreen,
    ConnectionLostScreen,
    NeedsUpdateScreen,
    OutOfServiceScreen,
    RefusedScreen,
)
from terminal_client.screens.table import BettingScreen, PlayScreen, ResultsScreen, betting_open
from terminal_client.screens.uth import uth_screen_for


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
    if model.uth is not None:
        return uth_screen_for(model)  # 653a: an Ultimate Texas Hold 'Em table's screens
    if model.hybrid is not None:
        return hybrid_screen_for(model)  # 633b.5: a hybrid table's screens
    if betting_open(model):
        if not model.credits and model.my_seat is None and not model.pending:
            return AttractScreen
        return BettingScreen
    if model.my_seat is not None and view.phase in ("insurance", "playing"):
        return PlayScreen
    if model.results:
        return ResultsScreen
    if model.my_seat is not None:
        return PlayScreen
    if not model.credits:
        return AttractScreen
    return BettingScreen  # a round is on without this terminal: "no more bets"
