"""The simulator counts what the meters pay (issue 36): the twenty-one tables' progressive
awards and every game's Must-Hit-By Mystery Bonus, each with the wager that won it, and every
cent an award paid is a cent the simulated meters paid out."""

from __future__ import annotations

from typing import Any

from game_server.config import example_path, load_config, parse_config
from game_server.games.blackjack.meters import SimMeters
from game_server.games.blackjack.rules.events import ProgressiveWon, WagerSettled
from game_server.sim import SimResult, run_chunk
from tools.sim import sim_spec

ROUNDS = 2_000
#: Enough rounds for a Must-Hit-By meter ($100 to $200 at 2% of $1 wagers) to hit.
MYSTERY_ROUNDS = 1_000


def _paid(events: list[Any], wager: str) -> int:
    return sum(
        ev.paid
        for ev in events
        if type(ev) is WagerSettled and ev.wager.removesuffix("_bonus") == wager
    )


def test_match_the_dealer_awards_are_the_meters_payouts_on_the_same_cards() -> None:
    """635b.1: the same seed deals the same cards with and without the meters; the wager's
    payouts differ by exactly the awards the meters paid, one per progressive win."""
    config = load_config(example_path("spanish21.toml"))
    spec = sim_spec(config, seats=7, seed=3, rounds=ROUNDS)
    counted, plain = spec.driver(0), spec.driver(0)
    plain.meters = None
    meters = counted.meters
    assert isinstance(meters, SimMeters)
    wins = awards = extra = 0
    for _ in range(ROUNDS):
        with_meters, without = counted.play_round(), plain.play_round()
        wins += sum(1 for ev in with_meters if type(ev) is ProgressiveWon)
        bonus = [ev for ev in with_meters if type(ev) is WagerSettled and ev.stake == 0]
        awards += len(bonus)
        more = _paid(with_meters, "match_the_dealer") - _paid(without, "match_the_dealer")
        assert more == sum(ev.paid for ev in bonus)
        extra += more
    bank = meters.meters.bank
    paid_out = sum(bank.meter(m).paid for m in bank.ids())
    assert wins > 0 and awards == wins
    assert extra == paid_out > 0


def test_the_sim_report_counts_meter_awards_with_their_wager() -> None:
    spec = sim_spec(load_config(example_path("spanish21.toml")), seats=7, seed=3, rounds=ROUNDS)
    result = run_chunk(spec, 0, ROUNDS)
    lines = result.wagers["match_the_dealer"].lines
    meter_lines = {line: n for line, n in lines.items() if line.endswith("(meter)")}
    assert meter_lines
    for line, n in meter_lines.items():
        assert lines[line.removesuffix(" (meter)")] == n


def _mystery_lines(result: SimResult, wager: str) -> int:
    return sum(n for line, n in result.wagers[wager].lines.items() if "Must-Hit-By" in line)


def test_blackjack_must_hit_by_awards_are_counted_with_blazing_7s() -> None:
    """633b.14: configuration A ($100 to $200, 2% of each $1 Blazing 7's wager) hits within a
    few thousand qualifying wagers; each award is counted with Blazing 7's."""
    text = example_path("fully-automated-all-side-wagers.toml").read_text() + (
        '\n[must_hit_by]\nconfiguration = "A"\nminimum_wager = "1.00"\n'
        'qualifying = ["blazing_7s"]\n'
    )
    config = parse_config(text)
    spec = sim_spec(config, seats=7, seed=5, rounds=MYSTERY_ROUNDS)
    result = run_chunk(spec, 0, MYSTERY_ROUNDS)
    assert _mystery_lines(result, "blazing_7s") > 0


def test_caribbean_and_four_card_must_hit_by_awards_are_counted() -> None:
    """639b.1, 641b.1: the example tables offer the Must-Hit-By Mystery Bonus; the simulation
    feeds it from the qualifying wagers and counts each award with the one that won it."""
    caribbean = load_config(example_path("caribbean.toml"))
    spec = sim_spec(caribbean, seats=7, seed=5, rounds=MYSTERY_ROUNDS)
    result = run_chunk(spec, 0, MYSTERY_ROUNDS)
    assert _mystery_lines(result, "progressive") > 0
    fourcard = load_config(example_path("fourcard.toml"))
    spec = sim_spec(fourcard, seats=6, seed=5, rounds=MYSTERY_ROUNDS)
    result = run_chunk(spec, 0, MYSTERY_ROUNDS)
    hits = sum(_mystery_lines(result, w) for w in result.wagers if w.endswith("progressive"))
    assert hits > 0
