"""Ultimate Texas Hold 'Em refusals: the Rules Submission checks of UthRules and the wagers
the round refuses, each a declared error naming the paragraph of 58 Pa. Code 653a."""

from __future__ import annotations

from typing import Any

import pytest

from game_server.games.uth.rules.game import DeckError, StackedDeck, UthRound
from game_server.games.uth.rules.rules import UthRules, UthRulesError
from game_server.rules.errors import (
    ActionNotAllowed,
    BetOutOfLimits,
    SeatError,
    WagerError,
    WagerNotOffered,
    WrongPhase,
)
from game_server.rules.limits import WagerLimits
from game_server.rules.meters import Meter
from game_server.rules.wagers.base import MeterSpec
from shared.cards import CARDS, parse_cards

METER = MeterSpec("Meter", 1_000_000, 1_000_000, 1_000)


def _rules(**kw: Any) -> UthRules:
    return UthRules(**kw)


# ------------------------------------------------------------------ Rules Submission


def test_653a_12_b_unknown_blind_paytable_is_refused() -> None:
    """653a.12(b): the Blind paytable is Paytable A or B."""
    with pytest.raises(UthRulesError, match=r"653a\.12\(b\)"):
        _rules(blind_paytable="Paytable C")


def test_653a_12_c_unknown_trips_paytable_is_refused() -> None:
    """653a.12(c): the Trips paytable is Paytable A, B, C or D."""
    with pytest.raises(UthRulesError, match=r"653a\.12\(c\)"):
        _rules(trips_paytable="Paytable E")


def test_653a_12_d_3_progressive_meter_below_10000_is_refused() -> None:
    """653a.12(d)(3): the initial and reset amounts are at least $10,000."""
    low_seed = MeterSpec("P", 999_999, 1_000_000, 1_000)
    low_reset = MeterSpec("P", 2_000_000, 999_999, 1_000)
    for spec in (low_seed, low_reset):
        with pytest.raises(UthRulesError, match=r"653a\.12\(d\)\(3\)"):
            _rules(progressive_amounts=(100,), progressive_meter=spec)
    with pytest.raises(UthRulesError, match=r"653a\.12\(d\)\(3\)"):
        _rules(progressive_amounts=(100,))
    with pytest.raises(UthRulesError, match="rate of progression"):
        _rules(
            progressive_amounts=(100,), progressive_meter=MeterSpec("P", 1_000_000, 1_000_000, 0)
        )


def test_653a_12_e_4_five_card_meter_below_10000_is_refused() -> None:
    """653a.12(e)(4): the Five Card Hand Bonus meter starts and resets at $10,000 or more."""
    with pytest.raises(UthRulesError, match=r"653a\.12\(e\)\(4\)"):
        _rules(five_card_amounts=(100,), five_card_meter=MeterSpec("F", 1_000_000, 500_000, 1_000))


def test_653a_12_d_5_progressive_amount_without_an_envy_table_is_refused() -> None:
    """653a.12(d)(5): Envy Bonus tables exist for $1 and $5 Progressive Payout Wagers only."""
    with pytest.raises(UthRulesError, match=r"653a\.12\(d\)\(5\)"):
        _rules(progressive_amounts=(100, 200), progressive_meter=METER)


def test_653a_12_e_five_card_amount_must_be_whole_units() -> None:
    """653a.12(e): a Five Card Hand Bonus amount is a positive multiple of the wager unit."""
    with pytest.raises(UthRulesError, match=r"653a\.12\(e\)"):
        _rules(five_card_amounts=(150,), five_card_meter=METER)


def test_653a_12_e_3_magic_card_needs_the_five_card_bonus() -> None:
    """653a.12(e)(3): Magic Card and Lucky Bonus pay on the Five Card Hand Bonus Wager."""
    with pytest.raises(UthRulesError, match=r"653a\.12\(e\)\(3\)"):
        _rules(magic_card_bonus=True)
    with pytest.raises(UthRulesError, match=r"653a\.12\(e\)\(3\)"):
        _rules(lucky_bonus=True)


