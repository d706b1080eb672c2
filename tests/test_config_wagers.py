"""The side wagers of 633b.6-633b.13 in the Rules Submission: each can be enabled with its
paytable and options, and the config refuses what the regulation forbids, naming the section
(deck counts, fixed amounts, the paytable fixed by the deck count, meter minimums, a wager
that requires another). Every accepted config survives the logged round trip unchanged."""

from __future__ import annotations

import re

import pytest

from game_server.config import (
    ConfigError,
    TableConfig,
    config_from_dict,
    example_config_path,
    parse_config,
)
from game_server.rules.wagers.base import MeterSpec
from shared.money import ToOne

EXAMPLE = example_config_path().read_text(encoding="utf-8")


def with_wagers(extra: str, decks: int = 6) -> str:
    text = EXAMPLE.replace("decks = 6 ", f"decks = {decks} ", 1)
    if decks != 6:  # a fresh shoe every round: no cut card to fit to the shoe
        text = re.sub(r'^shuffle = "cut-card"', 'shuffle = "every-round"', text, flags=re.M)
        text = re.sub(r"^cut_card = 234 .*$", "", text, flags=re.M)
    return text + "\n" + extra


def problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    return list(caught.value.problems)


def round_trip(config: TableConfig) -> None:
    again = config_from_dict(config.to_dict())
    assert again == config
    assert again.config_hash() == config.config_hash()


def offer(config: TableConfig, name: str):  # type: ignore[no-untyped-def]
    return config.rules.offers[name]


TRILUX = '[wagers.trilux]\nmin = "1.00"\nmax = "100.00"\n'


def test_trilux_takes_the_paytable_its_deck_count_decides() -> None:
    """633b.11(j): 6 decks use Paytable TLX-3; 1 deck TLX-1; another is refused."""
    six = parse_config(with_wagers(TRILUX))
    assert offer(six, "trilux").paytable.name == "Paytable TLX-3"
    one = parse_config(with_wagers(TRILUX, decks=1))
    assert offer(one, "trilux").paytable.name == "Paytable TLX-1"
    wrong = with_wagers(TRILUX.replace("min =", 'paytable = "Paytable TLX-1"\nmin ='))
    (problem,) = problems(wrong)
    assert "uses Paytable TLX-3" in problem and "633b.11(j)" in problem
    round_trip(six)
    assert offer(six, "trilux").option_map == {"press": False}


THREE_CARD = (
    '[wagers.three_card_poker]\npaytable = "Classic 9 to 1"\nmin = "1.00"\nmax = "100.00"\n'
)
TOP_3 = '[wagers.top_3]\npaytable = "Paytable B"\nmin = "1.00"\nmax = "25.00"\n'


def test_top_3_needs_three_card_poker_at_the_table() -> None:
    """633b.7(a): Top 3 is offered with the Three Card Poker wager."""
    (problem,) = problems(with_wagers(TOP_3))
    assert "placed only with the three_card_poker wager" in problem
    config = parse_config(with_wagers(THREE_CARD + TOP_3))
    assert offer(config, "top_3").paytable.name == "Paytable B"
    round_trip(config)


def test_a_three_card_poker_paytable_stated_line_by_line() -> None:
    """Its paytable is not in our regulation text: the Rules Submission may state one."""
    stated = (
        '[wagers.three_card_poker]\npaytable = "House 40-30"\nmin = "1.00"\nmax = "100.00"\n'
        '[wagers.three_card_poker.lines]\n"Straight Flush" = "40 to 1"\n'
        '"Three of a Kind" = "30 to 1"\n"Straight" = "10 to 1"\n"Flush" = "5 to 1"\n'
    )
    config = parse_config(with_wagers(stated))
    table = offer(config, "three_card_poker").paytable
    assert table.name == "House 40-30"
    assert table.line("Straight Flush").pay == ToOne(40)
    round_trip(config)
    bad = stated.replace('"Flush" = "5 to 1"', '"Royal" = "5 to 1"')
    (problem,) = problems(with_wagers(bad))
    assert "wagers.three_card_poker.lines" in problem and "'Royal'" in problem


