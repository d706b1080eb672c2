"""Recall pictures of a fully automated Blackjack table: the view a terminal had after each
event of a logged round.

The round's engine events are replayed through the real engine, one prefix at a time
(:func:`~game_server.recall.pictures.engine_states`); a prefix that replays is the state
after an engine step, and :func:`~game_server.games.blackjack.views.view_for` builds its view
from a stand-in :class:`~game_server.games.blackjack.session.TableSession` that holds the
replayed round and the wallets (the live view, field for field). An event inside a step (the
deal gives a dozen cards in one step) is shown as the step's end with what comes later in the
step taken back: its cards, the hole card's reveal and its wagers; nobody is to act then. The
hole card is hidden until ``hole_card_revealed``; the settlements of the terminal's wagers
appear as they are logged.

Entry point: :func:`blackjack_round_views`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from game_server.games.blackjack.rules.events import (
    DEALER,
    CardDealt,
    HoleCardRevealed,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.views import settlement_view, view_for
from game_server.recall.pictures import engine_states, folded, no_shoe, seated
from game_server.recall.rounds import LoggedRound
from game_server.table.ledger import Ledger
from game_server.table.session import MemorySink, SealedShoes

__all__ = ["blackjack_round_views"]


def blackjack_round_views(logged: LoggedRound, terminal: str | None = None) -> list[dict[str, Any]]:
    """The v1 view ``terminal`` would have had after each logged event of the round.

    Args:
        logged: The round (:func:`~game_server.recall.query.fetch_round`).
        terminal: Whose view ("mine" in the view); default :func:`default_terminal`.

    Returns:
        One JSON-ready view per event of ``logged.events``, in log order.

    Raises:
        RecallPictureError: ``terminal`` did not take part in the round, or the round does
            not replay.
    """
    seats, terminal = seated(logged, terminal)
    states = engine_states(logged)
    shoes = SealedShoes(logged.config, no_shoe, b"", "recall")
    session = TableSession(logged.config, MemorySink(), shoes, seats)
    session.round_id = logged.round_id
    session.ledger = ledger = Ledger()
    engine = [item.event for item in logged.engine_events()]
    settlements: list[dict[str, Any]] = []
    views: list[dict[str, Any]] = []
    for item, done, end in folded(logged, ledger, states, forward=True):
        ev = item.event
        if type(ev) is WagerSettled and item.stored.terminal == terminal:
            settlements.append(settlement_view(ev))
        session.round = states[end]  # kept after round_closed: the final table
        view = view_for(session, terminal)
        if end > done:
            _take_back(view, engine[done:end])
        view["settlements"] = list(settlements)
        views.append(view)
    return views


def _take_back(view: dict[str, Any], later: Sequence[Any]) -> None:
    """Undo, on a view, the events ``later`` of the same engine step (last one first): their
    cards, the hole card's reveal, their wagers; and nobody is to act inside a step."""
    seats = {seat["seat"]: seat for seat in view["seats"]}
    dealer = view["dealer"]
    for ev in reversed(later):
        kind = type(ev)
        if kind is CardDealt:
            if ev.seat == DEALER:
                if dealer["cards"]:
                    dealer["cards"].pop()
            else:
                for hand in seats[ev.seat]["hands"] if ev.seat in seats else ():
                    if hand["index"] == ev.hand and hand["cards"]:
                        hand["cards"].pop()
        elif kind is HoleCardRevealed:
            shown = dealer["cards"][:1]
            dealer["cards"] = shown + [{"hidden": True}] * (len(dealer["cards"]) > 1)
            dealer["total"] = None
            dealer["hole_revealed"] = False
        elif kind is WagerPlaced and ev.seat in seats:
            # Inside a step only a split or a double places a wager: it is the hand's (the
            # seat's wagers are those of the betting phase, whose steps replay one by one).
            for hand in seats[ev.seat]["hands"]:
                if hand["index"] == ev.hand:
                    _less(hand["wagers"], ev.wager, ev.amount)
    for seat in seats.values():
        seat["hands"] = [hand for hand in seat["hands"] if hand["cards"] or hand["index"] == 0]
        for hand in seat["hands"]:
            hand["done"] = False
    view["to_act"] = None
    view["actions"] = []
    view["insurance"] = None


def _less(wagers: dict[str, int], name: str, amount: int) -> None:
    left = wagers.get(name, 0) - amount
    if left > 0:
        wagers[name] = left
    else:
        wagers.pop(name, None)
