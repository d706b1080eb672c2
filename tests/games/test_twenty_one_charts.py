"""The twenty-one combinatorial analysis (game_server/games/blackjack/rules/analysis.py): its
dealer outcomes against a brute-force enumeration, its values against the Wizard of Odds'
published per-hand values, its charts against the published charts, and the generated charts
against a fresh derivation."""

from __future__ import annotations

import ast

import pytest

from game_server.games.blackjack.gen_charts import TARGET, shipped_models
from game_server.games.blackjack.rules.analysis import (
    _UNIT,
    Model,
    _Table,
    dealer_outcomes,
)
from game_server.games.blackjack.rules.charts import analysis_for, differences, shoe_of, stored
from game_server.games.blackjack.rules.compare import against_spanish21


def _brute_dealer(left: list[int], up: int, h17: bool) -> list[float]:
    """Every ordering of the dealer's draws, one card at a time, as plain recursion."""
    out = [0.0] * 7

    def rec(cards: list[int], left: list[int], p: float) -> None:
        hard = sum(cards)
        soft = 1 in cards and hard <= 11
        total = hard + 10 if soft else hard
        if len(cards) == 2 and total == 21:
            out[6] += p
            return
        if total > 21:
            out[5] += p
            return
        if len(cards) >= 2 and (total > 17 or (total == 17 and not (soft and h17))):
            out[total - 17] += p
            return
        n = sum(left)
        for v in range(1, 11):
            if left[v]:
                nxt = list(left)
                nxt[v] -= 1
                rec([*cards, v], nxt, p * left[v] / n)

    rec([up], left, 1.0)
    return out


@pytest.mark.parametrize("up", [1, 2, 6, 10])
@pytest.mark.parametrize("h17", [False, True])
def test_the_dealer_graph_gives_the_brute_force_outcomes(up: int, h17: bool) -> None:
    """One deck less a player's 10 and 6: the dealer's final totals by one pass over the
    graph equal every ordering of his draws enumerated (without a peek)."""
    shoe = shoe_of(1)
    removed = (0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1)
    left = [shoe[v] - removed[v] - (v == up) for v in range(11)]
    left[0] = 0
    expected = _brute_dealer(left, up, h17)
    found = dealer_outcomes(shoe, up, removed, h17, peeks=False)
    assert found == pytest.approx(expected, abs=1e-12)
    assert sum(found) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("a", "b", "stand", "hit"),
    [
        (2, 1, -0.722356, -0.379910),
        (3, 2, -0.721887, -0.529734),
        (6, 5, -0.720879, -0.235772),
        (7, 1, -0.466029, -0.421285),
    ],
)
def test_values_match_the_wizard_of_odds_appendix_9(
    a: int, b: int, stand: float, hit: float
) -> None:
    """Against an ace, six decks, H17, no hole card (Wizard of Odds, Blackjack Appendix 9):
    standing exactly to six places; hitting within 1e-4 (the dealer's outcomes count four
    cards of a hand, the stated approximation)."""
    model = Model(
        shoe=shoe_of(6),
        decks=6,
        hits_soft_17=True,
        peeks=False,
        double_after_split=True,
        max_hands=4,
        resplit_aces=False,
        hit_split_aces=False,
        surrender=False,
    )
    table = _Table(model, 1, None)
    counts = tuple(int(v == a) + int(v == b) for v in range(11))
    values = table.main.action_values(_UNIT[a] + _UNIT[b], counts, 2, 0, True)
    assert values["S"] == pytest.approx(stand, abs=5e-7)
    assert values["H"] == pytest.approx(hit, abs=1e-4)


def test_the_six_deck_s17_chart_equals_the_published_chart() -> None:
    """The shipped Blackjack example's rules: the derived chart equals the Wizard of Odds 4-8
    deck S17 chart cell by cell (no difference listed)."""
    model = next(
        m
        for m in shipped_models().values()
        if m.peeks and not m.twenty_one_wins and m.double_after_split
    )
    entry = stored(model)
    assert entry is not None
    assert entry.differences == ()


@pytest.mark.slow
def test_spanish21_departs_from_the_published_chart_only_where_its_play_is_better() -> None:
    """Every cell where the Spanish 21 chart departs from the Wizard of Odds H17 chart, card
    count by card count, is one where the analysis' own value of its play is higher (or a
    cell no hand reaches under composition-dependent play); the list is the report's."""
    model = next(m for m in shipped_models().values() if m.twenty_one_wins)
    analysis = analysis_for(model)
    found = against_spanish21(analysis)
    assert found, "the published chart omits the super bonus: 7,7 against a 7 must differ"
    for difference in found:
        assert difference.margin is None or difference.margin > 0, difference.text()
    assert any(d.cell == ("pair", 7, 2, 7) and d.ours == "H" for d in found)
    assert len(found) < 30
    assert differences(analysis) == tuple(d.text() for d in found)


@pytest.mark.slow
def test_the_generated_charts_are_what_the_analysis_derives() -> None:
    """chart_data.py holds, for every shipped example's rules, exactly the chart, edges and
    differences the analysis derives now (regenerate with
    ``python -m game_server.games.blackjack.gen_charts``)."""
    tree = ast.parse(TARGET.read_text())
    assert tree.body
    for key, model in shipped_models().items():
        analysis = analysis_for(model)
        entry = stored(model)
        assert entry is not None, f"{model.name}: not generated"
        assert entry.chart == analysis.chart, model.name
        assert entry.house_edge == pytest.approx(analysis.house_edge, abs=1e-12)
        assert entry.optimal_edge == pytest.approx(analysis.optimal_edge, abs=1e-12)
        assert entry.differences == differences(analysis)
        del key
