"""Ultimate Texas Hold 'Em math (game_server.games.uth.rules.math, ``etg math uth_*``): the exact
Trips returns of 653a.12(c) from the counts of all seven-card hands, the fixed lines of
653a.12(d)(1) and (e)(1), and the seeded Blind simulation of 653a.12(b)."""

from __future__ import annotations

import json
from fractions import Fraction
from math import comb

import pytest
from click.testing import CliRunner

from game_server.games.uth.rules.math import (
    SplitMix64,
    blind_simulation,
    five_card_math,
    progressive_math,
    trips_math,
)
from game_server.rules.wagers.math import MathError
from tools.cli import main

# The standard seven-card counts, highest first: royal .. three of a kind.
PAYING = (4_324, 37_260, 224_848, 3_473_184, 4_047_644, 6_180_020, 6_461_620)
TRIPS_PAYS = {
    "Paytable A": (50, 40, 30, 9, 7, 4, 3),
    "Paytable B": (50, 40, 30, 8, 6, 5, 3),
    "Paytable C": (50, 40, 30, 8, 7, 4, 3),
    "Paytable D": (50, 40, 20, 7, 6, 5, 3),
}


@pytest.mark.parametrize("paytable", sorted(TRIPS_PAYS))
def test_653a_12_c_trips_house_edge_is_exact(paytable: str) -> None:
    """653a.12(c): the Trips house edge equals the one computed by hand from the standard
    seven-card counts and the paytable's pays."""
    total = comb(52, 7)
    pays = TRIPS_PAYS[paytable]
    expected = Fraction(
        sum(n * p for n, p in zip(PAYING, pays, strict=True)) - (total - sum(PAYING)), total
    )
    result = trips_math(paytable)
    assert result.house_edge == -expected
    assert result.total == total and result.losing == total - sum(PAYING)
    assert [line.combinations for line in result.lines] == list(PAYING)


def test_653a_12_c_trips_edges_in_percent() -> None:
    """653a.12(c): Paytable A 0.90%, B 1.90%, C 3.50%, D 6.18% (to 0.01%)."""
    edges = {p: round(float(trips_math(p).house_edge) * 100, 2) for p in sorted(TRIPS_PAYS)}
    assert edges == {"Paytable A": 0.9, "Paytable B": 1.9, "Paytable C": 3.5, "Paytable D": 6.18}


def test_unknown_paytables_are_refused() -> None:
    """A paytable 653a.12 does not name is refused."""
    with pytest.raises(MathError, match="not a Trips paytable"):
        trips_math("Paytable E")
    with pytest.raises(MathError):
        progressive_math("Paytable B")
    with pytest.raises(MathError):
        five_card_math("Paytable")
    with pytest.raises(MathError):
        blind_simulation(0)


def test_653a_12_d_1_and_e_1_fixed_lines_count_five_card_hands() -> None:
    """653a.12(d)(1)-(2), (e)(1): the two cards and the flop are a five-card hand; the meter
    lines are reported and left out of the return."""
    prog = progressive_math()
    five = five_card_math()
    assert prog.total == five.total == comb(52, 5)
    assert prog.meter_lines == five.meter_lines == ("Royal flush", "Straight flush")
    assert [line.combinations for line in prog.lines] == [4, 36, 624, 3_744, 5_108, 10_200, 54_912]
    # 300, 50, 40, 30 and 9 for 1 win 299, 49, 39, 29 and 8 units.
    wins = 624 * 299 + 3_744 * 49 + 5_108 * 39 + 10_200 * 29 + 54_912 * 8
    lose = comb(52, 5) - sum(line.combinations for line in prog.lines)
    assert prog.house_edge == -Fraction(wins - lose, comb(52, 5))


def test_653a_12_b_blind_simulation_is_seeded_and_paytable_a_pays_more() -> None:
    """653a.12(b): the same seed gives the same figures; Paytable A (straights 1 to 1) has a
    better Blind than Paytable B (straights push) on the same deals, by the share of
    winning straights; the whole hand costs the player a few percent of the Ante."""
    first = blind_simulation(20_000, seed=5)
    assert first == blind_simulation(20_000, seed=5)
    assert first != blind_simulation(20_000, seed=6)
    a, b = first.blind_result["Paytable A"], first.blind_result["Paytable B"]
    assert 0.02 < a - b < 0.06
    assert first.hand_result["Paytable A"] - first.hand_result["Paytable B"] == pytest.approx(a - b)
    assert -0.08 < first.hand_result["Paytable A"] < 0.03
    assert 0.1 < first.folds < 0.3 and 3.5 < first.average_wager < 5.0


def test_splitmix64_known_values() -> None:
    """SplitMix64 from seed 0 gives the reference outputs."""
    rng = SplitMix64(0)
    assert [rng.next64() for _ in range(2)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4]


def test_etg_math_uth_trips_json_and_text() -> None:
    """``etg math uth-trips --paytable "Paytable A" --json`` prints the exact figures."""
    runner = CliRunner()
    result = runner.invoke(main, ["math", "uth-trips", "--paytable", "Paytable A", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["wager"] == "uth_trips" and data["total"] == comb(52, 7)
    assert abs(data["house_edge"] - 0.0090183) < 1e-6
    text = runner.invoke(main, ["math", "uth_trips", "--all"])
    assert text.exit_code == 0 and text.stdout.count("house edge") == 4


def test_etg_math_uth_blind_and_refusals() -> None:
    """``etg math uth_blind`` simulates; bad names, paytables and decks exit with status 2."""
    runner = CliRunner()
    sim = runner.invoke(
        main, ["math", "uth_blind", "--paytable", "Paytable B", "--hands", "2000", "--json"]
    )
    assert sim.exit_code == 0, sim.output
    assert json.loads(sim.stdout)["hands"] == 2000
    text = runner.invoke(main, ["math", "uth_blind", "--all", "--hands", "2000"])
    assert text.exit_code == 0 and "Paytable A" in text.stdout and "Paytable B" in text.stdout
    for args in (
        ["math", "uth_trips", "--paytable", "Paytable Z"],
        ["math", "uth_blind", "--paytable", "Paytable C", "--hands", "10"],
        ["math", "uth_nothing", "--all"],
        ["math", "uth_trips", "--paytable", "Paytable A", "--decks", "6"],
        ["math", "uth_trips"],
    ):
        assert runner.invoke(main, args).exit_code == 2, args
