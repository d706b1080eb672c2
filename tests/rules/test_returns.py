"""What each offered wager returns (game_server.rules.returns): the exact figures against the
counts they come from, the meter terms, the awards beside a paytable, and the stored par
sheet figures of the wagers that depend on play, measured again."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import pytest

from game_server.config import example_config_path, example_path, load_config, parse_config
from game_server.games.blackjack.par import measure_par_figure
from game_server.games.blackjack.rules.returns import insurance_return, offered_returns
from game_server.games.uth.config import rules_of
from game_server.games.uth.rules.math import five_card_math
from game_server.games.uth.rules.returns import uth_returns
from game_server.games.uth.rules.rules import BonusOn
from game_server.rules.returns import (
    PAR_FIGURES,
    MustHitByTerms,
    ParFigure,
    WagerReturn,
    par_figure,
)
from game_server.rules.wagers import REGISTRY
from game_server.rules.wagers.math import wager_math

UTH = load_config(example_path("uth.toml"))
ALL = load_config(example_path("fully-automated-all-side-wagers.toml"))


def by_name(returns: list[WagerReturn]) -> dict[str, WagerReturn]:
    return {r.wager: r for r in returns}


def test_insurance_is_three_times_the_chance_of_a_ten_in_the_hole() -> None:
    """633a.8, 633b.5(v)(2): 2 to 1 on a hole card that is one of the 16D ten-value cards
    among the 52D - 1 cards left: six decks return 3 x 96 / 311 = 92.605%."""
    ret = insurance_return(6)
    assert ret.long_run == pytest.approx(float(Fraction(3 * 96, 311)), abs=1e-15)
    assert ret.hit_frequency == pytest.approx(96 / 311)


def test_a_cards_only_wager_returns_one_minus_its_exact_house_edge() -> None:
    """Lucky Aces has no meter and no award beside its paytable: its return is one minus the
    house edge etg math counts, and its lines' contributions add up to it."""
    ret = by_name(offered_returns(ALL.rules))["lucky_aces"]
    edge = wager_math(REGISTRY["lucky_aces"], "Paytable A", 6).house_edge
    assert ret.long_run == pytest.approx(1 - float(edge), abs=1e-12)
    total = sum(line.returns for line in ret.lines)
    assert total == pytest.approx(ret.long_run, abs=1e-12)


def test_a_meter_wager_long_run_counts_reseeds_after_full_awards_only() -> None:
    """Blazing 7's Paytable A: "Three 7's Same Suit" pays 100% and "Same Color" 10% of the
    meter; the return rises with the meter by the lines' chances times their shares and the
    break-even meter returns 100%. The long run is the fixed lines, the meter's 5% rate and
    the reset amount brought back after each 100% award, plus the top-ups after a 10% award
    that left the meter below its reset amount: never 10% of the reset amount for every 10%
    award (paid from contributions already counted)."""
    ret = by_name(offered_returns(ALL.rules))["blazing_7s"]
    (meter,) = ret.meters
    lines = {line.line: line.probability for line in ret.lines}
    full, partial = lines["Three 7's Same Suit"], lines["Three 7's Same Color"]
    assert full is not None and partial is not None
    slope = (full + 0.1 * partial) / 100
    assert meter.slope == pytest.approx(slope)
    reset = meter.spec.reseed
    assert ret.at_reset == pytest.approx(ret.fixed + slope * reset)
    at_break_even = ret.at_reset + slope * (meter.break_even - reset)
    assert at_break_even == pytest.approx(1.0, abs=1e-6)
    dynamics = meter.dynamics
    assert dynamics is not None
    assert dynamics.reseeds == pytest.approx(full * reset / 100)
    # A top-up is at most 10% of the reset amount, after a 10% award.
    assert 0 < dynamics.top_ups < partial * 0.1 * reset / 100
    assert ret.long_run == pytest.approx(
        ret.fixed + 0.05 + dynamics.reseeds + dynamics.top_ups, abs=1e-12
    )
    old_count = ret.at_reset + 0.05  # the overstatement the guard used to make
    assert ret.long_run < old_count - 0.5 * partial * 0.1 * reset / 100


