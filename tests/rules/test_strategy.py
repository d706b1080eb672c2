"""Tests for :mod:`game_server.games.blackjack.rules.strategy`: chart cells, rule variants,
legality.

Chart cells are those of the Wizard of Odds 4-8 deck charts (S17 and H17) that the module
transcribes; the legality tests enumerate every total, upcard and flag combination.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.charts import blackjack_model, chart_for
from game_server.games.blackjack.rules.rules import DECK_COUNTS, BlackjackRules, DoubleOn
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.rules.twenty_one import hand_total
from shared.cards import BJ_VALUE, CARDS, parse_card, parse_cards

ACE = 1
TEN = 10
UPCARDS = range(1, 11)

#: 6 decks, dealer stands on soft 17, double any two cards, DAS, no surrender.
S17 = BlackjackRules()
#: The generated chart of S17 (the shipped example's rules).
SHIPPED_CHART = chart_for(blackjack_model(S17))
S17_LS = replace(S17, late_surrender=True)
H17 = replace(S17, dealer_hits_soft_17=True)
H17_LS = replace(H17, late_surrender=True)


def hard(
    strategy: BasicStrategy,
    total: int,
    up: int,
    *,
    double: bool = True,
    surrender: bool = False,
) -> Action:
    """A two-card hard total that is not a pair."""
    return strategy.decide(total, False, 0, up, double, False, surrender)


def soft(strategy: BasicStrategy, total: int, up: int, *, double: bool = True) -> Action:
    """A soft total (an ace counted as 11) that is not a pair."""
    return strategy.decide(total, True, 0, up, double, False, False)


def pair(
    strategy: BasicStrategy,
    value: int,
    up: int,
    *,
    split: bool = True,
    surrender: bool = False,
    double: bool = True,
) -> Action:
    """Two cards of BJ value ``value`` (1 for aces), double allowed unless ``double`` is off."""
    total, is_soft = (12, True) if value == ACE else (2 * value, False)
    return strategy.decide(total, is_soft, value, up, double, split, surrender)


# -- 6-deck S17 DAS chart cells ----------------------------------------------------------


def test_hard_16_hits_against_10_without_surrender() -> None:
    """Hard 16 against a 10 hits when surrender is not offered."""
    assert hard(BasicStrategy(S17), 16, TEN) is Action.HIT


def test_hard_16_surrenders_against_9_10_ace_with_late_surrender() -> None:
    """With late surrender, hard 16 surrenders against 9, 10 and ace, and stands against 6."""
    strategy = BasicStrategy(S17_LS)
    for up in (9, TEN, ACE):
        assert hard(strategy, 16, up, surrender=True) is Action.SURRENDER
    assert hard(strategy, 16, 6, surrender=True) is Action.STAND
    assert hard(strategy, 16, 8, surrender=True) is Action.HIT


def test_hard_16_hits_against_10_when_surrender_is_not_legal_now() -> None:
    """A three-card 16 against a 10 hits: the surrender cell falls back to hit."""
    assert hard(BasicStrategy(S17_LS), 16, TEN, surrender=False) is Action.HIT


def test_hard_15_surrenders_only_against_10_under_s17() -> None:
    """Under S17 with late surrender, hard 15 surrenders against a 10 and hits against an ace."""
    strategy = BasicStrategy(S17_LS)
    assert hard(strategy, 15, TEN, surrender=True) is Action.SURRENDER
    assert hard(strategy, 15, ACE, surrender=True) is Action.HIT
    assert hard(strategy, 15, 9, surrender=True) is Action.HIT


def test_surrender_cells_are_ignored_when_the_table_has_no_surrender() -> None:
    """On a table without late surrender, 16 against 10 hits even if the flag claims surrender."""
    assert hard(BasicStrategy(S17), 16, TEN, surrender=True) is Action.HIT


def test_hard_11_hits_against_ace_under_s17() -> None:
    """Multi-deck S17: hard 11 doubles against 2-10 but hits against an ace."""
    strategy = BasicStrategy(S17)
    assert hard(strategy, 11, ACE) is Action.HIT
    for up in range(2, 11):
        assert hard(strategy, 11, up) is Action.DOUBLE


def test_hard_11_doubles_against_ace_under_h17() -> None:
    """Multi-deck H17: hard 11 doubles against an ace too."""
    assert hard(BasicStrategy(H17), 11, ACE) is Action.DOUBLE


def test_hard_10_and_9_doubling_ranges() -> None:
    """Hard 10 doubles against 2-9 and hits 10 and ace; hard 9 doubles against 3-6 only."""
    strategy = BasicStrategy(S17)
    assert [hard(strategy, 10, up) for up in (9, TEN, ACE)] == [
        Action.DOUBLE,
        Action.HIT,
        Action.HIT,
    ]
    assert [hard(strategy, 9, up) for up in range(2, 8)] == [
        Action.HIT,
        Action.DOUBLE,
        Action.DOUBLE,
        Action.DOUBLE,
        Action.DOUBLE,
        Action.HIT,
    ]


def test_hard_12_hits_against_2_and_3_and_stands_against_4_to_6() -> None:
    """Hard 12 hits against 2 and 3, stands against 4, 5, 6 and hits against 7."""
    strategy = BasicStrategy(S17)
    assert hard(strategy, 12, 2) is Action.HIT
    assert hard(strategy, 12, 3) is Action.HIT
    assert hard(strategy, 12, 4) is Action.STAND
    assert hard(strategy, 12, 6) is Action.STAND
    assert hard(strategy, 12, 7) is Action.HIT


def test_hard_13_stands_against_2_and_hard_17_always_stands() -> None:
    """Hard 13 stands against a 2; hard 17 stands against everything under S17."""
    strategy = BasicStrategy(S17_LS)
    assert hard(strategy, 13, 2) is Action.STAND
    for up in UPCARDS:
        assert hard(strategy, 17, up, surrender=True) is Action.STAND


def test_soft_18_stands_against_2_and_doubles_against_3_under_s17() -> None:
    """A7 stands against 2, doubles against 3-6, stands against 7-8, hits against 9, 10, A."""
    strategy = BasicStrategy(S17)
    assert soft(strategy, 18, 2) is Action.STAND
    for up in (3, 4, 5, 6):
        assert soft(strategy, 18, up) is Action.DOUBLE
    assert soft(strategy, 18, 7) is Action.STAND
    assert soft(strategy, 18, 8) is Action.STAND
    for up in (9, TEN, ACE):
        assert soft(strategy, 18, up) is Action.HIT


def test_soft_18_stands_against_3_when_it_may_not_double() -> None:
    """A three-card soft 18 against a 3 stands: "Ds" falls back to stand, not hit."""
    assert soft(BasicStrategy(S17), 18, 3, double=False) is Action.STAND


def test_soft_17_against_4_hits_when_it_may_not_double() -> None:
    """A three-card soft 17 against a 4 hits: "Dh" falls back to hit."""
    assert soft(BasicStrategy(S17), 17, 4, double=False) is Action.HIT


def test_soft_doubling_ranges_under_s17() -> None:
    """A2/A3 double against 5-6, A4/A5 against 4-6, A6 against 3-6, A8 never (S17)."""
    strategy = BasicStrategy(S17)
    assert [soft(strategy, 13, up) for up in (4, 5, 6)] == [
        Action.HIT,
        Action.DOUBLE,
        Action.DOUBLE,
    ]
    assert [soft(strategy, 16, up) for up in (3, 4, 7)] == [Action.HIT, Action.DOUBLE, Action.HIT]
    assert [soft(strategy, 17, up) for up in (2, 3, 7)] == [Action.HIT, Action.DOUBLE, Action.HIT]
    assert soft(strategy, 19, 6) is Action.STAND


def test_soft_18_and_19_double_more_under_h17() -> None:
    """H17 doubles A7 against a 2 and A8 against a 6; S17 stands on both."""
    s17, h17 = BasicStrategy(S17), BasicStrategy(H17)
    assert soft(h17, 18, 2) is Action.DOUBLE
    assert soft(s17, 18, 2) is Action.STAND
    assert soft(h17, 19, 6) is Action.DOUBLE
    assert soft(s17, 19, 6) is Action.STAND
    assert soft(h17, 19, 6, double=False) is Action.STAND


def test_h17_adds_surrender_of_15_and_17_against_ace() -> None:
    """H17 with late surrender surrenders 15 and 17 against an ace; S17 hits 15 and stands 17."""
    h17 = BasicStrategy(H17_LS)
    assert hard(h17, 15, ACE, surrender=True) is Action.SURRENDER
    assert hard(h17, 17, ACE, surrender=True) is Action.SURRENDER
    assert hard(h17, 17, ACE, surrender=False) is Action.STAND
    s17 = BasicStrategy(S17_LS)
    assert hard(s17, 15, ACE, surrender=True) is Action.HIT
    assert hard(s17, 17, ACE, surrender=True) is Action.STAND


def test_soft_18_against_9_hits() -> None:
    """Soft 18 against a 9 hits under both S17 and H17."""
    assert soft(BasicStrategy(S17), 18, 9) is Action.HIT
    assert soft(BasicStrategy(H17), 18, 9) is Action.HIT


# -- pairs ---------------------------------------------------------------------------------


def test_eights_split_against_everything_under_s17_even_with_surrender() -> None:
    """S17: 8,8 splits against every upcard, even where surrender is offered."""
    strategy = BasicStrategy(S17_LS)
    for up in UPCARDS:
        assert pair(strategy, 8, up, surrender=True) is Action.SPLIT


def test_eights_surrender_against_ace_under_h17_with_late_surrender() -> None:
    """H17 with late surrender: 8,8 against an ace surrenders ("Rp"), else it splits."""
    strategy = BasicStrategy(H17_LS)
    assert pair(strategy, 8, ACE, surrender=True) is Action.SURRENDER
    assert pair(strategy, 8, ACE, surrender=False) is Action.SPLIT
    assert pair(strategy, 8, TEN, surrender=True) is Action.SPLIT
    assert pair(BasicStrategy(H17), 8, ACE, surrender=True) is Action.SPLIT


def test_eights_that_may_not_split_play_as_hard_16() -> None:
    """8,8 against a 10 that may not be split plays hard 16: surrender if legal, else hit."""
    strategy = BasicStrategy(S17_LS)
    assert pair(strategy, 8, TEN, split=False, surrender=True) is Action.SURRENDER
    assert pair(strategy, 8, TEN, split=False, surrender=False) is Action.HIT
    assert pair(strategy, 8, 6, split=False) is Action.STAND


def test_aces_split_against_everything() -> None:
    """A,A splits against every upcard under S17 and H17."""
    for rules in (S17, H17_LS):
        strategy = BasicStrategy(rules)
        for up in UPCARDS:
            assert pair(strategy, ACE, up, surrender=True) is Action.SPLIT


def test_aces_that_may_not_split_play_as_soft_12() -> None:
    """A,A that may not be split (resplit limit) plays its own next choice as soft 12: it
    hits, or doubles where the analysis finds doubling better (against a 6), never stands."""
    strategy = BasicStrategy(S17)
    for up in UPCARDS:
        assert pair(strategy, ACE, up, split=False) in (Action.HIT, Action.DOUBLE)
        assert pair(strategy, ACE, up, split=False, double=False) is Action.HIT


def test_nines_stand_against_7_10_ace_and_split_against_8_and_9() -> None:
    """9,9 stands against 7, 10 and ace, and splits against 2-6, 8 and 9."""
    strategy = BasicStrategy(S17)
    for up in (7, TEN, ACE):
        assert pair(strategy, 9, up) is Action.STAND
    for up in (2, 3, 4, 5, 6, 8, 9):
        assert pair(strategy, 9, up) is Action.SPLIT


def test_fours_split_against_5_only_with_double_after_split() -> None:
    """4,4 against a 5 splits with DAS and hits without it."""
    assert pair(BasicStrategy(S17), 4, 5) is Action.SPLIT
    no_das = BasicStrategy(replace(S17, double_after_split=False))
    assert pair(no_das, 4, 5) is Action.HIT
    assert pair(BasicStrategy(S17), 4, 4) is Action.HIT


def test_twos_threes_and_sixes_against_2_split_only_with_das() -> None:
    """2,2 and 3,3 against 2 or 3, and 6,6 against 2, split with DAS and hit without it."""
    das = BasicStrategy(S17)
    no_das = BasicStrategy(replace(S17, double_after_split=False))
    for value, up in ((2, 2), (2, 3), (3, 2), (3, 3), (6, 2)):
        assert pair(das, value, up) is Action.SPLIT
        assert pair(no_das, value, up) is Action.HIT
    assert pair(no_das, 2, 4) is Action.SPLIT
    assert pair(no_das, 6, 3) is Action.SPLIT


def test_sevens_split_against_2_to_7_and_hit_against_8() -> None:
    """7,7 splits against 2-7 and hits against 8."""
    strategy = BasicStrategy(S17)
    for up in range(2, 8):
        assert pair(strategy, 7, up) is Action.SPLIT
    assert pair(strategy, 7, 8) is Action.HIT


def test_fives_and_tens_are_never_split() -> None:
    """5,5 plays as hard 10 (double against 9, hit against 10); 10,10 always stands."""
    strategy = BasicStrategy(S17)
    assert pair(strategy, 5, 9) is Action.DOUBLE
    assert pair(strategy, 5, TEN) is Action.HIT
    for up in UPCARDS:
        assert pair(strategy, TEN, up) is Action.STAND


# -- double restrictions (633a.10) --------------------------------------------------------


def test_ten_to_eleven_hits_9_against_5_instead_of_doubling() -> None:
    """Under "10-11", hard 9 against a 5 hits, while hard 10 against a 5 still doubles."""
    strategy = BasicStrategy(replace(S17, double_on=DoubleOn.TEN_TO_ELEVEN))
    assert hard(strategy, 9, 5) is Action.HIT
    assert hard(strategy, 10, 5) is Action.DOUBLE
    assert hard(strategy, 11, 6) is Action.DOUBLE


def test_ten_to_eleven_hits_soft_17_against_4() -> None:
    """Under "10-11", A6 against a 4 hits ("Dh" fallback) and A7 against a 4 stands ("Ds")."""
    strategy = BasicStrategy(replace(S17, double_on=DoubleOn.TEN_TO_ELEVEN))
    assert soft(strategy, 17, 4) is Action.HIT
    assert soft(strategy, 18, 4) is Action.STAND


def test_nine_to_eleven_doubles_9_but_not_soft_hands() -> None:
    """Under "9-11", hard 9 against a 5 doubles, but soft 16 against a 5 hits."""
    strategy = BasicStrategy(replace(S17, double_on=DoubleOn.NINE_TO_ELEVEN))
    assert hard(strategy, 9, 5) is Action.DOUBLE
    assert soft(strategy, 16, 5) is Action.HIT
    assert pair(strategy, 5, 6) is Action.DOUBLE


# -- the card-code convenience, insurance, deck counts -----------------------------------


def test_decide_cards_splits_eights_against_a_ten() -> None:
    """decide_cards reads 8S 8H against KD as a pair of eights and splits them."""
    strategy = BasicStrategy(S17)
    action = strategy.decide_cards(
        parse_cards("8S 8H"), parse_card("KD"), can_double=True, can_split=True, can_surrender=False
    )
    assert action is Action.SPLIT


def test_decide_cards_treats_a_king_and_a_ten_as_a_pair_of_tens() -> None:
    """K and 10 are a pair by value (633a.11(a)) and, as tens, stand against a 6."""
    strategy = BasicStrategy(S17)
    action = strategy.decide_cards(
        parse_cards("KS TD"), parse_card("6C"), can_double=True, can_split=True, can_surrender=False
    )
    assert action is Action.STAND


def test_decide_cards_reads_ace_six_as_soft_17() -> None:
    """decide_cards reads AS 6D against 5H as soft 17 and doubles."""
    strategy = BasicStrategy(S17)
    action = strategy.decide_cards(
        parse_cards("AS 6D"),
        parse_card("5H"),
        can_double=True,
        can_split=False,
        can_surrender=False,
    )
    assert action is Action.DOUBLE


@given(
    cards=st.lists(st.sampled_from(CARDS), min_size=2, max_size=6).filter(
        lambda cs: hand_total(cs)[0] <= 21
    ),
    up=st.sampled_from(CARDS),
    flags=st.tuples(st.booleans(), st.booleans(), st.booleans()),
)
def test_decide_cards_agrees_with_decide(
    cards: list[int], up: int, flags: tuple[bool, bool, bool]
) -> None:
    """decide_cards gives the same action as decide on the hand's total, softness and pair."""
    strategy = BasicStrategy(H17_LS)
    can_double, can_split, can_surrender = flags
    total, is_soft = hand_total(cards)
    is_pair = len(cards) == 2 and BJ_VALUE[cards[0]] == BJ_VALUE[cards[1]]
    pair_value = BJ_VALUE[cards[0]] if is_pair else 0
    expected = strategy.decide(
        total, is_soft, pair_value, BJ_VALUE[up], can_double, can_split, can_surrender
    )
    got = strategy.decide_cards(
        cards, up, can_double=can_double, can_split=can_split, can_surrender=can_surrender
    )
    assert got is expected


