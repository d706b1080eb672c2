"""The guard that cannot flake: the work of a seeded round, counted, against the recorded budget.

:mod:`tools.bench_work` counts the calls and the lines a fixed seeded round runs (Blackjack at
one seat and at seven with Lucky Aces, Ultimate Texas Hold 'Em at one seat and at six, and one
six-deck shuffle); ``tests/bench_budget.json`` holds the counts when the budget was set and the
budget, 25% above them. A change that doubles the work of a round fails here on any machine,
however busy: nothing is timed. ``etg bench work --record`` sets a new budget.
"""

from __future__ import annotations

from typing import Any

import pytest

from game_server.games.blackjack.rules.round import BlackjackRound
from game_server.games.uth.rules.game import UthRound
from tools import bench_work

BUDGET = bench_work.load_budget()
CASES = sorted(bench_work.cases())


@pytest.fixture(scope="module")
def counts() -> dict[str, dict[str, int]]:
    return bench_work.measure()


def test_budget_covers_every_case() -> None:
    assert sorted(BUDGET["cases"]) == CASES
    for case in BUDGET["cases"].values():
        for what in bench_work.MEASURES:
            assert case["budget"][what] >= case["recorded"][what] > 0


@pytest.mark.parametrize("name", CASES)
def test_round_work_within_budget(name: str, counts: dict[str, dict[str, int]]) -> None:
    """Each case's calls and lines per round are within its budget."""
    over = bench_work.over_budget({name: counts[name]}, BUDGET)
    assert over == [], (
        f"{'; '.join(over)} (Python {bench_work.python_version()}; the budget was recorded "
        f"on {BUDGET['python']}). If the extra work is meant, run 'etg bench work --record' "
        "and say why in the commit."
    )


@pytest.mark.parametrize("name", CASES)
def test_budget_is_tight_enough_to_catch_a_doubling(
    name: str, counts: dict[str, dict[str, int]]
) -> None:
    """A budget left far above the work (after a saving) would let a doubling through: twice
    today's count must be over the budget."""
    limits = BUDGET["cases"][name]["budget"]
    for what in bench_work.MEASURES:
        assert 2 * counts[name][what] > limits[what], (
            f"{name}: {counts[name][what]:,} {what} per round, and its budget of "
            f"{limits[what]:,} would let twice that through: run 'etg bench work --record'"
        )


def test_counts_are_deterministic() -> None:
    """The same seeded rounds count the same twice (the guard never flakes)."""
    names = ["blackjack_1_seat", "uth_1_seat"]
    assert bench_work.measure(names) == bench_work.measure(names)


def test_guard_trips_on_an_extra_loop_without_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loop that calls nothing (here over the dealer's cards, 40 times a deal) is seen by
    the line count."""
    deal = BlackjackRound.deal

    def slower_deal(self: BlackjackRound, source: Any) -> list[Any]:
        out = deal(self, source)
        total = 0
        for _ in range(40):
            for card in self.dealer:
                total += card.rank
        assert total > 0
        return out

    monkeypatch.setattr(BlackjackRound, "deal", slower_deal)
    over = bench_work.check(["blackjack_1_seat"])
    assert any("lines per round" in sentence for sentence in over), over


def test_guard_trips_on_legal_actions_asked_at_every_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The regression the guard exists for: the engine working out every legal action at
    each step although the driver asks only for the one it plays."""
    advance = BlackjackRound._advance

    def asking(self: BlackjackRound) -> None:
        advance(self)
        self.legal_actions()

    monkeypatch.setattr(BlackjackRound, "_advance", asking)
    over = bench_work.check(["blackjack_7_seats"])
    assert any("calls per round" in sentence for sentence in over), over


def test_guard_trips_on_uth(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ultimate Texas Hold 'Em is guarded as well: an extra loop over every seat's cards at
    each decision fails."""
    decide = UthRound.decide

    def looping(self: UthRound, *args: Any, **kwargs: Any) -> list[Any]:
        out = decide(self, *args, **kwargs)
        for seat in self.seats.values():
            for _ in range(30):
                sorted(seat.cards)
        return out

    monkeypatch.setattr(UthRound, "decide", looping)
    over = bench_work.check(["uth_6_seats"])
    assert any("uth_6_seats" in sentence for sentence in over), over
