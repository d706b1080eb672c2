"""The player-edge guard of the Rules Submission (game_server.rules.returns): a Rules
Submission whose offered wager returns 100% or more is refused at load, naming the field, the
wager, the reading and the figure; the shipped examples all load."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from game_server.config import (
    ConfigError,
    example_config_path,
    example_path,
    example_paths,
    load_config,
    parse_config,
)


def problems(text: str) -> tuple[str, ...]:
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    return caught.value.problems


def percent(problem: str) -> float:
    found = re.search(r"returns (\d+\.\d\d)% to the player", problem)
    assert found is not None, problem
    return float(found.group(1))


@pytest.mark.parametrize("path", example_paths(), ids=lambda p: p.name)
def test_every_shipped_rules_submission_passes_the_guard(path: Path) -> None:
    """Every example config loads: no wager it offers returns 100% or more."""
    assert load_config(path).table_id


def test_633b_5_u_the_buzzer_beater_on_the_final_hand_is_refused_with_its_figure() -> None:
    """633b.5(m), (u): the Buzzer Beater read on each player's final hand returns about 120%
    (the par sheet's figure, measured through the engine): refused, naming the basis field,
    the reading, the figure and how it was measured."""
    text = (example_path("hybrid-three-position.toml")).read_text()
    (problem,) = problems(text.replace('basis = "first-two-cards"', 'basis = "final-hand"'))
    assert problem.startswith("wagers.buzzer_beater.basis: Buzzer Beater")
    assert "each player's final hand" in problem and "par sheet" in problem
    assert 115 < percent(problem) < 125
    assert "633b.5(m), (p)(1), (u)" in problem


def test_653a_12_e_3_a_bonus_on_every_five_card_hand_is_refused_with_its_figure() -> None:
    """653a.12(e)(3): the Magic Card paid on every Five Card Hand Bonus wager returns 129.70%
    in the long run (the Lucky Bonus at six seats 124.16%): refused for each hand's wager."""
    text = (example_path("uth.toml")).read_text()
    every = text.replace('bonus_on = "winning-hand"', 'bonus_on = "every-hand"')
    found = problems(every)
    assert [p.split(":")[0] for p in found] == ["uth.five_card.bonus_on"] * 2
    assert "player's hand" in found[0] and "dealer's hand" in found[1]
    assert all(percent(p) == 129.70 and "653a.12(e)(3)" in p for p in found)
    assert "the Magic Card on every hand" in found[0]
    lucky = every.replace("magic_card = true ", "magic_card = false").replace(
        "lucky_bonus = false", "lucky_bonus = true "
    )
    assert [percent(p) for p in problems(lucky)] == [124.16, 124.16]


def test_653a_12_e_2_the_best_five_of_seven_cards_is_refused_with_its_figure() -> None:
    """653a.12(e)(2): a Five Card Hand Bonus on the best five of the seven cards pays a
    flush, full house or four of a kind made on the turn and river at 50, 100 and 500 for 1:
    562.61% in the long run, refused."""
    text = (example_path("uth.toml")).read_text()
    found = problems(text.replace('hand = "hole-and-flop"', 'hand = "best-of-seven"'))
    assert [p.split(":")[0] for p in found] == ["uth.five_card.hand"] * 2
    assert all(percent(p) == 562.61 and "653a.12(e)(2)" in p for p in found)


def test_a_stated_paytable_that_pays_the_player_is_refused() -> None:
    """A Three Card Poker paytable the Rules Submission states line by line (633a.6(e)(9)) is
    checked like any other: 40, 30, 30 and 30 to 1 return 341% and are refused."""
    generous = example_config_path().read_text() + (
        '\n[wagers.three_card_poker]\npaytable = "House 40-30-30-30"\nmin = "1.00"\n'
        'max = "100.00"\n[wagers.three_card_poker.lines]\n"Straight Flush" = "40 to 1"\n'
        '"Three of a Kind" = "30 to 1"\n"Straight" = "30 to 1"\n"Flush" = "30 to 1"\n'
    )
    (problem,) = [p for p in problems(generous) if p.startswith("wagers.three_card_poker")]
    assert "Three Card Poker" in problem and 'paytable "House 40-30-30-30"' in problem
    assert percent(problem) > 300


def test_a_wager_that_depends_on_play_is_checked_from_its_par_sheet_figure() -> None:
    """AxMan depends on the dealer's whole hand and on play: its figure comes from the par
    sheet (:data:`~game_server.rules.returns.PAR_FIGURES`), under 100%: the all-wagers table
    loads."""
    config = load_config(example_path("fully-automated-all-side-wagers.toml"))
    assert "axman" in config.rules.offers


def test_a_wager_without_a_reading_is_named_without_empty_brackets() -> None:
    """A refusal names the wager and, where its figure depends on one, the reading in
    brackets; a wager read plainly (Spanish 21's Match the Dealer Progressive) is named
    alone, not followed by "()"."""
    from game_server.games.spanish21.rules.match_the_dealer import PAYTABLES, TITLE
    from game_server.games.spanish21.rules.returns import match_the_dealer_return
    from game_server.rules.returns import refusal

    plain = match_the_dealer_return(next(iter(PAYTABLES[6].values())), 6, 100)
    assert plain.reading == ""
    generous = dataclasses.replace(plain, long_run=1.05, setting="wagers.match_the_dealer")
    problem = refusal(generous)
    assert problem is not None and "()" not in problem
    assert problem.startswith(f"wagers.match_the_dealer: {TITLE} returns 105.00%")
    read = refusal(dataclasses.replace(generous, reading="reserve"))
    assert read is not None and f"{TITLE} (reserve) returns" in read
