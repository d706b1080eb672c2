"""The rules screen of an Ultimate Texas Hold 'Em table (info.rules_for): the procedure, the
countdowns and every 653a.12 paytable offered, named and paid as the regulation writes it."""

from __future__ import annotations

import json

from game_server.config import example_path, load_config
from game_server.table.info import rules_for

CONFIG = load_config(example_path("uth.toml"))


def lines(shown: dict[str, object], wager: str) -> dict[str, str]:
    wagers = shown["wagers"]
    assert isinstance(wagers, list)
    entry = next(w for w in wagers if w["wager"] == wager)
    return {line["hand"]: line["pays"] for line in entry["lines"]}


def test_every_paytable_of_653a12_is_shown_as_the_regulation_names_it() -> None:
    shown = rules_for(CONFIG)
    assert shown["game"] == "Ultimate Texas Hold 'Em"
    assert json.loads(json.dumps(shown)) == shown
    assert [w["wager"] for w in shown["wagers"]] == [
        "ante",
        "blind",
        "trips",
        "progressive",
        "five_card_player",
        "five_card_dealer",
    ]
    assert lines(shown, "blind") == {
        "Royal flush": "500 to 1",
        "Straight flush": "50 to 1",
        "Four-of-a-kind": "10 to 1",
        "Full house": "3 to 1",
        "Flush": "3 to 2",
        "Straight": "1 to 1",
        "Less than a straight": "Push",
    }
    trips = lines(shown, "trips")
    assert trips["Royal flush"] == "50 to 1" and trips["Three-of-a-kind"] == "3 to 1"
    assert trips["Full house"] == "9 to 1"  # Paytable A
    progressive = lines(shown, "progressive")
    assert progressive["Royal flush"] == "100% of meter"
    assert progressive["Four-of-a-kind"] == "300 for 1"
    five = lines(shown, "five_card_player")
    assert five == {
        "Royal flush": "100% of meter",
        "Straight flush": "10% of meter",
        "Four-of-a-kind": "500 for 1",
        "Full house": "100 for 1",
        "Flush": "50 for 1",
    }
    notes = " ".join(n for w in shown["wagers"] for n in w["notes"])
    for words in ("Envy Bonus", "Magic Card", "20 for 1", "the stake counts once", "$10,000"):
        assert words in notes, words
    assert "Lucky Bonus" not in notes  # the table pays one of the two (653a.12(e)(3))
    text = " ".join(shown["lines"])
    assert "Play 4 or 3 times the Ante" in text and "$50,000.00" in text
    assert "pair or better" in text
    decision = next(c for c in shown["countdowns"] if c["for"] == "decision")
    assert decision["then"] == "the hand checks before the river and folds at the river"


def test_paytable_b_and_no_maximum_are_shown_as_selected() -> None:
    text = example_path("uth.toml").read_text()
    text = text.replace('blind_paytable = "Paytable A"', 'blind_paytable = "Paytable B"')
    text = text.replace('max_payout = "50000.00"', 'max_payout = "none"')
    from game_server.config import parse_config

    shown = rules_for(parse_config(text))
    blind = lines(shown, "blind")
    assert "Straight" not in blind and blind["Less than a flush"] == "Push"
    assert not any("maximum" in line.lower() for line in shown["lines"])


def test_each_five_card_wager_names_its_own_hand_and_when_the_bonuses_pay() -> None:
    """653a.12(e)(2): the wager on the dealer's hand is on the dealer's two cards and the
    flop, the player's on his; (e)(3) as the Rules Submission reads it (``bonus_on``): with a
    winning hand, said on the rules screen, or on every hand, not said."""
    from dataclasses import replace

    from game_server.games.uth.rules.rules import BonusOn

    def notes(config: object) -> dict[str, list[str]]:
        shown = rules_for(config)  # type: ignore[arg-type]
        return {w["wager"]: w["notes"] for w in shown["wagers"]}

    shown = notes(CONFIG)
    assert "the dealer's two cards and the flop" in shown["five_card_dealer"][0]
    assert "the player's two cards and the flop" in shown["five_card_player"][0]
    assert CONFIG.rules.bonus_on is BonusOn.WINNING_HAND
    winning = "The Magic Card is paid with a winning hand"
    assert any(winning in n for n in shown["five_card_player"])
    every = replace(CONFIG, rules=replace(CONFIG.rules, bonus_on=BonusOn.EVERY_HAND))
    assert not any(winning in n for n in notes(every)["five_card_player"])
