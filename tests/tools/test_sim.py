"""The table driver and the simulator: determinism, reshuffles, money, statistics."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import pytest

from game_server.config import example_config_path, example_path, load_config
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DOUBLE,
    CardDealt,
    Decision,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import NO_INSURANCE
from game_server.games.blackjack.rules.rules import BlackjackRules, DoubleOn
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.blackjack.sim import TableDriver, table_wagers, tally
from game_server.rng.shoe import StackedShoe
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import SideWagerOffer
from game_server.rules.wagers.lucky_aces import LUCKY_ACES, PAYTABLES
from game_server.rules.wagers.math import wager_math
from game_server.sim import SimResult, SimSpec, WagerStats, format_report, run_sim, seeded_shoes

LA_A = SideWagerOffer(LUCKY_ACES, PAYTABLES["Paytable A"], WagerLimits(100, 10_000))
RULES = BlackjackRules(main_limits=WagerLimits(500, 100_000, 100), side_wagers=(LA_A,))


def spec(**changes: Any) -> SimSpec:
    base: dict[str, Any] = {
        "rules": RULES,
        "every_round": False,
        "cut_card": 234,
        "seats": 3,
        "seed": 7,
        "rounds": 2_000,
        "chunk_rounds": 500,
    }
    base.update(changes)
    return SimSpec(**base)


def stacked(cards: str) -> Any:
    """A shoe factory that deals ``cards`` from shoe 0 and refuses to make a second shoe."""

    def make(number: int) -> StackedShoe:
        assert number == 0, "the scenario needs one shoe"
        return StackedShoe(cards)

    return make


# ----------------------------------------------------------------------------- the driver


def test_places_the_minimum_main_wager_and_every_side_wager_on_each_seat() -> None:
    """Each seat bets the table minimum on Blackjack and each offered side wager's minimum."""
    driver = TableDriver(RULES, seeded_shoes(6, 234, 1, "t"), 3)
    placed = [e for e in driver.play_round() if type(e) is WagerPlaced and e.hand == 0]
    initial = [(e.seat, e.wager, e.amount) for e in placed if e.wager in (BLACKJACK, "lucky_aces")]
    assert initial[:6] == [
        (1, BLACKJACK, 500),
        (1, "lucky_aces", 100),
        (2, BLACKJACK, 500),
        (2, "lucky_aces", 100),
        (3, BLACKJACK, 500),
        (3, "lucky_aces", 100),
    ]
    assert table_wagers(RULES, 2_500) == {BLACKJACK: 2_500, "lucky_aces": 100}


def test_a_hard_11_against_a_6_is_doubled_and_both_wagers_count_as_one_placement() -> None:
    """Basic strategy doubles 6+5 against a dealer 6; the double counts under "blackjack"."""
    # Deal order: seat 1, up card, seat 1, hole card, then the cards of play.
    driver = TableDriver(
        dataclasses.replace(RULES, side_wagers=()), stacked("6S 6H 5D TC TS TD"), 1
    )
    events = driver.play_round()
    decisions = [e for e in events if type(e) is Decision]
    assert [(d.action, d.auto) for d in decisions] == [("double", False)]
    result = SimResult()
    tally(events, result)
    stats = result.wagers[BLACKJACK]
    assert (stats.placed, stats.wagered, stats.paid) == (1, 1_000, 2_000)
    assert dict(stats.lines) == {"Win 1 to 1": 1}
    assert DOUBLE not in result.wagers


