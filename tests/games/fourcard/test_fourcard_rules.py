"""Four Card Poker's engine, paragraph by paragraph (58 Pa. Code 641a, 641b.1; the procedure
from secondary sources, as rules/game.py says), with stacked decks; and its refusals."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest

from game_server.config import ConfigError, build_table_config
from game_server.games.fourcard.config import build_config, file_shape, logged_config
from game_server.games.fourcard.rules.analysis import hand_value, simple_decision
from game_server.games.fourcard.rules.events import (
    FourCardCardDealt,
    FourCardDecision,
    FourCardWagerSettled,
)
from game_server.games.fourcard.rules.game import Action, FourCardRound, Phase, replay
from game_server.rules.errors import ActionNotAllowed, BetOutOfLimits, ReplayMismatch, RulesError
from game_server.rules.meters import Meter
from game_server.rules.wagers.base import LOST, WON
from shared.cards import parse_cards

EXAMPLE = Path(__file__).parents[3] / "game_server/games/fourcard/configs/fourcard.toml"
DATA: dict[str, Any] = tomllib.loads(EXAMPLE.read_text())
RULES = build_config(DATA, "example").rules


class Stacked:
    """A card source dealing the given cards in order."""

    def __init__(self, text: str) -> None:
        self.cards = list(parse_cards(text))
        self.position = 0

    def draw(self) -> Any:
        card = self.cards[self.position]
        self.position += 1
        return card


def meters() -> dict[str, Meter]:
    out = {}
    for meter_id, spec in RULES.meters().items():
        step = Meter.open(meter_id, spec)
        out[meter_id] = step.meter
    return out


def settle(game: FourCardRound) -> list[Any]:
    return game.settle({m: meters()[m] for m in game.meter_ids_needed()})


def settled(events: list[Any], seat: int) -> dict[str, FourCardWagerSettled]:
    return {e.wager: e for e in events if type(e) is FourCardWagerSettled and e.seat == seat}


# Seat 1: five cards, then the dealer's six (the first face up).
PLAYER_TRIPS = "7S 7H 7D 2C 9S"
DEALER_TWO_PAIR = "KS KH 4D 4C 8S 3H"


def test_deal_five_to_each_seat_and_six_to_the_dealer_one_face_up() -> None:
    game = FourCardRound(RULES, "FCP-01")
    game.place_wagers(1, {"ante": 500})
    game.place_wagers(3, {"aces_up": 100})
    events = game.deal(Stacked(f"{PLAYER_TRIPS} AS AH AD KC QS {DEALER_TWO_PAIR}"))
    cards = [e for e in events if type(e) is FourCardCardDealt]
    assert [e.seat for e in cards] == [1] * 5 + [3] * 5 + [0] * 6
    assert [e.face_up for e in cards if e.seat == 0] == [True] + [False] * 5
    assert [e.position for e in cards] == list(range(16))
    assert game.phase is Phase.DECIDING and game.pending == (1,)  # seat 3 has no Ante


def test_trips_beat_two_pair_ante_and_play_win_and_the_ante_bonus_pays_2_to_1() -> None:
    game = FourCardRound(RULES, "FCP-01")
    game.place_wagers(1, {"ante": 500, "aces_up": 100})
    game.deal(Stacked(f"{PLAYER_TRIPS} {DEALER_TWO_PAIR}"))
    game.decide(1, Action.PLAY, 3)
    assert game.phase is Phase.SHOWDOWN
    won = settled(settle(game), 1)
    assert (won["ante"].paid, won["play"].paid) == (1000, 3000)
    assert won["ante_bonus"].stake == 0 and won["ante_bonus"].paid == 1000  # 2 to 1 on $5
    assert won["aces_up"].paid == 900 and "Three of a Kind 8 to 1" in won["aces_up"].line


def test_the_dealer_always_qualifies_and_a_tie_wins_for_the_player() -> None:
    # Both best fours are K-Q-J-9 high card (the player's 2 and the dealer's 3 and 2 unused).
    game = FourCardRound(RULES, "FCP-01")
    game.place_wagers(1, {"ante": 500})
    game.deal(Stacked("KS QH JD 9C 2S KH QD JC 9S 3D 2H"))
    game.decide(1, Action.PLAY, 1)
    result = settled(settle(game), 1)
    assert result["ante"].outcome == WON and "ties" in result["ante"].line
    assert result["play"].paid == 1000


def test_a_lower_hand_loses_ante_and_play_but_keeps_its_ante_bonus() -> None:
    game = FourCardRound(RULES, "FCP-01")
    game.place_wagers(1, {"ante": 500})
    game.deal(Stacked("7S 7H 7D 2C 9S AS AH AD AC 8S 3H"))  # dealer: four aces
    game.decide(1, Action.PLAY, 2)
    result = settled(settle(game), 1)
    assert result["ante"].outcome == LOST and result["play"].outcome == LOST
    assert result["ante_bonus"].paid == 1000  # paid whatever the dealer holds


def test_a_fold_loses_the_ante_without_bonus_but_aces_up_still_pays() -> None:
    game = FourCardRound(RULES, "FCP-01")
    game.place_wagers(1, {"ante": 500, "aces_up": 100})
    game.deal(Stacked(f"AS AH 7D 2C 9S {DEALER_TWO_PAIR}"))
    game.decide(1, Action.FOLD)
    result = settled(settle(game), 1)
    assert result["ante"].paid == 0 and "play" not in result and "ante_bonus" not in result
    assert result["aces_up"].paid == 200 and "Pair of Aces 1 to 1" in result["aces_up"].line


def test_the_countdown_folds_a_silent_seat() -> None:
    game = FourCardRound(RULES, "FCP-01")
    game.place_wagers(1, {"ante": 500})
    game.deal(Stacked(f"{PLAYER_TRIPS} {DEALER_TWO_PAIR}"))
    events = game.countdown_action(1)
    assert events == [FourCardDecision(1, "fold", 0, True)]


def test_four_card_progressive_on_the_best_four_five_card_on_the_five() -> None:
    # Four sevens: the best four is four of a kind (meter line); the five cards too (300 to 1).
    game = FourCardRound(RULES, "FCP-01")
    game.place_wagers(1, {"ante": 500, "four_card_progressive": 100, "five_card_progressive": 100})
    game.deal(Stacked(f"7S 7H 7D 7C 9S {DEALER_TWO_PAIR}"))
    game.decide(1, Action.PLAY, 3)
    events = settle(game)
    result = settled(events, 1)
    four = result["four_card_progressive"]
    assert four.from_meter == 100_000 and four.paid == 100 + 100_000  # 100% of $1,000
    assert result["five_card_progressive"].paid == 100 * 301
    assert result["ante_bonus"].paid == 25 * 500
    (step,) = [s for s in game.meter_steps() if s[0].id.endswith("four_card_progressive")]
    assert step[0].amount_cents == 100_000  # reset to its reseed amount


@pytest.mark.parametrize(
    ("wagers", "error", "words"),
    [
        ({"ante": 500, "four_card_progressive": 100, "play": 500}, RulesError, "not a Four Card"),
        ({"four_card_progressive": 100}, ActionNotAllowed, "Ante, an Aces Up"),
        ({"aces_up": 100, "five_card_progressive": 100}, ActionNotAllowed, "641b.1"),
        ({"ante": 500, "four_card_progressive": 200}, BetOutOfLimits, "fixed amount"),
        ({"ante": 400}, BetOutOfLimits, "minimum"),
    ],
)
def test_bad_wagers_are_refused_with_the_reason(
    wagers: dict[str, int], error: type[Exception], words: str
) -> None:
    game = FourCardRound(RULES, "FCP-01")
    with pytest.raises(error, match=words):
        game.place_wagers(1, wagers)
    assert game.seats == {}


def test_a_play_of_four_times_the_ante_is_refused() -> None:
    game = FourCardRound(RULES, "FCP-01")
    game.place_wagers(1, {"ante": 500})
    game.deal(Stacked(f"{PLAYER_TRIPS} {DEALER_TWO_PAIR}"))
    with pytest.raises(BetOutOfLimits, match="1, 2 or 3 times the Ante, not 4"):
        game.decide(1, Action.PLAY, 4)
    assert game.pending == (1,)


def _problems(change: Any) -> str:
    data = copy.deepcopy(DATA)
    change(data)
    with pytest.raises(ConfigError) as caught:
        build_table_config(data, "test")
    return str(caught.value)


def test_config_refuses_an_unknown_aces_up_paytable_naming_641a_1() -> None:
    text = _problems(lambda d: d["fourcard"]["aces_up"].update(paytable="50-40-10-6-4-2-1"))
    assert "fourcard.aces_up.paytable" in text and "641a.1" in text


def test_config_refuses_a_progressive_line_below_three_of_a_kind() -> None:
    text = _problems(
        lambda d: d["fourcard"]["four_card_progressive"]["pays"].update({"Two Pair": "1 to 1"})
    )
    assert "Two Pair" in text and "641a.6(b)" in text


def test_config_refuses_a_mystery_qualifier_and_configuration_outside_641b_1() -> None:
    text = _problems(lambda d: d["must_hit_by"].update(qualifying=["aces_up"], configuration="E"))
    assert "641b.1(c)(1)" in text and "641b.1(c)(4)" in text
    assert "must_hit_by.qualifying" in text and "must_hit_by.configuration" in text


def test_config_refuses_a_mystery_nobody_could_qualify_for_naming_641b_1() -> None:
    """A qualifying wager the table does not offer (641b.1(a)), or offers only below the
    configuration's minimum ((c)(1), (4)), is refused."""
    text = _problems(lambda d: d["fourcard"].pop("five_card_progressive"))
    assert "must_hit_by.qualifying" in text and "[fourcard.five_card_progressive]" in text
    assert "641b.1(a)" in text

    def below(d: dict[str, Any]) -> None:
        d["must_hit_by"]["minimum_wager"] = "5.00"
        d["fourcard"]["four_card_progressive"]["amounts"] = ["1.00", "2.00"]

    text = _problems(below)
    assert "must_hit_by.minimum_wager" in text and "641b.1(c)(1), (4)" in text
    assert "four_card_progressive amount" in text and "five_card_progressive" not in text