def test_never_takes_insurance_or_even_money() -> None:
    """Basic strategy declines insurance and even money under every rule set."""
    assert BasicStrategy(S17).take_insurance() is False
    assert BasicStrategy(H17_LS).take_insurance() is False


@pytest.mark.parametrize("decks", DECK_COUNTS)
def test_every_deck_count_gets_the_chart_of_its_own_rules(decks: int) -> None:
    """Each deck count is its own model for the analysis (a one-deck table is not played
    with the multi-deck chart): the models differ only by the shoe."""
    models = {blackjack_model(replace(S17, decks=d)).key for d in DECK_COUNTS}
    assert len(models) == len(DECK_COUNTS)
    assert f"decks={decks}" in blackjack_model(replace(S17, decks=decks)).key


# -- exhaustive legality -----------------------------------------------------------------


def _all_inputs() -> list[tuple[int, bool, int, int, bool, bool, bool]]:
    """Every reachable (total, soft, pair_value) with every upcard and flag combination."""
    hands = [(total, False, 0) for total in range(4, 22)]
    hands += [(total, True, 0) for total in range(12, 22)]
    hands += [(12, True, 1)] + [(2 * v, False, v) for v in range(2, 11)]
    flags = list(itertools.product((False, True), repeat=3))
    return [(*hand, up, *flag) for hand in hands for up in UPCARDS for flag in flags]


