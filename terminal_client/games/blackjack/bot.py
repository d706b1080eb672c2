"""The demo bot's play at a Blackjack table: what it stakes and a simplified basic strategy
(the terminal may not import the server's). The hybrid tables' bot plays the same way on
its own hand's cards (:mod:`terminal_client.games.hybrid.game`).

Entry points: :func:`basic_strategy`, :func:`demo_wagers`, :func:`seated_demo_play`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from terminal_client.model import IntentKind
from terminal_client.model.totals import hand_total

if TYPE_CHECKING:
    from terminal_client.games.api import DemoPlayer
    from terminal_client.model import TerminalModel

__all__ = ["TRILUX", "basic_strategy", "demo_wagers", "seated_demo_play"]

#: TriLux Deluxe, at most twice the Blackjack wager (58 Pa. Code 633b.11(b)).
TRILUX: Final = "trilux"

#: Hard totals that stand against a dealer up card of 2 to 6 (12 only against 4 to 6).
_STAND_LOW: Final = range(2, 7)


def basic_strategy(cards: tuple[str, ...], dealer_up: str, legal: frozenset[str]) -> str | None:
    """A simplified basic strategy (multi-deck, dealer stands on soft 17; no surrender),
    limited to the ``legal`` actions. Returns ``None`` when nothing is legal.

    Pairs: always split aces and eights; 2s, 3s, 7s against 2 to 7; 6s against 2 to 6; 9s
    against 2 to 9 but 7; 4s against 5 and 6. Soft totals: stand on 19 or more; 18 doubles
    against 3 to 6, stands against 2, 7, 8 and hits otherwise; soft 13 to 17 double against
    the dealer's weak cards and otherwise hit. Hard totals: stand on 17 or more; 13 to 16
    stand against 2 to 6; 12 stands against 4 to 6; double 11 (against 2 to 10), 10 (against
    2 to 9) and 9 (against 3 to 6); otherwise hit. A wanted double or split that is not legal
    falls back to hit (stand for soft 18).
    """
    if not legal:
        return None
    up = hand_total([dealer_up]).best  # an ace counts 11
    total = hand_total(cards)
    wanted: list[str] = []
    if len(cards) == 2 and "split" in legal:
        pair = {hand_total([c]).best for c in cards}
        if len(pair) == 1:
            rank = pair.pop()
            splits = {
                11: range(2, 12),
                8: range(2, 12),
                2: range(2, 8),
                3: range(2, 8),
                7: range(2, 8),
                6: range(2, 7),
                9: (2, 3, 4, 5, 6, 8, 9),
                4: (5, 6),
            }
            if up in splits.get(rank, ()):
                wanted.append("split")
    best = total.best
    if total.soft:
        if best >= 19:
            wanted.append("stand")
        elif best == 18:
            wanted += ["double", "stand"] if 3 <= up <= 6 else ["stand" if up <= 8 else "hit"]
        else:
            lowest = {17: 3, 16: 4, 15: 4, 14: 5, 13: 5}.get(best, 7)
            if lowest <= up <= 6:
                wanted.append("double")
            wanted.append("hit")
    elif best >= 17 or (best >= 13 and up in _STAND_LOW) or (best == 12 and 4 <= up <= 6):
        wanted.append("stand")
    else:
        if (best == 11 and up <= 10) or (best == 10 and up <= 9) or (best == 9 and 3 <= up <= 6):
            wanted.append("double")
        wanted.append("hit")
    for action in (*wanted, "hit", "stand"):
        if action in legal:
            return action
    return sorted(legal)[0]


def demo_wagers(model: TerminalModel, main: str) -> dict[str, int]:
    """What a demo bot stakes on a round: the ``main`` wager at its minimum and every side
    wager the table offers at its smallest amount, so that a newcomer sees each of them
    played. TriLux Deluxe is left out when its minimum is over twice the Blackjack wager
    (633b.11(b)); with too few credits for all of them, the main wager alone. Empty when the
    main wager is not offered or affordable.
    """
    view = model.view
    if view is None:
        return {}
    credits = view.credits
    first = view.limits.get(main)
    if first is None or credits < first.minimum:
        return {}
    wagers = {main: first.minimum}
    for name, side in view.limits.items():
        if name == main or (name == TRILUX and side.minimum > 2 * first.minimum):
            continue
        wagers[name] = side.minimum
    if sum(wagers.values()) > credits:
        # Too little for all of them: the main wager alone (a side wager may need another,
        # e.g. Top 3 the Three Card Poker wager, 633b.7(a), which only the table knows).
        wagers = {main: first.minimum}
    return wagers


def seated_demo_play(
    bot: DemoPlayer,
    model: TerminalModel,
    *,
    position: int | None = None,
    stand_without_cards: bool = False,
) -> None:
    """Stake the demo wagers when betting is open and it has no wager in the round (at
    ``position`` where the table has positions), decline insurance and play
    :func:`basic_strategy` within the legal actions the server sent, each situation once.
    ``stand_without_cards``: with no card of its hand or no dealer up card to go by, stand
    (the hybrid tables' countdown default, 633b.5(p)(2))."""
    view = model.view
    if view is None:
        return
    seat = view.my_seat
    if seat is None and (view.phase == "betting" or (view.phase is None and view.state == "open")):
        bot.place(model, ("bet", view.round, view.phase), position)
        return
    if view.insurance is not None and seat is not None and not seat.insurance_decided:
        if not model.is_waiting(IntentKind.INSURANCE) and bot.once(("ins", view.round)):
            bot.client.answer_insurance("decline")
        return
    hand_index = model.hand_to_act
    if hand_index is None or seat is None:
        return
    hand = next((h for h in seat.hands if h.index == hand_index), None)
    up = view.dealer.cards[0] if view.dealer.cards else None
    legal = model.legal_actions
    if stand_without_cards and (hand is None or not hand.cards or up is None):
        action = "stand" if "stand" in legal else None
        key = ("act", view.round, hand_index, 0, len(seat.hands))
        if action is not None and bot.once(key):
            bot.client.act(action, hand_index)
        return
    if hand is None or up is None:
        return
    chosen = basic_strategy(tuple(c for c in hand.cards if c is not None), up, legal)
    key = ("act", view.round, hand_index, len(hand.cards), len(seat.hands))
    if chosen is not None and bot.once(key):
        bot.client.act(chosen, hand_index)