def test_653a_12_e_3_a_table_pays_a_magic_card_or_a_lucky_bonus_not_both() -> None:
    """653a.12(e)(3): the certificate holder "may pay a Magic Card or Lucky Bonus": rules
    offering both at once are refused naming the paragraph; either one alone is accepted."""
    with pytest.raises(
        UthRulesError, match=r"Magic Card or a Lucky Bonus, not both.*653a\.12\(e\)\(3\)"
    ):
        _rules(**OFFERED, magic_card_bonus=True, lucky_bonus=True)
    assert _rules(**OFFERED, magic_card_bonus=True).magic_card_bonus
    assert _rules(**OFFERED, lucky_bonus=True).lucky_bonus


def test_653a_12_f_maximum_payout_below_50000_is_refused() -> None:
    """653a.12(f): the maximum payout is at least $50,000."""
    with pytest.raises(UthRulesError, match=r"653a\.12\(f\)"):
        _rules(max_payout=4_999_999)
    assert _rules(max_payout=5_000_000).max_payout == 5_000_000


def test_653a_12_f_maximum_payout_below_the_minimum_bettors_win_is_refused() -> None:
    """653a.12(f): ... or what one patron could win betting the minimum, if greater: a $100
    minimum Ante and Trips can win 505 x $100 + 50 x $100 = $55,500."""
    limits = WagerLimits(10_000, 100_000, 100)
    kw: dict[str, Any] = {"ante_limits": limits, "trips_limits": limits}
    assert _rules(**kw).max_win_at_minimum() == 5_550_000
    with pytest.raises(UthRulesError, match=r"\$55,500\.00.*653a\.12\(f\)"):
        _rules(max_payout=5_000_000, **kw)
    assert _rules(max_payout=5_550_000, **kw).max_payout == 5_550_000


def test_seat_count_is_checked() -> None:
    """A table has at least one and at most ten seats."""
    with pytest.raises(UthRulesError):
        _rules(seats=0)


# ---------------------------------------------------------------------------- wagers

OFFERED = {
    "progressive_amounts": (100, 500),
    "progressive_meter": METER,
    "five_card_amounts": (500,),
    "five_card_meter": METER,
}


def test_blind_must_equal_the_ante() -> None:
    """653a.7 (per regs-653a.md): the Blind Wager equals the Ante Wager."""
    game = UthRound(_rules())
    with pytest.raises(WagerError, match=r"must equal the Ante.*653a\.7"):
        game.place_wagers(1, {"ante": 1000, "blind": 500})
    assert not game.can_place_wagers(1, {"ante": 1000, "blind": 500})
    assert game.can_place_wagers(1, {"ante": 1000, "blind": 1000})


def test_ante_and_blind_come_first() -> None:
    """653a.7 (per regs-653a.md): an Ante and a Blind before any other wager."""
    game = UthRound(_rules())
    with pytest.raises(WagerNotOffered, match=r"653a\.7"):
        game.place_wagers(1, {"trips": 500})
    with pytest.raises(WagerNotOffered, match=r"653a\.7"):
        game.place_wagers(1, {"ante": 500})


def test_trips_not_offered_is_refused() -> None:
    """653a.12(c): no Trips Wager where the Rules Submission does not offer it."""
    game = UthRound(_rules(trips_paytable=None))
    with pytest.raises(WagerNotOffered, match=r"653a\.12\(c\)"):
        game.place_wagers(1, {"ante": 500, "blind": 500, "trips": 500})


def test_653a_12_d_progressive_amount_not_offered_is_refused() -> None:
    """653a.12(d), (d)(5): the Progressive Payout Wager is a fixed $1 or $5."""
    game = UthRound(_rules(**OFFERED))
    with pytest.raises(BetOutOfLimits, match=r"653a\.12\(d\)"):
        game.place_wagers(1, {"ante": 500, "blind": 500, "progressive": 200})
    no_prog = UthRound(_rules())
    with pytest.raises(WagerNotOffered, match=r"653a\.12\(d\)"):
        no_prog.place_wagers(1, {"ante": 500, "blind": 500, "progressive": 100})


def test_653a_12_e_five_card_amount_not_offered_is_refused() -> None:
    """653a.12(e): the Five Card Hand Bonus Wager takes the amounts the table offers."""
    game = UthRound(_rules(**OFFERED))
    with pytest.raises(BetOutOfLimits, match=r"653a\.12\(e\)"):
        game.place_wagers(1, {"ante": 500, "blind": 500, "five_card_dealer": 100})


