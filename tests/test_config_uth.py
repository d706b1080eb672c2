"""The Ultimate Texas Hold 'Em Rules Submission (``game = "uth"``, 58 Pa. Code 653a): the
shipped example loads, and each value 653a.12 refuses is refused naming the field and the
paragraph; the Blackjack configs load exactly as before (their hashes are pinned)."""

from __future__ import annotations

import re

import pytest

from game_server.config import (
    ConfigError,
    config_from_dict,
    example_path,
    load_config,
    parse_config,
)
from game_server.games.uth.config import rules_of
from game_server.games.uth.rules.rules import FiveCardHand
from game_server.rules.wagers.base import MeterSpec

UTH = example_path("uth.toml")
TEXT = UTH.read_text()

#: The config hashes of the Blackjack configs before Ultimate Texas Hold 'Em was added; the
#: three-position table's changed when its Rules Submission came to state the Buzzer
#: Beater's basis (the rules in force changed: it is settled on the position's first two
#: cards, 633b.5(p)(1), (u)).
BLACKJACK_HASHES = {
    "fully-automated-blackjack.toml": (
        "8107e850d4a1264c191eaa164af151b54943c41da75e31fd9c05c6535c499e8d"
    ),
    "fully-automated-all-side-wagers.toml": (
        "b232d7dfdce10008f3e44125f12a3d05e0d468150620d2a00efe8c0f6f8eae62"
    ),
    "hybrid-three-position.toml": (
        "49a15ece48a2d42254cadbc1ed5ebaa37ed285911598815159ea0e0d162ca0b2"
    ),
    "hybrid-no-hole-card.toml": "b72e06d1009bfbf7cf802e7e922c84c557c26aeea661c0cd0ea2e326e8532926",
}


def _section_of(line: str) -> str | None:
    stripped = line.strip()
    if stripped.startswith("[") and "]" in stripped:
        return stripped[1 : stripped.index("]")]
    return None


def in_section(text: str, section: str, old: str, new: str) -> str:
    """``text`` with the one line of ``[section]`` starting with ``old`` replaced by ``new``
    (removed when ``new`` is empty)."""
    out: list[str] = []
    current = ""
    hits = 0
    for line in text.splitlines():
        current = _section_of(line) or current
        if current == section and line.startswith(old) and _section_of(line) is None:
            hits += 1
            if new:
                out.append(new)
            continue
        out.append(line)
    assert hits == 1, (section, old, hits)
    return "\n".join(out) + "\n"


def edit(text: str, old: str, new: str) -> str:
    """Replace the line starting with ``old`` in ``[table]``."""
    return in_section(text, "table", old, new)


def without(text: str, section: str) -> str:
    """``text`` without the table ``[section]``."""
    out: list[str] = []
    current = ""
    for line in text.splitlines():
        current = _section_of(line) or current
        if current != section:
            out.append(line)
    return "\n".join(out) + "\n"


def problems(text: str) -> tuple[str, ...]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    return caught.value.problems


def only_problem(text: str) -> str:
    found = problems(text)
    assert len(found) == 1, found
    return found[0]


def test_the_example_offers_every_wager_of_653a12() -> None:
    """The shipped uth.toml loads: Blind and Trips paytables, the Progressive Payout with its
    $1 and $5 Envy amounts, the Five Card Hand Bonus with the Magic Card, the
    meters at $10,000 and a $50,000 maximum payout."""
    config = load_config(UTH)
    rules = rules_of(config)
    assert rules is not None and config.game == "uth" and config.rules is rules
    assert rules.seats == 6 and config.rules.seats == 6 and config.rules.decks == 1
    assert str(config.shuffle) == "every-round" and config.cut_card is None
    assert (rules.ante_limits.minimum, rules.ante_limits.maximum) == (500, 50_000)
    assert rules.blind_paytable == "Paytable A" and rules.trips_paytable == "Paytable A"
    assert rules.progressive_amounts == (100, 500)
    assert rules.progressive_meter == MeterSpec("Progressive Payout", 1_000_000, 1_000_000, 1500)
    assert rules.five_card_amounts == (100, 500)
    assert rules.five_card_hand is FiveCardHand.HOLE_AND_FLOP
    assert rules.magic_card_bonus and not rules.lucky_bonus  # one of the two (653a.12(e)(3))
    assert rules.max_payout == 5_000_000
    assert set(rules.meters()) == {"UTH-01:progressive", "UTH-01:five_card"}
    assert (config.timers.betting_seconds, config.timers.decision_seconds) == (15, 15)


