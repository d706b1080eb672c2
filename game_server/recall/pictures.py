"""Recall pictures' platform part: the view one terminal had after each event of a logged
round, rebuilt from the log (``etg recall show --png/--frames``, :mod:`tools.recall_pictures`).

Each game rebuilds its views (:meth:`~game_server.games.api.Game.round_views`) with the
helpers here: the round's engine after every prefix of its engine events
(:func:`engine_states`, through the game's ``replay``; a prefix that ends inside an engine
step does not replay), the events folded into a :class:`~game_server.table.ledger.Ledger`
from the balances of ``round_started`` (:func:`folded`: the credits move exactly as the live
table's wallets did), and whose view is drawn (:func:`default_terminal`, :func:`seated`).

Entry points: :func:`round_views`, :func:`engine_states`, :func:`folded`,
:func:`default_terminal`, :class:`RecallPictureError`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from game_server.games import game_for
from game_server.recall.rounds import Logged, LoggedRound, engine_kinds_for
from game_server.rules.errors import ReplayMismatch, RulesError
from game_server.table.ledger import PLACED, Ledger, wager_roles
from game_server.table.secrecy import StillSealed, stood_in
from shared.errors import ETGError

__all__ = [
    "RecallPictureError",
    "default_terminal",
    "engine_states",
    "folded",
    "no_shoe",
    "round_seats",
    "round_views",
    "seated",
]


class RecallPictureError(ETGError):
    """A round that cannot be drawn (its replay fails, the terminal did not play it, ...)."""


def round_seats(logged: LoggedRound) -> dict[str, int]:
    """Terminal -> seat for the round: from ``round_started``, else from the seats its
    events name (a round whose start is not in the log)."""
    started = logged.started
    if started is not None:
        return dict(zip(started.terminals, started.seats, strict=False))
    seats: dict[str, int] = {}
    for item in logged.events:
        seat = getattr(item.event, "seat", None)
        terminal = item.stored.terminal
        if isinstance(seat, int) and seat > 0 and terminal is not None:
            seats.setdefault(terminal, seat)
    return seats


def default_terminal(logged: LoggedRound) -> str:
    """The terminal whose view recall pictures show by default: the first with a wager in
    the round, else the first seated one.

    Raises:
        RecallPictureError: the round has no terminal at all.
    """
    roles = wager_roles()
    for item in logged.events:
        if roles.get(type(item.event)) == PLACED and item.stored.terminal is not None:
            return item.stored.terminal
    seats = round_seats(logged)
    if not seats:
        raise RecallPictureError(
            f"round {logged.round_id} of table {logged.table_id} has no terminal: there is no "
            "player's view to draw"
        )
    return min(seats, key=lambda terminal: seats[terminal])


def no_shoe(number: int) -> Any:
    raise RecallPictureError("a recall picture deals no cards")  # pragma: no cover


def engine_states(logged: LoggedRound) -> list[Any]:
    """``states[k]``: the engine after the first ``k`` engine events of the round, or None
    where ``k`` falls inside an engine step (that prefix does not replay).

    Raises:
        RecallPictureError: the whole round does not replay (the log is damaged).
    """
    config = logged.config
    game = game_for(config)
    events = [item.event for item in logged.engine_events()]
    try:
        events = stood_in(game.secrecy(config.table_type), events)
    except StillSealed:
        raise RecallPictureError(
            f"round {logged.round_id} of table {logged.table_id} is in play: its face-down "
            "cards are sealed until it closes, and its pictures are drawn then"
        ) from None
    states: list[Any] = [game.replay(config, [], logged.table_id)]
    for k in range(1, len(events) + 1):
        try:
            states.append(game.replay(config, events[:k], logged.table_id))
        except ReplayMismatch as exc:
            if k == len(events):
                raise RecallPictureError(
                    f"round {logged.round_id} of table {logged.table_id} does not replay "
                    f"through the engine ({exc}); run etg verify on the log"
                ) from None
            states.append(None)
    return states


def seated(logged: LoggedRound, terminal: str | None) -> tuple[dict[str, int], str]:
    """The round's seats and the terminal whose views are drawn (default
    :func:`default_terminal`), refusing one that held no seat in it."""
    seats = round_seats(logged)
    if terminal is None:
        return seats, default_terminal(logged)
    if terminal not in seats:
        known = ", ".join(sorted(seats)) or "none"
        raise RecallPictureError(
            f"terminal {terminal!r} held no seat in round {logged.round_id} of table "
            f"{logged.table_id}; its terminals are: {known}"
        )
    return seats, terminal


def folded(
    logged: LoggedRound, ledger: Ledger, states: Sequence[Any], *, forward: bool
) -> Iterator[tuple[Logged, int, int]]:
    """Each event of the round, once folded into ``ledger`` (started from ``round_started``'s
    balances; without them credits are not folded), with the number of engine events up to
    and including it and the index in ``states`` of the engine to show: inside an engine step
    (a prefix that does not replay) the end of that step (``forward``) or the state before
    it."""
    started = logged.started
    if started is not None:
        ledger.wallets.update(zip(started.terminals, started.balances, strict=False))
    kinds = engine_kinds_for(logged.config)
    done = 0
    for item in logged.events:
        try:
            if started is not None:
                ledger.apply(item.stored.terminal, item.event)
        except RulesError as exc:
            raise RecallPictureError(
                f"seq {item.seq}: the round's events do not fold into balances: {exc}"
            ) from None
        if type(item.event) in kinds:
            done += 1
        end = done
        while states[end] is None:
            end += 1 if forward else -1
        yield item, done, end


def round_views(logged: LoggedRound, terminal: str | None = None) -> list[dict[str, Any]]:
    """The v1 view ``terminal`` would have had after each logged event of the round, as its
    game rebuilds them.

    Args:
        logged: The round (:func:`~game_server.recall.query.fetch_round`).
        terminal: Whose view ("mine" in the view); default :func:`default_terminal`.

    Returns:
        One JSON-ready view per event of ``logged.events``, in log order.

    Raises:
        RecallPictureError: ``terminal`` did not take part in the round, or the round does
            not replay.
    """
    return game_for(logged.config).round_views(logged, terminal)