def test_insurance_is_declined_by_the_player_not_the_countdown() -> None:
    """Basic strategy never insures: each seat declines, as a player decision (auto False)."""
    driver = TableDriver(RULES, stacked("TS 9H AD 8C 7S 7H 5D 5C 5S"), 2)
    events = driver.play_round()
    declines = [e for e in events if type(e) is Decision and e.action == NO_INSURANCE]
    assert [(d.seat, d.auto) for d in declines] == [(1, False), (2, False)]
    assert type(events[-1]) is RoundCompleted


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"dealer_hits_soft_17": True},
        {"late_surrender": True},
        {"late_surrender": True, "dealer_hits_soft_17": True},
        {"double_after_split": False},
        {"double_on": DoubleOn.TEN_TO_ELEVEN},
        {"double_on": DoubleOn.NINE_TO_ELEVEN, "late_surrender": True},
    ],
)
def test_asking_the_engine_lazily_gives_the_decision_of_all_flags_asked_first(
    changes: dict[str, Any],
) -> None:
    """The driver's lazy use of can_double/can_split/can_surrender is exact: deciding with a
    flag assumed True and switching it off only when its own action is refused gives, for
    every hand, upcard and legal-flag combination, what deciding with the true flags gives."""
    strategy = BasicStrategy(BlackjackRules(**changes))
    cases = [(t, False, 0) for t in range(4, 21)] + [(t, True, 0) for t in range(12, 21)]
    cases += [(12 if v == 1 else 2 * v, v == 1, v) for v in range(1, 11)]
    for (total, soft, pair), up in itertools.product(cases, range(1, 11)):
        for legal in itertools.product((False, True), repeat=3):
            eager = strategy.decide(total, soft, pair, up, *legal)
            flags = [True, True, True]
            order = {Action.DOUBLE: 0, Action.SPLIT: 1, Action.SURRENDER: 2}
            while True:
                lazy = strategy.decide(total, soft, pair, up, *flags)
                i = order.get(lazy)
                if i is None or legal[i]:
                    break
                flags[i] = False
            assert lazy == eager, (total, soft, pair, up, legal)


def test_every_round_shuffle_deals_each_round_from_a_new_shoe() -> None:
    """With "every-round" the shoe number goes up by one every round."""
    driver = TableDriver(RULES, seeded_shoes(6, None, 1, "t"), 2, every_round=True)
    numbers = []
    for _ in range(4):
        driver.play_round()
        numbers.append(driver.shoe_number)
    assert numbers == [0, 1, 2, 3]


def test_cut_card_shoe_is_replaced_only_at_the_start_of_a_round_after_the_cut_card() -> None:
    """With a cut card the same shoe deals until it needs a shuffle at the start of a round."""
    driver = TableDriver(RULES, seeded_shoes(6, 234, 1, "t"), 7)
    seen: list[tuple[int, int, int]] = []
    for _ in range(40):
        before = driver.shoe
        needed = before is not None and before.needs_shuffle
        events = driver.play_round()
        first = next(e for e in events if type(e) is CardDealt)
        seen.append((driver.shoe_number, first.position, int(needed)))
    for (number, position, needed), (prev_number, _, _) in zip(seen[1:], seen, strict=False):
        if needed:
            assert (number, position) == (prev_number + 1, 0)
        else:
            assert number == prev_number and position > 0
    assert seen[-1][0] >= 2, "40 rounds at 7 seats pass the cut card of a 6-deck shoe"


# ----------------------------------------------------------------------------- the simulator


def test_a_seed_gives_the_same_result_whatever_the_number_of_workers() -> None:
    """2,000 rounds in chunks of 500: one worker and two workers merge to the same result."""
    one = run_sim(spec(), workers=1).to_json()
    two = run_sim(spec(), workers=2).to_json()
    assert one == two
    assert one["rounds"] == 2_000
    assert one != run_sim(spec(seed=8), workers=1).to_json()


def test_chunks_split_the_rounds_in_order() -> None:
    """2,100 rounds in chunks of 500 are four full chunks and a last one of 100."""
    assert spec(rounds=2_100).chunks() == [(0, 500), (1, 500), (2, 500), (3, 500), (4, 100)]