def test_the_logged_mystery_is_read_back_as_the_file_gave_it() -> None:
    """The logged config, back in the file's shape, builds the same table (recovery and
    verify read it so), the Must-Hit-By meter id included."""
    config = build_config(DATA, "test")
    again = build_config(file_shape(logged_config(config)), "log")
    assert again.rules == config.rules and again.rules.mystery is not None
    assert again.config_hash() == config.config_hash()


def test_config_refuses_a_progressive_that_returns_100_percent_or_more() -> None:
    text = _problems(
        lambda d: d["fourcard"]["four_card_progressive"]["pays"].update(
            {"Three of a Kind": "60 to 1"}
        )
    )
    assert "returns" in text and "100% or more is refused" in text


def test_replay_reproduces_a_round_and_refuses_a_changed_record() -> None:
    game = FourCardRound(RULES, "FCP-01")
    events = game.place_wagers(1, {"ante": 500, "four_card_progressive": 100})
    events += game.place_wagers(2, {"ante": 1000, "aces_up": 500})
    events += game.deal(Stacked(f"{PLAYER_TRIPS} AS AH 3D 4C 9H {DEALER_TWO_PAIR}"))
    events += game.decide(2, Action.PLAY, 1) + game.decide(1, Action.PLAY, 3)
    events += settle(game)
    again = replay(RULES, events, "FCP-01")
    assert again.phase is Phase.COMPLETE
    changed = [
        e._replace(paid=e.paid + 1) if type(e) is FourCardWagerSettled else e for e in events
    ]
    with pytest.raises(ReplayMismatch):
        replay(RULES, changed, "FCP-01")