def test_other_wager_refusals() -> None:
    """Limits, unknown wagers, the Play Wager before the deal, a second Ante, a bad seat,
    and any wager after the deal are refused."""
    game = UthRound(_rules())
    with pytest.raises(BetOutOfLimits):
        game.place_wagers(1, {"ante": 100, "blind": 100})
    with pytest.raises(WagerNotOffered):
        game.place_wagers(1, {"ante": 500, "blind": 500, "bad_beat": 500})
    with pytest.raises(WagerNotOffered, match="Play Wager"):
        game.place_wagers(1, {"ante": 500, "blind": 500, "play": 500})
    with pytest.raises(SeatError):
        game.place_wagers(7, {"ante": 500, "blind": 500})
    with pytest.raises(WagerError):
        game.place_wagers(1, {})
    game.place_wagers(1, {"ante": 500, "blind": 500})
    with pytest.raises(WagerError, match="already placed"):
        game.place_wagers(1, {"ante": 500})
    game.place_wagers(1, {"trips": 500})
    game.deal(StackedDeck(list(CARDS)))
    with pytest.raises(WrongPhase):
        game.place_wagers(2, {"ante": 500, "blind": 500})
    with pytest.raises(WrongPhase):
        game.deal(StackedDeck(list(CARDS)))


def test_nothing_to_deal_without_an_ante() -> None:
    """A round with no Ante has nothing to deal."""
    game = UthRound(_rules())
    assert not game.can_deal()
    with pytest.raises(WagerError):
        game.deal(StackedDeck(list(CARDS)))


def _to_showdown(game: UthRound, wagers: dict[str, int]) -> None:
    game.place_wagers(1, wagers)
    game.deal(StackedDeck(list(CARDS)))
    game.play(1, 4)


def test_settlement_inputs_are_checked() -> None:
    """653a.12(d)(4), (e)(1), (e)(3): settlement needs the meters of the wagers placed and
    the Magic Card and Lucky Bonus draws a table pays; a draw it does not pay is refused."""
    rules = _rules(**OFFERED, magic_card_bonus=True)
    game = UthRound(rules)
    _to_showdown(game, {"ante": 500, "blind": 500, "five_card_player": 500})
    meters = {mid: Meter.open(mid, spec).meter for mid, spec in rules.meters().items()}
    magic = parse_cards("AS")[0]
    with pytest.raises(WagerError, match="meter"):
        game.settle({}, magic)
    with pytest.raises(WagerError, match="Magic Card"):
        game.settle(meters, None)
    with pytest.raises(ActionNotAllowed, match="Lucky Bonus"):
        game.settle(meters, magic, 1)
    assert game.can_settle(meters, magic)
    lucky = UthRound(_rules(**OFFERED, lucky_bonus=True))
    _to_showdown(lucky, {"ante": 500, "blind": 500, "five_card_player": 500})
    with pytest.raises(WagerError, match="Lucky Bonus"):
        lucky.settle(meters, None, None)
    with pytest.raises(SeatError, match="Lucky Bonus"):
        lucky.settle(meters, None, 9)
    with pytest.raises(ActionNotAllowed, match="Magic Card"):
        lucky.settle(meters, magic, 0)
    assert lucky.can_settle(meters, None, 0)
    plain = UthRound(_rules(**OFFERED))
    _to_showdown(plain, {"ante": 500, "blind": 500})
    with pytest.raises(ActionNotAllowed, match="Magic Card"):
        plain.settle({}, magic)
    with pytest.raises(ActionNotAllowed, match="Lucky Bonus"):
        plain.settle({}, None, 1)
    assert plain.settle() and not plain.can_settle({})


def test_653a_12_e_2_five_card_hand_choice_is_checked() -> None:
    """653a.12(e)(2): the Five Card Hand Bonus hand is "hole-and-flop" or "best-of-seven"."""
    with pytest.raises(UthRulesError, match=r"653a\.12\(e\)\(2\)"):
        _rules(five_card_hand="best-of-six")


def test_a_card_dealt_twice_is_refused() -> None:
    """One 52-card deck per round: a source that repeats a card is refused."""
    game = UthRound(_rules())
    game.place_wagers(1, {"ante": 500, "blind": 500})
    repeated = [*parse_cards("AS KD QC"), *parse_cards("AS")]
    with pytest.raises(DeckError, match="twice"):
        game.deal(StackedDeck(repeated))