def test_money_is_conserved_and_the_totals_equal_the_events() -> None:
    """Every placed wager is settled exactly once, and the simulator's totals are the events'
    sums: paid + house result == wagered, for the whole run."""
    s = spec(rounds=1_500, chunk_rounds=1_500, seats=7)
    driver = s.driver(0)
    placed_total = settled_stakes = paid_total = 0
    for _ in range(s.rounds):
        events = driver.play_round()
        placed = [(e.seat, e.hand, e.wager) for e in events if type(e) is WagerPlaced]
        settled = [(e.seat, e.hand, e.wager) for e in events if type(e) is WagerSettled]
        assert sorted(placed) == sorted(settled)
        placed_total += sum(e.amount for e in events if type(e) is WagerPlaced)
        settled_stakes += sum(e.stake for e in events if type(e) is WagerSettled)
        paid_total += sum(e.paid for e in events if type(e) is WagerSettled)
    house = settled_stakes - paid_total
    assert placed_total == settled_stakes
    assert paid_total + house == placed_total

    result = run_sim(s)
    assert result.wagered == placed_total
    assert result.paid == paid_total
    assert result.house_result == house
    assert sum(w.paid + w.house_result for w in result.wagers.values()) == placed_total
    assert result.wagers[BLACKJACK].placed == result.wagers["lucky_aces"].placed == 7 * 1_500


def test_the_rtp_interval_contains_the_rtp_and_shrinks_with_more_rounds() -> None:
    """The 95% interval is centred on the RTP and narrower for four times the rounds."""
    small = run_sim(spec(rounds=500, chunk_rounds=500)).wagers[BLACKJACK]
    large = run_sim(spec(rounds=2_000, chunk_rounds=500)).wagers[BLACKJACK]
    for stats in (small, large):
        ci = stats.ci95()
        assert ci is not None
        assert ci[0] < stats.rtp < ci[1]
        assert ci[1] - stats.rtp == pytest.approx(stats.rtp - ci[0])
    small_ci, large_ci = small.ci95(), large.ci95()
    assert small_ci is not None and large_ci is not None
    assert large_ci[1] - large_ci[0] < small_ci[1] - small_ci[0]


def test_seats_of_one_round_count_as_one_observation() -> None:
    """Seats that share a round are not independent: two seats that always win or lose
    together give the interval of one seat wagering twice as much, not a narrower one (the
    interval is taken over per-round totals)."""
    twins, single = WagerStats(), WagerStats()
    for k in range(40):
        paid = 200 if k % 3 else 0
        twins.add_round([(100, 100, paid), (100, 100, paid)])
        single.add_round([(200, 200, 2 * paid)])
    assert twins.placed == 80 and twins.rounds == single.rounds == 40
    assert twins.ci95() == pytest.approx(single.ci95())
    assert twins.house_edge_ci95() == pytest.approx(single.house_edge_ci95())


def test_house_edge_per_initial_wager_and_return_per_amount_wagered() -> None:
    """A $5 Blackjack wager doubled and won ($10 wagered, $20 back) and a $5 wager lost: the
    house result is -$5 on $10 of initial wagers (house edge -50% per initial wager) and the
    return per amount wagered is $20 / $15; the element of risk is its complement."""
    stats = WagerStats()
    stats.add_round([(500, 1_000, 2_000)])
    stats.add_round([(500, 500, 0)])
    assert (stats.initial, stats.wagered, stats.paid) == (1_000, 1_500, 2_000)
    assert stats.house_edge == -0.5
    assert stats.rtp == pytest.approx(2_000 / 1_500)
    assert stats.element_of_risk == pytest.approx(1 - stats.rtp)
    assert stats.hit_frequency == 0.5 and stats.average_wager == 1.5


def test_the_clustered_interval_covers_the_exact_lucky_aces_return_95_times_in_100() -> None:
    """Coverage: 200 seeded runs of 200 rounds at seven seats (one deck, a new deck every
    round) against the exact Lucky Aces Paytable A return of a one-deck shoe: the 95%
    interval holds it in about 95% of the runs (188 of 200). The seats share the dealer's two
    cards, which decide most Lucky Aces results; an interval that took each seat's wager as
    an independent draw held it in 136 of the 200 runs. (One deck: with six decks four aces
    pay 500 to 1 so rarely, 1 in 30,000 wagers, that a run of this size almost never holds
    one, and no interval of a few thousand wagers can be right about that tail.)"""
    rules = dataclasses.replace(RULES, decks=1)
    exact = 1 - float(wager_math(LUCKY_ACES, "Paytable A", 1).house_edge)
    inside = 0
    for seed in range(200):
        run = SimSpec(rules, True, None, 7, seed, 200, chunk_rounds=200)
        ci = run_sim(run).wagers["lucky_aces"].ci95()
        assert ci is not None
        inside += ci[0] <= exact <= ci[1]
    assert 180 <= inside <= 198  # Binomial(200, 0.95): 190 +- 3.1


