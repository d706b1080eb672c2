"""The rules screen of the hybrid tables (58 Pa. Code 633b.5(c)(2)): the required statements,
the table type's own procedure, what each countdown does, and the offered wagers' paytables."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from game_server.config import TableConfig, example_path, load_config
from game_server.games.blackjack.rules.rules import CountdownDefault
from game_server.games.hybrid.info import hybrid_rules_for
from game_server.table.info import rules_for

THREE = load_config(example_path("hybrid-three-position.toml"))
NO_HOLE = load_config(example_path("hybrid-no-hole-card.toml"))


@pytest.mark.parametrize("config", [THREE, NO_HOLE], ids=["three-position", "no-hole-card"])
def test_the_required_statements_come_first_and_the_wagers_are_the_configs(
    config: TableConfig,
) -> None:
    """633b.5(c)(2): "Blackjack pays 3 to 2", "Dealer stands on all soft 17s", "Insurance
    pays 2 to 1" first; every offered wager with its paytable, as for any table."""
    document = hybrid_rules_for(config)
    assert document["lines"][:3] == [
        "Blackjack pays 3 to 2",
        "Dealer stands on all soft 17s",
        "Insurance pays 2 to 1",
    ]
    assert document["wagers"] == rules_for(config)["wagers"]
    assert json.loads(json.dumps(document)) == document
    text = " ".join(document["lines"])
    assert "dealer checks for Blackjack under an Ace or a ten-value card" not in text


def test_the_three_position_table_states_its_own_procedure() -> None:
    """633b.5(l), (q), (r): the position, the community cards in order, the double down's one
    card, no draw on 21; the countdown stands every hand and settles (p)(2)."""
    document = hybrid_rules_for(THREE)
    text = " ".join(document["lines"])
    for paragraph in ("633b.5(l)", "633b.5(q)", "633b.5(r)(2)", "633b.5(r)(1)", "633b.5(s)"):
        assert paragraph in text
    assert "Buzzer Beater" in json.dumps(document["wagers"])
    decision = next(c for c in document["countdowns"] if c["for"] == "decision")
    assert "stands" in decision["then"] and "633b.5(p)(2)" in decision["then"]
    assert decision["seconds"] == THREE.timers.decision_seconds


def test_633b_5_c_3_the_buzzer_beater_says_which_hand_it_is_settled_on() -> None:
    """633b.5(c)(3): the rules icon explains the Buzzer Beater: on the position's first two
    cards, whatever the player draws, as the Rules Submission states it (basis)."""
    document = hybrid_rules_for(THREE)
    (wager,) = [w for w in document["wagers"] if w["wager"] == "buzzer_beater"]
    assert any("position's first two cards" in note for note in wager["notes"])


def test_the_no_hole_card_table_states_its_own_procedure() -> None:
    """633b.5(y), (aa), (bb), (z): one set of cards, the player's own dealer hand, two split
    hands at most, the returned wagers against a dealer Blackjack; surrender only when the
    Rules Submission offers it; the countdown's default as configured."""
    document = hybrid_rules_for(NO_HOLE)
    text = " ".join(document["lines"])
    for paragraph in ("633b.5(y)", "633b.5(aa)", "(bb)(1)", "633b.5(bb)(2)", "633b.5(z)"):
        assert paragraph in text
    assert "Even money" not in text
    assert ("Surrender" in text) is NO_HOLE.rules.late_surrender
    hits = replace(
        NO_HOLE,
        rules=replace(NO_HOLE.rules, countdown_default=CountdownDefault.HIT_HARD_11_OR_LESS),
    )
    decision = next(c for c in hybrid_rules_for(hits)["countdowns"] if c["for"] == "decision")
    assert "11 or less is hit" in decision["then"]
