"""Spanish 21 (58 Pa. Code 635a) and Match the Dealer (635b.1) scenarios through the engine.

Every round is dealt from a stacked shoe in the engine's order (each seat's first card, the
dealer's up card, each seat's second card, the hole card, then the draws) and replayed from its
records; each test is named by the paragraph it checks.
"""

from __future__ import annotations

from typing import Any

import pytest

from game_server.games.blackjack.rules.events import (
    CardDealt,
    Decision,
    ProgressiveWon,
    RoundCompleted,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import Phase
from game_server.games.spanish21.rules import match_the_dealer as mtd
from game_server.games.spanish21.rules.round import (
    SUPER_BONUS,
    Spanish21Action,
    Spanish21Round,
    SpanishCards,
    replay,
)
from game_server.games.spanish21.rules.rules import Spanish21Rules, spanish_deck
from game_server.rng.shoe import Shoe, ShoeSeed, StackedShoe
from game_server.rules.errors import (
    ActionNotAllowed,
    BetOutOfLimits,
    ReplayMismatch,
    WagerNotOffered,
    WrongPhase,
)
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import SideWagerOffer
from shared.cards import parse_card, parse_cards

HIT, STAND, DOUBLE, SPLIT, SURRENDER, RESCUE = (
    Spanish21Action.HIT,
    Spanish21Action.STAND,
    Spanish21Action.DOUBLE,
    Spanish21Action.SPLIT,
    Spanish21Action.SURRENDER,
    Spanish21Action.RESCUE,
)


def rules(
    decks: int = 6, paytable: str = "Paytable 1", amount: int = 100, **kw: Any
) -> Spanish21Rules:
    offer = SideWagerOffer(
        mtd.MATCH_THE_DEALER,
        mtd.paytable(decks, paytable, amount),
        WagerLimits(amount, amount, amount),
    )
    base: dict[str, Any] = {
        "decks": decks,
        "late_surrender": True,
        "resplit_aces": True,
        "hit_split_aces": True,
        "dealer_hits_soft_17": True,
        "even_money": False,
        "main_limits": WagerLimits(100, 100_000, 100),
        "side_wagers": (offer,),
    }
    return Spanish21Rules(**{**base, **kw})


RULES = rules()


class Round:
    """One round at ``rules``: wagers per seat, the stacked cards, the records so far."""

    def __init__(
        self, cards: str, wagers: dict[int, dict[str, int]], table: Spanish21Rules = RULES
    ):
        self.rules = table
        self.game = Spanish21Round(table)
        self.events: list[Any] = []
        for seat, placed in wagers.items():
            self.events += self.game.place_wagers(seat, placed)
        self.events += self.game.deal(StackedShoe(cards))

    def act(self, action: Spanish21Action, seat: int = 1, hand: int = 0, **kw: Any) -> list[Any]:
        out = self.game.act(action, seat, hand, **kw)
        self.events += out
        return out

    def settled(self, wager: str = "blackjack", seat: int = 1) -> list[WagerSettled]:
        return [
            e
            for e in self.events
            if type(e) is WagerSettled and e.wager == wager and e.seat == seat
        ]

    def replays(self) -> None:
        again = replay(self.rules, self.events)
        assert again.phase is self.game.phase


def main(amount: int = 1000) -> dict[str, int]:
    return {"blackjack": amount}


def with_match(amount: int = 1000, match: int = 100) -> dict[str, int]:
    return {"blackjack": amount, "match_the_dealer": match}


# ------------------------------------------------------------------- 635b.1(a), (g), (i)


@pytest.mark.parametrize(
    ("player", "up", "line"),
    [
        ("AS AS", "AS", mtd.AS_SUITED),  # (a)(1)
        ("7H 7H", "7H", mtd.TWO_SUITED),  # (a)(2)
        ("7H 7C", "7H", mtd.NON_SUITED_AND_SUITED),  # (a)(3)
        ("7H 2C", "7H", mtd.ONE_SUITED),  # (a)(4)
        ("7D 7C", "7H", mtd.TWO_NON_SUITED),  # (a)(5)
        ("3S 7C", "7H", mtd.ONE_NON_SUITED),  # (a)(6)
        ("KD QD", "JD", None),  # (g)(1): rank, not value: a face card matches only its rank
        ("AH AH", "AS", mtd.TWO_NON_SUITED),  # two aces of hearts against the ace of spades
    ],
)
def test_635b_1_a_the_six_winning_combinations(player: str, up: str, line: str | None) -> None:
    assert mtd.classify(parse_cards(player), parse_card(up)) == line


def test_635b_1_g_settled_right_after_the_second_card_before_any_draw() -> None:
    """(g): settled after the dealer's hole card and before the first decision's card; (i)
    Paytable 1 (six decks) pays a suited match 5 to 1."""
    r = Round("7H 7H 2C 5D 9S", {1: with_match()})
    kinds = [type(e) for e in r.events]
    settled = r.settled("match_the_dealer")
    assert len(settled) == 1 and settled[0].paid == 600 and settled[0].line == mtd.ONE_SUITED
    assert kinds.index(WagerSettled) == kinds.index(CardDealt) + 4  # after the 4 initial cards
    r.act(HIT)
    hit = next(e for e in r.events if type(e) is Decision)
    assert r.events.index(settled[0]) < r.events.index(hit)
    r.replays()


def test_635b_1_g_1_no_match_loses() -> None:
    r = Round("2C 9H 3D 5D", {1: with_match()})
    (lost,) = r.settled("match_the_dealer")
    assert (lost.paid, lost.outcome) == (0, "lost")


def test_635b_1_h_two_suited_matches_win_a_share_of_the_meter() -> None:
    """(h), (i): the two progressive lines pay 100% and 10% of the meter (ProgressiveWon: the
    session pays it from the meter); the stake comes back with the settlement."""
    r = Round("AS 2C AS AS 3D 5D", {1: with_match(), 2: with_match()})
    wins = [e for e in r.events if type(e) is ProgressiveWon]
    assert [(w.seat, w.percent, w.line) for w in wins] == [(1, 100, mtd.AS_SUITED)]
    r = Round("7H 7H 7H 9D", {1: with_match()})
    assert [(w.percent, w.line) for w in r.events if type(w) is ProgressiveWon] == [
        (10, mtd.TWO_SUITED)
    ]


# The text of 635b.1(i), its rows as printed: "1 Non-Suited and 1 Suited Match",
# "1 Suited Match", "2 Non-Suited Matches", "1 Non-Suited Match" for Paytables 1..10.
PRINTED = {
    6: (
        "8 to 1 11 to 1 75 to 1 50 to 1 11 to 1 12 to 1 10 to 1 13 to 1 75 to 1 11 to 1",
        "5 to 1 9 to 1 4 to 1 4 to 1 8 to 1 9 to 1 6 to 1 10 to 1 5 to 1 7 to 1",
        "6 to 1 4 to 1 25 to 1 15 to 1 6 to 1 6 to 1 8 to 1 6 to 1 15 to 1 8 to 1",
        "3 to 1 2 to 1 2 to 1 3 to 1 3 to 1 3 to 1 4 to 1 3 to 1 3 to 1 4 to 1",
    ),
    8: (
        "8 to 1 11 to 1 12 to 1 10 to 1 50 to 1 100 to 1 9 to 1 12 to 1 10 to 1 13 to 1",
        "5 to 1 9 to 1 10 to 1 7 to 1 4 to 1 4 to 1 5 to 1 9 to 1 6 to 1 10 to 1",
        "6 to 1 4 to 1 4 to 1 6 to 1 15 to 1 20 to 1 8 to 1 6 to 1 8 to 1 6 to 1",
        "3 to 1 2 to 1 2 to 1 3 to 1 3 to 1 2 to 1 4 to 1 3 to 1 4 to 1 3 to 1",
    ),
}


@pytest.mark.parametrize("decks", [6, 8])
def test_635b_1_i_every_paytable_as_printed(decks: int) -> None:
    rows = [row.split(" to 1")[:-1] for row in PRINTED[decks]]
    assert list(mtd.PAYTABLES[decks]) == [f"Paytable {n}" for n in range(1, 11)]
    for n, table in enumerate(mtd.PAYTABLES[decks].values()):
        pays = [str(line.pay) for line in table.lines]
        assert pays[:2] == [
            "100% of the Match the Dealer Progressive",
            "10% of the Match the Dealer Progressive",
        ]
        assert pays[2:] == [f"{row[n].strip()} to 1" for row in rows]
        assert [line.name for line in table.lines] == list(mtd.LINES)


def test_635b_1_j_seed_and_increment_rates() -> None:
    for amount in (100, 500):
        spec = mtd.paytable(6, "Paytable 3", amount).meters[0]
        assert (spec.seed, spec.reseed) == (1000 * amount, 1000 * amount)
        assert (spec.increment_bp, spec.secondary_bp) == (1500, 600)


def test_635b_1_exact_counts_agree_with_an_independent_enumeration() -> None:
    """The closed form of every line against every kind of up card and pair of cards of the
    Spanish deck, classified by the engine's own classify (both shoes of (b))."""
    for decks in (6, 8):
        assert mtd.exact_counts(decks) == mtd.enumerated_counts(decks)
        assert (
            sum(mtd.exact_counts(decks).values())
            == 48 * decks * (48 * decks - 1) * (48 * decks - 2) // 2
        )


# ------------------------------------------------------------ 635b.1 bad input (d)-(f)


def test_635b_1_e_a_wager_of_2_dollars_is_refused() -> None:
    game = Spanish21Round(RULES)
    with pytest.raises(BetOutOfLimits, match=r"635b\.1\(e\)"):
        game.place_wagers(1, with_match(match=200))
    with pytest.raises(BetOutOfLimits, match=r"\$1\.00, not \$5\.00.*635b\.1\(e\)"):
        game.place_wagers(1, with_match(match=500))
    assert game.seats == {}


def test_635b_1_e_only_with_a_spanish21_wager() -> None:
    with pytest.raises(WagerNotOffered, match=r"Spanish 21 wager.*635b\.1\(e\)"):
        Spanish21Round(RULES).place_wagers(1, {"match_the_dealer": 100})


def test_635b_1_d_f_no_wager_after_no_more_bets() -> None:
    r = Round("7H 7H 2C 5D", {1: main()})
    with pytest.raises(WrongPhase, match=r"635b\.1\(d\)\(2\), \(f\)"):
        r.game.place_wagers(2, with_match())


# -------------------------------------------------------------------------- 635a.12


def test_635a_12_a_blackjack_pays_3_to_2_and_beats_a_dealer_blackjack() -> None:
    """635a.12(a)'s 3 to 2, and the win a secondary source gives (not in 635a.12(a)):
    against the dealer's ace and king (insurance declined, then the peek), seat 1's
    Blackjack is paid 3 to 2; seat 2's 15 loses."""
    r = Round("AS 5C AD KH QC KS", {1: main(), 2: main()})
    for seat in (1, 2):
        r.events += r.game.decline_insurance(seat)
    paid = {e.seat: (e.paid, e.line) for e in r.events if type(e) is WagerSettled}
    line = "Blackjack beats dealer Blackjack 3 to 2 (secondary source; odds 635a.12(a))"
    assert paid[1] == (2500, line)
    assert paid[2][0] == 0 and r.game.phase is Phase.COMPLETE
    r.replays()


def test_a_log_with_the_lines_earlier_wording_still_replays_and_nothing_else_does() -> None:
    """Builds before issue 36 logged the line citing 635a.12(a) alone: such a log replays to
    its own records (the line's earlier wording is declared); any other wording, or the
    earlier one with other money, does not."""
    r = Round("AS 5C AD KH QC KS", {1: main(), 2: main()})
    for seat in (1, 2):
        r.events += r.game.decline_insurance(seat)
    (k,) = [i for i, e in enumerate(r.events) if type(e) is WagerSettled and e.seat == 1]

    def logged(**change: Any) -> list[Any]:
        events = list(r.events)
        events[k] = events[k]._replace(**change)
        return events

    earlier = "Blackjack beats dealer Blackjack 3 to 2 (635a.12(a))"
    assert replay(RULES, logged(line=earlier)).phase is Phase.COMPLETE
    with pytest.raises(ReplayMismatch, match="differs on replay"):
        replay(RULES, logged(line="Blackjack beats dealer Blackjack 3 to 2 (635a.99)"))
    with pytest.raises(ReplayMismatch, match="differs on replay"):
        replay(RULES, logged(line=earlier, paid=2600))


def test_635a_12_a_a_player_21_beats_a_dealer_21() -> None:
    """Seat 1 makes 21 with three cards (no bonus hand): paid 1 to 1 at once; the dealer
    then makes 21 too."""
    r = Round("9C 5D 8H 3C 4C 6S 7S", {1: main()})
    r.act(HIT)
    assert [(w.paid, w.line) for w in r.settled()] == [(2000, "21 wins 1 to 1 (635a.12(a))")]
    assert r.game.phase is Phase.COMPLETE
    r = Round("9C 2H 5D 8H 9S 3C 4C 6S 7S", {1: main(), 2: main()})
    r.act(HIT)  # seat 1: 9 8 4 = 21, settled at once
    r.act(STAND, seat=2)  # seat 2: 2 9 stands on 11; the dealer draws 5 3 6 7 = 21
    (done,) = [e for e in r.events if type(e) is RoundCompleted]
    assert done.dealer_total == 21
    assert [(w.paid, w.line) for w in r.settled()] == [(2000, "21 wins 1 to 1 (635a.12(a))")]
    assert [w.paid for w in r.settled(seat=2)] == [0]
    r.replays()


def test_635a_12_b_5_five_card_21_pays_3_to_2_and_wins_at_once() -> None:
    r = Round("2C 9D 3H 7S 4D 5S 7C 9H", {1: main()})  # 2 3 | 4 5 7 = 21 in five cards
    for _ in range(3):
        r.act(HIT)
    (won,) = r.settled()
    assert (won.paid, won.line) == (2500, "Five-card 21 3 to 2 (635a.12(b)(5))")
    r.replays()


@pytest.mark.parametrize(
    ("cards", "hits", "paid", "line"),
    [
        ("6C 9D 7H 5S 8D", 1, 2500, "6-7-8 mixed suits 3 to 2 (635a.12(b)(1))"),
        ("6H 9D 7H 5S 8H", 1, 3000, "6-7-8 same suit 2 to 1 (635a.12(b)(2))"),
        ("6S 9D 7S 5S 8S", 1, 4000, "6-7-8 of spades 3 to 1 (635a.12(b)(2))"),
        ("7C 9D 7H 5S 7D", 1, 2500, "7-7-7 mixed suits 3 to 2 (635a.12(b)(3))"),
        ("7H 9D 7H 5S 7H", 1, 3000, "7-7-7 same suit 2 to 1 (635a.12(b)(4))"),
        ("7S 9D 7S 5S 7S", 1, 4000, "7-7-7 of spades 3 to 1 (635a.12(b)(4))"),
        ("2C 9D 3H 7S 2D 2S 3C 9H", 4, 3000, "Six-card 21 2 to 1 (635a.12(b)(6))"),
        ("2C 9D 3H 7S 2D 2S 3C AH 8C", 5, 4000, "Seven-or-more-card 21 3 to 1 (635a.12(b)(7))"),
    ],
)
def test_635a_12_b_bonus_lines(cards: str, hits: int, paid: int, line: str) -> None:
    r = Round(cards, {1: main()})
    for _ in range(hits):
        r.act(HIT)
    won = r.settled()
    assert [(w.paid, w.line) for w in won] == [(paid, line)]
    assert not r.settled(SUPER_BONUS)  # the dealer's up card is a 9
    r.replays()


def test_635a_12_b_a_doubled_bonus_hand_is_paid_1_to_1() -> None:
    r = Round("6C 9D 7H 5S 8D", {1: main()})
    r.act(DOUBLE)
    assert [(w.wager, w.paid, w.line) for w in r.settled() + r.settled("double")] == [
        ("blackjack", 2000, "21 after a double down 1 to 1 (635a.12(b))"),
        ("double", 2000, "21 after a double down 1 to 1 (635a.12(b))"),
    ]
    r.replays()


@pytest.mark.parametrize(
    ("wager", "bonus"),
    [(400, 0), (500, 100_000), (2_400, 100_000), (2_500, 500_000)],
)
def test_635a_12_c_super_bonus_for_suited_sevens_against_a_dealer_7(wager: int, bonus: int) -> None:
    """(c)(1): $1,000 for an original wager of $5 to under $25; $25 or more: the Rules
    Submission's amount ($5,000 here); under $5: none. Paid besides the (b)(4) odds."""
    r = Round("7H 7D 7H 5S 7H", {1: main(wager)})
    r.act(HIT)
    assert [w.paid for w in r.settled()] == [3 * wager]
    assert [w.paid for w in r.settled(SUPER_BONUS)] == ([bonus] if bonus else [])
    r.replays()


def test_635a_12_c_no_super_bonus_on_a_doubled_hand() -> None:
    r = Round("7H 7D 7H 5S 7H", {1: main(1000)})
    r.act(DOUBLE)
    assert not r.settled(SUPER_BONUS)


# ------------------------------------------------------------ 635a.10 double; rescue


def test_635a_10_double_on_three_cards_then_rescue() -> None:
    """A double on any number of cards; the player then stands or rescues: the double down
    wager comes back, the original is forfeited."""
    r = Round("3C 9D 5H 5S 3D 4C", {1: main()})  # 3 5 | 3 = 11, double: 4 = 15
    r.act(HIT)
    assert DOUBLE in r.game.legal_actions()
    r.act(DOUBLE)
    assert r.game.legal_actions() == {STAND, RESCUE}
    r.act(RESCUE)
    assert [(w.wager, w.paid) for w in r.settled() + r.settled("double")] == [
        ("blackjack", 0),
        ("double", 1000),
    ]
    r.replays()


def test_635a_10_a_second_double_and_a_hit_after_a_double_are_refused() -> None:
    r = Round("3C 9D 5H 5S 3D 4C", {1: main()})
    r.act(DOUBLE)
    with pytest.raises(ActionNotAllowed, match=r"doubled once.*635a\.10"):
        r.act(DOUBLE)
    with pytest.raises(ActionNotAllowed, match=r"one card.*635a\.10"):
        r.act(HIT)


def test_635a_10_a_rescue_without_a_double_or_after_a_hit_is_refused() -> None:
    r = Round("3C 9D 5H 5S 3D 4C", {1: main()})
    with pytest.raises(ActionNotAllowed, match=r"has not doubled down.*635a\.10"):
        r.act(RESCUE)
    r.act(HIT)
    with pytest.raises(ActionNotAllowed, match=r"has not doubled down.*635a\.10"):
        r.act(RESCUE)


def test_635a_10_the_countdown_stands_a_doubled_hand() -> None:
    r = Round("3C 9D 5H 5S 3D 4C", {1: main()})
    r.act(DOUBLE)
    assert r.game.countdown_action() == "stand"


def test_late_surrender_and_resplit_aces() -> None:
    r = Round("9C 9D 7H 5S", {1: main()})
    r.act(SURRENDER)
    assert [(w.paid, w.line) for w in r.settled()] == [
        (500, "Late surrender: half returned (635a)")
    ]
    r = Round("AC 9D AH 5S AD 3C 8H 2D", {1: main()})
    r.act(SPLIT)
    assert SPLIT in r.game.legal_actions()  # the split ace drew an ace: resplit (Rules Submission)
    r.replays()


# ------------------------------------------------------------------------ the deck


def test_the_spanish_deck_is_a_standard_deck_without_its_tens() -> None:
    """48 cards, no ten (Chapter 635a, secondary source; 635b.1(b))."""
    spanish = spanish_deck()
    assert len(set(spanish)) == 48 and all(c.rank != 10 for c in spanish)


def test_spanish_decks_pass_over_the_tens_of_the_certified_shoe() -> None:
    """The tens of the certified shoe are never dealt; every other card is, in the shoe's
    order, at its own position."""
    shoe = Shoe(6, ShoeSeed.from_test_seed(7, "S21", 1))
    order = shoe.order
    cards = SpanishCards(shoe)
    dealt = []
    while shoe.remaining > 40:
        position = cards.position
        dealt.append((position, cards.draw()))
    assert all(order[p] == c and c.rank != 10 for p, c in dealt)
    wanted = [(p, c) for p, c in enumerate(order[: dealt[-1][0] + 1]) if c.rank != 10]
    assert dealt == wanted


# ------------------------------------------------------------------------- strategy


@pytest.mark.parametrize(
    ("cards", "up", "doubled", "expected"),
    [
        ("9S 7D", "AH", False, SURRENDER),  # hard 16 against an ace: Rh
        ("9S 8D", "AH", False, SURRENDER),  # hard 17 against an ace: Rs
        ("5S 6D", "9H", False, DOUBLE),  # 11 against a 9: the analysis (and the chart) double
        ("3S 2D 3C 3H", "6H", False, DOUBLE),  # a four-card 11 against a 6: double
        ("9S 6D", "2H", False, STAND),  # S4: 15 of two cards stands against a 2
        ("2S 3D 4C 6H", "2H", False, HIT),  # S4: 15 of four cards hits
        ("8S 8D", "AH", False, SURRENDER),  # 8-8 against an ace: Rp
        ("5S 3D 7C", "KH", True, RESCUE),  # a doubled 15 against a face card
        ("5S 3D 9C", "KH", True, STAND),  # a doubled 17 stands
    ],
)
def test_the_basic_strategy_chart(
    cards: str, up: str, doubled: bool, expected: Spanish21Action
) -> None:
    from game_server.config import example_path, load_config
    from game_server.games.spanish21.rules.strategy import strategy_for
    from game_server.rules.twenty_one import hand_total

    rules = load_config(example_path("spanish21.toml")).rules
    hand = parse_cards(cards)
    total, soft = hand_total(hand)
    decided = strategy_for(rules).decide(
        hand,
        total,
        soft,
        parse_card(up),
        doubled=doubled,
        can_double=len(hand) >= 2,
        can_split=len(hand) == 2,
        can_surrender=len(hand) == 2,
    )
    assert decided is expected


def test_635a_12_c_no_super_bonus_for_mixed_sevens_against_a_7() -> None:
    r = Round("7H 7D 7C 5S 7S", {1: main(1000)})
    r.act(HIT)
    assert [w.line for w in r.settled()] == ["7-7-7 mixed suits 3 to 2 (635a.12(b)(3))"]
    assert not r.settled(SUPER_BONUS)