def test_the_interval_of_a_wager_that_always_returns_the_same_is_a_point() -> None:
    """No variance in the per-placement result gives a zero-width interval; one placement none."""
    stats = WagerStats()
    for _ in range(10):
        stats.add(500, 1_000)
    assert stats.ci95() == pytest.approx((2.0, 2.0))
    single = WagerStats()
    single.add(500, 0)
    assert single.ci95() is None


def test_the_report_shows_every_wager_and_its_lines() -> None:
    """The human report has a row per wager with money formatted, and the line frequencies."""
    text = format_report(run_sim(spec(rounds=500, chunk_rounds=500)), "title")
    assert text.splitlines()[0] == "title"
    assert "blackjack" in text and "lucky_aces" in text and "No win" in text
    assert "$" in text and "%" in text


def test_the_example_config_simulates() -> None:
    """The example Rules Submission drives the simulator with its own rules and cut card."""
    config = load_config(example_config_path())
    result = run_sim(SimSpec(config.rules, False, config.cut_card, 7, 1, 300, chunk_rounds=300))
    assert result.rounds == 300
    assert set(result.wagers) >= {BLACKJACK, "lucky_aces"}


def test_every_side_wager_of_the_all_wagers_example_is_placed_and_tallied() -> None:
    """The example table offering every wager of 633b.6-633b.13 simulates: each wager is
    placed on every seat at its table amount (the one fixed amount for $5 Super 4, $1
    Blackjack Match and Blazing 7's), and a bonus award counts with the wager it belongs to."""
    path = example_path("fully-automated-all-side-wagers.toml")
    config = load_config(path)
    wagers = table_wagers(config.rules)
    assert wagers["super_4"] == 500 and wagers["blackjack_match"] == 100
    assert set(wagers) == {"blackjack", *config.rules.offers}
    result = SimResult()
    events = [
        WagerPlaced(1, 0, "blackjack_match", 100),
        WagerSettled(1, 0, "blackjack_match", 100, 0, "lost", "No win"),
        WagerSettled(1, 0, "blackjack_match_bonus", 0, 20_000, "won", "Envy Bonus"),
    ]
    tally(events, result)
    stats = result.wagers["blackjack_match"]
    assert (stats.wagered, stats.paid) == (100, 20_000)
    assert "blackjack_match_bonus" not in result.wagers


@pytest.mark.parametrize(
    ("name", "side"),
    [
        ("hybrid-three-position.toml", {"buzzer_beater"}),
        ("hybrid-no-hole-card.toml", {"royal_match_21", "bet_the_set", "kings_bounty"}),
    ],
)
def test_the_hybrid_tables_simulate_with_every_wager_settled(name: str, side: set[str]) -> None:
    """633b.5: both hybrid tables play in etg sim (several players on the same cards); every
    wager placed is settled for its full stake, whatever the players chose."""
    config = load_config(example_path(name))
    spec = SimSpec(
        rules=config.rules,
        every_round=False,
        cut_card=config.cut_card,
        seats=5,
        seed=3,
        rounds=300,
        table_type=config.table_type,
    )
    result = run_sim(spec)
    assert result.rounds == 300
    assert set(result.wagers) == {"blackjack", *side}
    for stats in result.wagers.values():
        assert stats.wagered > 0 and stats.paid >= 0
    again = run_sim(spec)
    assert again.to_json() == result.to_json()  # a seed gives the same result