def _rules_id(rules: BlackjackRules) -> str:
    """A short test id such as ``H17-DAS-LS-10-11``."""
    return "-".join(
        (
            "H17" if rules.dealer_hits_soft_17 else "S17",
            "DAS" if rules.double_after_split else "noDAS",
            "LS" if rules.late_surrender else "noLS",
            str(rules.double_on),
        )
    )


RULE_VARIANTS = [
    replace(S17, dealer_hits_soft_17=h17, double_after_split=das, late_surrender=ls, double_on=on)
    for h17, das, ls, on in itertools.product((False, True), (False, True), (False, True), DoubleOn)
]


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=_rules_id)
def test_never_an_illegal_action_and_never_hit_on_21(rules: BlackjackRules) -> None:
    """For every rule set, hand, upcard and flag set the action is legal, and 21 never hits
    (the legality is the resolver's: one chart serves, resolved under each rule set)."""
    strategy = BasicStrategy(rules, chart=SHIPPED_CHART)
    for total, is_soft, value, up, d, sp, su in _all_inputs():
        action = strategy.decide(total, is_soft, value, up, d, sp, su)
        where = (total, is_soft, value, up, d, sp, su)
        assert action is not Action.DOUBLE or d, where
        assert action is not Action.SPLIT or (sp and value), where
        assert action is not Action.SURRENDER or (su and rules.late_surrender), where
        assert action is not Action.HIT or total < 21, where
        if action is Action.DOUBLE and rules.double_on is not DoubleOn.ANY:
            low = 9 if rules.double_on is DoubleOn.NINE_TO_ELEVEN else 10
            assert not is_soft and low <= total <= 11, where


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=_rules_id)
def test_hard_17_and_up_never_hit(rules: BlackjackRules) -> None:
    """Hard 17 or more and soft 19 or more never hit, whatever the rules and flags."""
    strategy = BasicStrategy(rules, chart=SHIPPED_CHART)
    for total, is_soft, value, up, d, sp, su in _all_inputs():
        if value == 0 and total >= (19 if is_soft else 17):
            assert strategy.decide(total, is_soft, value, up, d, sp, su) is not Action.HIT
