"""A Blackjack terminal bot over the wire (``etg loadtest``): it reads each view the table
sends a terminal and says what the terminal does next.

Once per round, in the betting window and with the credits for it, it wagers the table
minimum on Blackjack; it declines every insurance offer; when one of its hands is to act it
plays basic strategy among the legal actions (:func:`decide`).

Entry points: :class:`BlackjackWireBot`, :func:`decide`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from game_server.config import TableConfig
from game_server.games.api import BotStep
from game_server.games.blackjack.rules.events import BLACKJACK
from game_server.games.blackjack.rules.strategy import BasicStrategy

__all__ = ["BlackjackWireBot", "card_value", "decide", "my_seat"]


def card_value(text: str) -> int:
    """The BJ value of a card's text (``"AS"`` 1, ``"TD"``/``"KH"`` 10, ``"7C"`` 7)."""
    rank = text[:-1].upper()
    if rank == "A":
        return 1
    if rank in ("T", "J", "Q", "K", "10"):
        return 10
    return int(rank)


def my_seat(view: Mapping[str, Any]) -> dict[str, Any] | None:
    """This terminal's seat entry of the view, if it has one in the round."""
    for seat in view.get("seats") or []:
        if seat.get("mine"):
            return seat  # type: ignore[no-any-return]
    return None


def decide(view: Mapping[str, Any], strategy: Any) -> str | None:
    """The basic-strategy action for this terminal's hand to act, among the legal ones."""
    actions: list[str] = list(view.get("actions") or [])
    to_act = view.get("to_act")
    seat = my_seat(view)
    if not actions or not to_act or seat is None:
        return None
    hand = next((h for h in seat["hands"] if h["index"] == to_act["hand"]), None)
    dealer = (view.get("dealer") or {}).get("cards") or []
    if hand is None or not dealer or not isinstance(dealer[0], str):
        return "stand" if "stand" in actions else actions[0]
    cards = hand["cards"]
    pair = 0
    if len(cards) == 2 and card_value(cards[0]) == card_value(cards[1]):
        pair = card_value(cards[0])
    action = str(
        strategy.decide(
            min(int(hand["total"]), 21),
            bool(hand["soft"]),
            pair,
            card_value(dealer[0]),
            "double" in actions,
            "split" in actions,
            "surrender" in actions,
        )
    )
    if action in actions:
        return action
    return "stand" if "stand" in actions else actions[0]


class BlackjackWireBot:
    """One terminal's bot at a fully automated Blackjack table (see the module docstring)."""

    def __init__(self, config: TableConfig) -> None:
        self.strategy = BasicStrategy(config.rules)
        self.minimum: int = config.rules.main_limits.minimum
        self.wagered: set[Any] = set()
        self.insured: set[Any] = set()

    def next_step(self, view: Mapping[str, Any]) -> BotStep | None:
        round_id = view.get("round")
        seat = my_seat(view)
        can_wager = (seat is None or not seat.get("wagers")) and (
            view.get("credits", 0) >= self.minimum
        )
        if view.get("phase") == "betting" and round_id not in self.wagered and can_wager:
            self.wagered.add(round_id)
            return BotStep("place_wagers", {"wagers": {BLACKJACK: self.minimum}})
        if view.get("insurance") and round_id not in self.insured:
            self.insured.add(round_id)
            return BotStep("answer_insurance", {"choice": "decline", "amount": 0}, timed=False)
        action = decide(view, self.strategy)
        if action is None:
            return None
        return BotStep("act", {"action": action, "hand": int(view["to_act"]["hand"]), "amount": 0})