@pytest.mark.parametrize(
    ("cards", "multiple"),
    [
        ("TS TH 2D 5C 8S", 3),  # a pair of 10s: 3 times
        ("9S 9H 2D 5C KS", 1),  # a pair of 9s: once
        ("3S 3H 2D 5C KS", 1),  # the threshold, a pair of 3s: once
        ("2S 2H 7D 5C KS", 0),  # a pair of 2s folds
        ("AS KH 7D 5C 3S", 0),  # no pair folds
        ("2S 3S 4S 9S KH", 3),  # a flush: 3 times
    ],
)
def test_the_simple_strategy_the_optimal_one_is_compared_with(cards: str, multiple: int) -> None:
    """The published simple strategy, as analysis.simple_decision states it for the par
    sheet's comparison (and the terminal's demo bot plays it)."""
    assert simple_decision(hand_value(parse_cards(cards))) == multiple


def test_the_live_demo_prints_the_dealers_cards_of_a_settled_round() -> None:
    """``etg demo --live`` tells each settled round from the log as every game's: the
    dealer's six cards and his hand, then each wager (the completion names its cards
    ``dealer_cards``, as the other games' do; the demo printed "dealer  (Pair)")."""
    from types import SimpleNamespace

    from game_server.rules.events import kind_of
    from tools.live_demo import round_lines

    game = FourCardRound(RULES, "FCP-01")
    events = game.place_wagers(1, {"ante": 500})
    events += game.deal(Stacked(f"{PLAYER_TRIPS} {DEALER_TWO_PAIR}"))
    events += game.decide(1, Action.PLAY, 1) + settle(game)
    logged = [
        SimpleNamespace(kind=kind_of(type(e)), terminal="T1", body=e._asdict(), round_id=7)
        for e in events
    ]
    lines = round_lines(logged)
    assert lines[0] == f"round 7: dealer {DEALER_TWO_PAIR} (Two Pair)", lines
    assert any(line.startswith("  T1 Ante: won") for line in lines[1:]), lines