def test_the_logged_form_rebuilds_the_same_config_and_hash() -> None:
    """A logged UTH config (cents as integers) is read back to an equal config, re-checked."""
    config = load_config(UTH)
    again = config_from_dict(config.to_dict())
    assert again == config and rules_of(again) == rules_of(config)
    assert again.config_hash() == config.config_hash()
    assert re.fullmatch(r"[0-9a-f]{64}", config.config_hash())
    assert config.to_dict()["table"]["game"] == "uth"


def test_a_linked_meter_and_no_maximum_payout_round_trip() -> None:
    """``meter`` links a meter by id (605a.8); ``max_payout = "none"`` sets no maximum."""
    text = in_section(TEXT, "uth", "max_payout", 'max_payout = "none"')
    text = in_section(text, "uth.progressive", "# meter =", 'meter = "floor:uth-progressive"')
    config = parse_config(text)
    rules = rules_of(config)
    assert rules is not None and rules.max_payout is None
    assert rules.progressive_meter_id == "floor:uth-progressive"
    assert config_from_dict(config.to_dict()) == config


@pytest.mark.parametrize("name", sorted(BLACKJACK_HASHES))
def test_blackjack_configs_load_exactly_as_before(name: str) -> None:
    """Adding the game changed no Blackjack config's hash (the logs keep verifying)."""
    config = load_config(example_path(name))
    assert rules_of(config) is None and config.game == "blackjack"
    assert config.config_hash() == BLACKJACK_HASHES[name]
    assert "uth" not in config.to_dict()


def test_progressive_meter_below_10000_is_refused_naming_653a12_d_3() -> None:
    """653a.12(d)(3): the initial and reset amounts are at least $10,000."""
    text = in_section(TEXT, "uth.progressive", "meter_seed", 'meter_seed = "9999.99"')
    found = problems(
        in_section(text, "uth.progressive", "meter_reseed", 'meter_reseed = "9999.99"')
    )
    assert [p.split(":")[0] for p in found] == [
        "uth.progressive.meter_seed",
        "uth.progressive.meter_reseed",
    ]
    assert all("653a.12(d)(3)" in p and "$10,000" in p for p in found)


def test_five_card_meter_reset_below_10000_is_refused_naming_653a12_e_4() -> None:
    """653a.12(e)(4): the Five Card Hand Bonus meter's reset amount is at least $10,000."""
    problem = only_problem(
        in_section(TEXT, "uth.five_card", "meter_reseed", 'meter_reseed = "5000.00"')
    )
    assert problem.startswith("uth.five_card.meter_reseed:")
    assert "653a.12(e)(4)" in problem


def test_magic_card_and_lucky_bonus_together_are_refused_naming_653a12_e_3() -> None:
    """653a.12(e)(3): a certificate holder "may pay a Magic Card or Lucky Bonus": a Rules
    Submission turning both on is refused."""
    text = in_section(TEXT, "uth.five_card", "lucky_bonus", "lucky_bonus = true")
    problem = only_problem(text)
    assert problem.startswith("uth:") and "653a.12(e)(3)" in problem and "not both" in problem


def test_maximum_payout_below_50000_is_refused_naming_653a12_f() -> None:
    """653a.12(f): a maximum payout per hand is at least $50,000."""
    problem = only_problem(in_section(TEXT, "uth", "max_payout", 'max_payout = "49999.00"'))
    assert problem.startswith("uth.max_payout:") and "653a.12(f)" in problem