SUPER_4 = '[wagers.super_4]\npaytable = "Paytable 1\u2014Option 1"\nmin = "5.00"\nmax = "5.00"\n'


def test_super_4_is_a_fixed_5_dollar_wager_with_a_chosen_suit() -> None:
    """633b.6(e): a Super 4 Progressive wager of $5; (a)(1): the chosen suit."""
    config = parse_config(with_wagers(SUPER_4 + 'chosen_suit = "hearts"\n'))
    chosen = offer(config, "super_4")
    assert chosen.option_map["chosen_suit"] == "hearts"
    assert chosen.paytable.meters[0] == MeterSpec("Star Progressive", 5_000_000, 5_000_000, 600)
    round_trip(config)
    one_dollar = SUPER_4.replace('"5.00"', '"1.00"')
    assert all("633b.6(e)" in p for p in problems(with_wagers(one_dollar)))
    (problem,) = problems(with_wagers(SUPER_4 + 'chosen_suit = "stars"\n'))
    assert "chosen_suit" in problem and '"spades"' in problem and "633b.6(a)(1)" in problem


MATCH = '[wagers.blackjack_match]\npaytable = "Paytable A"\nmin = "5.00"\nmax = "5.00"\n'


def test_blackjack_match_deck_counts_and_its_one_amount() -> None:
    """633b.10(b): 6 or 8 decks; (e): a $1 or a $5 wager, as the Rules Submission selects."""
    config = parse_config(with_wagers(MATCH + "amount = 500\n"))
    assert offer(config, "blackjack_match").option_map["amount"] == 500
    round_trip(config)
    (problem,) = problems(with_wagers(MATCH + "amount = 100\n"))
    assert "offered is $1.00 (amount)" in problem and "633b.10" in problem
    four = problems(with_wagers(MATCH + "amount = 500\n", decks=4))
    assert any("only with 6 or 8 decks" in p and "633b.10(b)" in p for p in four)


BLAZING = '[wagers.blazing_7s]\npaytable = "Paytable A"\nmin = "1.00"\nmax = "1.00"\n'


def test_blazing_7s_meter_comes_from_the_rules_submission_with_its_minimums() -> None:
    """633b.9(g): the rate of progression, initial and reset amounts are in the Rules
    Submission; at least $2,000 for a $1 wager and $10,000 for a $5 wager."""
    meter = 'meter_seed = "2000.00"\nmeter_reseed = "2000.00"\nmeter_increment = "7.5%"\n'
    config = parse_config(with_wagers(BLAZING + meter + 'meter = "floor:blazing"\n'))
    chosen = offer(config, "blazing_7s")
    assert chosen.paytable.meters == (MeterSpec("Blazing 7's Progressive", 200_000, 200_000, 750),)
    assert chosen.option_map["meter"] == "floor:blazing"
    round_trip(config)
    missing = problems(with_wagers(BLAZING))
    assert {p.split(":")[0] for p in missing} == {
        "wagers.blazing_7s.meter_seed",
        "wagers.blazing_7s.meter_reseed",
        "wagers.blazing_7s.meter_increment",
    }
    five = BLAZING.replace('"1.00"', '"5.00"')
    (problem,) = problems(with_wagers(five + meter))
    assert "633b.9(g)" in problem and "$10,000.00" in problem


def test_buster_and_axman_deck_counts() -> None:
    """633b.13(c): 1, 6 or 8 decks; 633b.12(b): 6 or 8 decks."""
    buster = '[wagers.buster]\npaytable = "Paytable A"\nmin = "1.00"\nmax = "100.00"\n'
    axman = '[wagers.axman]\npaytable = "Paytable"\nmin = "1.00"\nmax = "100.00"\n'
    config = parse_config(with_wagers(buster + 'bonus = "B1"\n' + axman))
    assert offer(config, "buster").option_map["bonus"] == "B1"
    round_trip(config)
    two = problems(with_wagers(buster + axman, decks=2))
    assert any("633b.13(c)" in p for p in two) and any("633b.12(b)" in p for p in two)