def test_a_must_hit_by_mystery_meter_returns_its_rate_times_h_plus_r_over_h_minus_r() -> None:
    """633b.14: a Must-Hit-By meter pays all of itself at a trigger drawn uniformly between
    its reset amount R and its must-hit-by amount H; configuration A on a $1 wager (R $100, H
    $200, 2% of each wager) gives back 2% x 300 / 100 = 6% of each qualifying wager in the
    long run, added to Blazing 7's."""
    text = (example_path("fully-automated-all-side-wagers.toml")).read_text() + (
        '\n[must_hit_by]\nconfiguration = "A"\nminimum_wager = "1.00"\n'
        'qualifying = ["blazing_7s"]\n'
    )
    config = parse_config(text)
    plain = by_name(offered_returns(ALL.rules))["blazing_7s"]
    assert config.must_hit_by is not None
    terms = MustHitByTerms(config.must_hit_by.spec(), config.must_hit_by.qualifying)
    mystery = by_name(offered_returns(config.rules, terms))["blazing_7s"]
    (added,) = [m for m in mystery.meters if m.meter == "Must-Hit-By Mystery Bonus"]
    assert added.long_run == pytest.approx(0.06) and added.break_even is None
    assert mystery.long_run == pytest.approx(plain.long_run + 0.06)
    assert by_name(offered_returns(config.rules, terms))["lucky_aces"].meters == ()


def test_the_envy_bonus_counts_every_other_seat_of_a_full_table() -> None:
    """633b.10(h)(5), (k): a $1 Blackjack Match wager gets $600 (or $200) for each other seat
    holding Ace-King (or other) Matching Suited Blackjacks with the dealer: six other seats
    at the seven-seat table, each with the wager's own chance of that line."""
    ret = by_name(offered_returns(ALL.rules))["blackjack_match"]
    lines = {line.line: line for line in ret.lines}
    ak = lines["Ace-King Matching Suited Blackjack"].probability
    envy = lines["Envy Bonus: Ace-King Matching Suited Blackjack at another seat"]
    assert envy.probability == pytest.approx(6 * ak)
    assert envy.returns == pytest.approx(6 * ak * 600)


def test_the_buster_cash_bonus_is_counted_at_the_least_wager_that_earns_it() -> None:
    """633b.13(i): the B1 cash bonus ($1,000 or $8,000) needs a wager of $5: the figures are
    per unit of a $5 wager, and a dealer who hits soft 17 busts more often."""
    ret = by_name(offered_returns(ALL.rules))["buster"]
    assert ret.stake == 500
    plain = wager_math(REGISTRY["buster"], "Paytable A", 6)
    assert ret.long_run > 1 - float(plain.house_edge)
    h17 = dataclasses.replace(ALL.rules, dealer_hits_soft_17=True)
    assert by_name(offered_returns(h17))["buster"].long_run > ret.long_run


def test_653a_12_e_3_the_magic_card_adds_19_units_on_a_winning_five_card_hand() -> None:
    """653a.12(e)(1), (e)(3): the Five Card Hand Bonus returns its (e)(1) lines, and the
    Magic Card (a drawn card among the hand's two, 2 in 52) adds 19 units on a winning hand
    (20 for 1, the stake counted once); on every hand it adds 20 units on a losing one."""
    uth = rules_of(UTH)
    assert uth is not None
    ret = by_name(uth_returns(uth))["five_card_player"]
    math = five_card_math()
    winning = sum(line.probability for line in math.lines)
    lines = {line.line: line for line in ret.lines}
    magic = lines["Magic Card with a winning hand"]
    assert magic.returns == pytest.approx(float(winning * Fraction(2, 52) * 19))
    every = dataclasses.replace(uth, bonus_on=BonusOn.EVERY_HAND)
    ret_every = by_name(uth_returns(every))["five_card_player"]
    added = ret_every.long_run - ret.long_run
    assert added == pytest.approx(float((1 - winning) * Fraction(2, 52) * 20))


def test_every_reading_of_a_wager_that_depends_on_play_has_a_par_figure() -> None:
    """AxMan (each wild-suit option, six and eight decks) and the Buzzer Beater read on the
    final hand (six and eight decks) have a stored figure, so the guard can check them."""
    for decks in (6, 8):
        for suit in ("any", "diamonds"):
            assert par_figure("axman", decks, {"wild_suit": suit}) is not None
        assert par_figure("buzzer_beater", decks, {"basis": "final-hand"}) is not None
    assert len(PAR_FIGURES) == 6


@pytest.mark.slow
@pytest.mark.parametrize("figure", PAR_FIGURES, ids=lambda f: f"{f.wager}-{f.decks}-{f.options}")
def test_the_stored_par_figures_hold_when_played_again(figure: ParFigure) -> None:
    """Each stored figure, played again through the engine from another seed (20,000
    rounds), lies within the new run's 99.9% interval widened by the figure's own."""
    base = load_config(
        example_path(
            "hybrid-three-position.toml"
            if figure.wager == "buzzer_beater"
            else example_config_path().name
        )
    )
    again = measure_par_figure(
        base, figure.wager, figure.decks, figure.options, 20_000, 99, figure.reading
    )
    half = (again.high - again.low) / 2 * 3.29 / 1.96 + (figure.high - figure.low) / 2
    assert abs(again.rtp - figure.rtp) < half