def test_maximum_payout_below_what_the_minimum_wager_can_win_is_refused() -> None:
    """653a.12(f): ... or what one patron could win per round betting the minimum wager,
    whichever is greater: a $100 minimum Ante can win 505 x $100 + Trips 50 x $5."""
    text = in_section(TEXT, "limits", "ante_min", 'ante_min = "100.00"')
    text = in_section(text, "terminal", "chip_denominations", 'chip_denominations = ["1.00"]')
    problem = only_problem(in_section(text, "uth", "max_payout", 'max_payout = "50000.00"'))
    assert problem.startswith("uth:") and "653a.12(f)" in problem and "$50,750" in problem


def test_unknown_blind_paytable_is_refused_naming_653a12_b() -> None:
    problem = only_problem(
        in_section(TEXT, "uth", "blind_paytable", 'blind_paytable = "Paytable C"')
    )
    assert problem.startswith("uth.blind_paytable:")
    assert "'Paytable A' or 'Paytable B'" in problem and "653a.12(b)" in problem


def test_unknown_trips_paytable_is_refused_naming_653a12_c() -> None:
    problem = only_problem(in_section(TEXT, "uth.trips", "paytable", 'paytable = "Paytable E"'))
    assert problem.startswith("uth.trips.paytable:") and "653a.12(c)" in problem


def test_progressive_amount_without_an_envy_table_is_refused_naming_653a12_d_5() -> None:
    problem = only_problem(
        in_section(TEXT, "uth.progressive", "amounts", 'amounts = ["1.00", "2.00"]')
    )
    assert problem.startswith("uth.progressive.amounts[1]:") and "653a.12(d)(5)" in problem


def test_zero_rate_of_progression_is_refused_naming_the_paragraph() -> None:
    problem = only_problem(
        in_section(TEXT, "uth.five_card", "meter_increment", 'meter_increment = "0%"')
    )
    assert problem.startswith("uth.five_card.meter_increment:") and "653a.12(e)(4)" in problem


def test_unknown_keys_are_refused_in_every_section() -> None:
    """A typo cannot be ignored: an unknown key or table is named with its section."""
    found = problems(
        in_section(TEXT, "uth", "blind_paytable", 'blind_paytable = "Paytable A"\nblnd = 1')
        + '\n[wagers.lucky_aces]\npaytable = "Paytable A"\n'
    )
    assert any(p.startswith("uth.blnd: unknown key") for p in found), found
    assert any(p.startswith("wagers: unknown table or key") for p in found), found
    trips = only_problem(in_section(TEXT, "uth.trips", "max", 'max = "100.00"\ncolor = "red"'))
    assert trips.startswith("uth.trips.color: unknown key")


def test_a_hybrid_table_type_is_refused() -> None:
    problem = only_problem(edit(TEXT, "type =", 'type = "hybrid"'))
    assert problem.startswith("table.type:") and "fully automated" in problem


def test_seats_and_an_odd_wager_unit_are_checked() -> None:
    seats = only_problem(edit(TEXT, "seats =", "seats = 11"))
    assert seats.startswith("table.seats:") and "653a.2" in seats
    unit = problems(in_section(TEXT, "limits", "wager_unit", 'wager_unit = "0.05"'))
    assert any(p.startswith("limits.wager_unit:") and "653a.12(b)" in p for p in unit), unit


def test_a_missing_key_is_named_with_an_example() -> None:
    problem = only_problem(in_section(TEXT, "timers", "decision_seconds", ""))
    assert problem.startswith("timers.decision_seconds: missing")


def test_optional_wagers_may_be_left_out() -> None:
    """Without [uth.trips], [uth.progressive] and [uth.five_card] only Ante, Blind and Play
    are offered and no meter is opened."""
    text = TEXT
    for section in ("uth.trips", "uth.progressive", "uth.five_card"):
        text = without(text, section)
    config = parse_config(text)
    rules = rules_of(config)
    assert rules is not None
    assert rules.trips_paytable is None
    assert rules.progressive_amounts == () and rules.five_card_amounts == ()
    assert rules.meters() == {}
