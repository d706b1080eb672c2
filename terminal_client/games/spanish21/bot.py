"""The demo bot's play at a Spanish 21 table: Blackjack's demo play, and the rescue.

Blackjack's simplified basic strategy
(:func:`~terminal_client.games.blackjack.bot.seated_demo_play`) plays every hand within the
decisions the server allows. A doubled hand, whose only decisions are stand and rescue
(635a.10), is rescued with a total of 16 or less against an 8, 9, ten-value card or ace, or 17
against an ace, as the server's Spanish 21 strategy does, and stands otherwise.

Entry points: :func:`rescue_or_stand`, :func:`spanish21_demo_play`.
"""

from __future__ import annotations

from typing import Final

from shared.cards import blackjack_value, parse_card
from terminal_client.games.api import DemoPlayer
from terminal_client.games.blackjack.bot import seated_demo_play
from terminal_client.model import TerminalModel
from terminal_client.model.totals import hand_total

__all__ = ["rescue_or_stand", "spanish21_demo_play"]

RESCUE: Final = "rescue"
#: The dealer's up cards (Blackjack values) against which a doubled 16 or less is rescued.
_RESCUE_UP: Final = frozenset({8, 9, 10, 1})


def rescue_or_stand(cards: tuple[str, ...], up: str) -> str:
    """What a doubled hand of ``cards`` does against the up card ``up``."""
    total = hand_total(cards).best
    value = blackjack_value(parse_card(up))
    rescue = (total <= 16 and value in _RESCUE_UP) or (total == 17 and value == 1)
    return RESCUE if rescue else "stand"


def spanish21_demo_play(bot: DemoPlayer, model: TerminalModel) -> None:
    """Blackjack's demo play; a doubled hand rescued or stood (:func:`rescue_or_stand`)."""
    view = model.view
    hand_index = model.hand_to_act
    if view is None or view.my_seat is None or hand_index is None:
        seated_demo_play(bot, model)
        return
    if RESCUE not in model.legal_actions:
        seated_demo_play(bot, model)
        return
    hand = next((h for h in view.my_seat.hands if h.index == hand_index), None)
    up = view.dealer.cards[0] if view.dealer.cards else None
    if hand is None or not isinstance(up, str):
        return
    if bot.once(("rescue", view.round, hand_index)):
        cards = tuple(c for c in hand.cards if c is not None)
        bot.client.act(rescue_or_stand(cards, up), hand_index)
