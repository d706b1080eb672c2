"""The rules screen's content (game_server.table.info.rules_for): the statements 58 Pa. Code
633b.5(c)(2) requires, the countdown's effect as configured, and each offered wager's
paytable exactly as the config selects it."""

from __future__ import annotations

import dataclasses
import json

from game_server.config import TableConfig, example_config_path, example_path, load_config
from game_server.games.blackjack.rules.rules import CountdownDefault, DoubleOn
from game_server.rules.wagers import REGISTRY
from game_server.table.info import rules_for


def _config(**rules: object) -> TableConfig:
    config = load_config(example_config_path())
    return dataclasses.replace(config, rules=dataclasses.replace(config.rules, **rules))


def test_the_statements_633b5_c_2_requires_are_shown() -> None:
    shown = rules_for(_config())
    for statement in (
        "Blackjack pays 3 to 2",
        "Dealer stands on all soft 17s",
        "Insurance pays 2 to 1",
    ):
        assert statement in shown["lines"]
    decision = next(c for c in shown["countdowns"] if c["for"] == "decision")
    assert decision["then"] == "the hand stands"
    assert json.loads(json.dumps(shown)) == shown  # JSON-ready, integers and text only


def test_the_countdown_default_the_operator_selects_is_explained() -> None:
    """633b.5(z): a different countdown option "shall be explained ... in the game rules
    icon"."""
    shown = rules_for(_config(countdown_default=CountdownDefault.HIT_HARD_11_OR_LESS))
    decision = next(c for c in shown["countdowns"] if c["for"] == "decision")
    assert "11 or less is hit" in decision["then"]


def test_options_change_the_lines() -> None:
    plain = rules_for(_config())["lines"]
    other = rules_for(
        _config(double_on=DoubleOn.TEN_TO_ELEVEN, late_surrender=True, insurance=False)
    )["lines"]
    assert any("10 or 11" in line for line in other)
    assert not any("10 or 11" in line for line in plain)
    assert any("surrender" in line for line in other)
    assert "Insurance pays 2 to 1" not in other


def test_every_offered_side_wager_shows_the_selected_paytable_line_by_line() -> None:
    config = load_config(example_config_path())
    assert config.rules.side_wagers, "the example config offers a side wager"
    shown = {w["wager"]: w for w in rules_for(config)["wagers"]}
    assert shown["blackjack"]["min"] == config.rules.main_limits.minimum
    for offer in config.rules.side_wagers:
        wager = shown[offer.wager.name]
        table = REGISTRY[offer.wager.name].paytables[offer.paytable.name]
        assert wager["paytable"] == offer.paytable.name
        assert [(line["hand"], line["pays"]) for line in wager["lines"]] == [
            (line.name, str(line.pay)) for line in table.lines
        ]
        assert (wager["min"], wager["max"]) == (offer.limits.minimum, offer.limits.maximum)
    other_paytable = next(name for name in REGISTRY["lucky_aces"].paytables if name != "Paytable A")
    offer = config.rules.side_wagers[0]
    changed = dataclasses.replace(offer, paytable=REGISTRY["lucky_aces"].paytables[other_paytable])
    shown_b = rules_for(
        dataclasses.replace(config, rules=dataclasses.replace(config.rules, side_wagers=(changed,)))
    )
    assert shown_b["wagers"][1]["paytable"] == other_paytable
    assert shown_b["wagers"][1]["lines"] != shown["lucky_aces"]["lines"]


def test_a_wagers_notes_say_what_else_a_player_should_know() -> None:
    """The Press (633b.11(f)-(h)), a fixed amount, a meter's seed and rate."""
    path = example_path("fully-automated-all-side-wagers.toml")
    text = path.read_text(encoding="utf-8").replace("press = false", "press = true")
    from game_server.config import parse_config

    shown = {w["wager"]: w for w in rules_for(parse_config(text))["wagers"]}
    assert any(note.startswith("Press:") for note in shown["trilux"]["notes"])
    assert "At most 2 times the Blackjack wager" in shown["trilux"]["notes"]
    assert "A fixed $5.00 wager" in shown["super_4"]["notes"]
    assert any("Star Progressive: starts at $50,000.00" in n for n in shown["super_4"]["notes"])
    assert shown["blackjack"]["notes"] == []
