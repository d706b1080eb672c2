"""The engine's Ante, Play and Ante Bonus settlement against a from-scratch evaluation, on
random deals (fixed seeds): the best four-card hand of the player's five against the best
of the dealer's six, ranked here without the shared poker module (58 Pa. Code 641a.6(b)
order as the four-card chapters word it: four of a kind, straight flush, three of a kind,
flush, straight, two pair, pair, high card; A-2-3-4 the lowest straight, no wrap-around),
ties to the player, the Ante and Play 1 to 1, the Ante Bonus on the Ante per its paytable
whatever the dealer holds, a fold losing the Ante (procedure: secondary source, the Wizard
of Odds "Four Card Poker" rules 4-12).

Why: ``etg sim`` measures the Ante+Play house edge of the simple strategy above the
published 2.79% (which is the optimal strategy's); this shows that every deal is settled as
the independent count says, so the difference is the strategy's, not the engine's."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

from game_server.games.fourcard.rules.events import FourCardWagerSettled
from game_server.games.fourcard.rules.game import Action, FourCardRound
from shared.cards import CARDS, Card
from tests.games.fourcard.test_fourcard_rules import RULES, settle

#: Categories, lowest first (641a.6(b) order, read bottom up).
HIGH, PAIR, TWO_PAIR, STRAIGHT, FLUSH, TRIPS, STRAIGHT_FLUSH, QUADS = range(8)
#: The Ante Bonus of the example Rules Submission ("25-20-2"): to-one odds on the Ante.
ANTE_BONUS = {QUADS: 25, STRAIGHT_FLUSH: 20, TRIPS: 2}


def four_card_value(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    """(category, tie-break ranks) of four cards, from scratch."""
    ranks = sorted((c.rank for c in cards), reverse=True)
    counts = Counter(ranks)
    # Ranks by how many of each, then by rank: (7, 7, 7, 2) -> 7, 2; (9, 9, 4, 4) -> 9, 4.
    order = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    shape = sorted(counts.values(), reverse=True)
    flush = len({c.suit for c in cards}) == 1
    top = None
    if len(counts) == 4:
        if ranks[0] - ranks[3] == 3:
            top = ranks[0]
        elif ranks == [14, 4, 3, 2]:
            top = 4  # A-2-3-4, the lowest straight
    if shape == [4]:
        return QUADS, order
    if top is not None and flush:
        return STRAIGHT_FLUSH, (top,)
    if shape[0] == 3:
        return TRIPS, order
    if flush:
        return FLUSH, tuple(ranks)
    if top is not None:
        return STRAIGHT, (top,)
    if shape == [2, 2]:
        return TWO_PAIR, order
    if shape[0] == 2:
        return PAIR, order
    return HIGH, tuple(ranks)


def best(cards: Sequence[Card]) -> tuple[int, tuple[int, ...]]:
    return max(four_card_value(four) for four in itertools.combinations(cards, 4))


def expected(
    player: Sequence[Card], dealer: Sequence[Card], multiple: int, ante: int
) -> dict[str, int]:
    """What each of the seat's Ante, Play and Ante Bonus returns (stake included)."""
    if multiple == 0:
        return {"ante": 0}
    mine = best(player)
    won = mine >= best(dealer)
    out = {"ante": 2 * ante if won else 0, "play": 2 * multiple * ante if won else 0}
    if mine[0] in ANTE_BONUS:
        out["ante_bonus"] = ANTE_BONUS[mine[0]] * ante
    return out


class Deck:
    def __init__(self, cards: Sequence[Card]) -> None:
        self.cards = list(cards)
        self.position = 0

    def draw(self) -> Card:
        card = self.cards[self.position]
        self.position += 1
        return card


def engine(
    player: Sequence[Card], dealer: Sequence[Card], multiple: int, ante: int
) -> dict[str, int]:
    game = FourCardRound(RULES, "FCP-01")
    game.place_wagers(1, {"ante": ante})
    game.deal(Deck([*player, *dealer]))
    if multiple:
        game.decide(1, Action.PLAY, multiple)
    else:
        game.decide(1, Action.FOLD)
    events: list[Any] = settle(game)
    return {e.wager: e.paid for e in events if type(e) is FourCardWagerSettled}


def deals(rng: random.Random, deck: Sequence[Card], count: int) -> list[tuple[Any, Any, int]]:
    out = []
    for _ in range(count):
        cards = rng.sample(list(deck), 11)
        out.append((cards[:5], cards[5:], rng.choice((0, 1, 2, 3))))
    return out


def test_the_engine_settles_every_deal_as_the_independent_count_says() -> None:
    rng = random.Random(641)
    # A whole deck, and a deck of five ranks (ace, 2, 3, 4, king: many ties, pairs, trips,
    # quads and A-2-3-4 straights) to reach the close calls a whole deck seldom deals.
    narrow = [c for c in CARDS if c.rank in (14, 2, 3, 4, 13)]
    checked = Counter()
    for deck, count in ((CARDS, 3_000), (narrow, 3_000)):
        for player, dealer, multiple in deals(rng, deck, count):
            want = expected(player, dealer, multiple, 500)
            assert engine(player, dealer, multiple, 500) == want, (player, dealer, multiple)
            if multiple:
                mine, theirs = best(player), best(dealer)
                checked["tie" if mine == theirs else "win" if mine > theirs else "loss"] += 1
                checked[mine[0]] += 1
    # The check reached every outcome and every category of the player's best four.
    assert checked["tie"] >= 20 and checked["win"] and checked["loss"]
    assert all(checked[category] for category in range(8)), checked
