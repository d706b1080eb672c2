"""Four Card Poker's Envy Bonuses (58 Pa. Code 641a.1 "Four-Card Envy Bonus", "Five-Card
Envy Bonus" and their Qualifying Hands): the settlement with stacked decks, its replay, the
Rules Submission's refusals naming 641a.1, the logged form, the exact return the player-edge
guard reads and the simulator's report.

641a.1: "An additional fixed sum payout made to a player who placed a Four-Card [Five-Card]
Progressive Payout Wager when another player at the Four Card Poker table is the holder of a
Four-Card [Five-Card] Envy Bonus Qualifying Hand"; the Four-Card hand is "four-of-a-kind or
better or a straight flush or better ... depending on the paytable selected", the Five-Card
hand "a straight flush or better". The sums (641a.12) are not held: Rules Submission data.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from game_server.config import ConfigError, build_table_config
from game_server.games.fourcard.config import build_config, file_shape, logged_config
from game_server.games.fourcard.rules.events import FourCardWagerSettled
from game_server.games.fourcard.rules.game import FOURCARD_KINDS, Action, FourCardRound, replay
from game_server.games.fourcard.rules.returns import fourcard_returns
from game_server.games.fourcard.sim import tally
from game_server.rules.wagers.base import WON
from game_server.sim import SimResult
from tests.games.fourcard.test_fourcard_rules import DATA, RULES, Stacked, settle

#: The example Rules Submission's Envy sums (cents), as its file states them.
FOUR_ENVY = {"Four of a Kind": 2500, "Straight Flush": 1000}
FIVE_ENVY = {"Royal Flush": 50000, "Straight Flush": 5000}
BOTH = {"ante": 500, "four_card_progressive": 100, "five_card_progressive": 100}
QUADS = "9S 9H 9D 9C 2S"
ROYAL = "AS KS QS JS TS"  # five cards a royal flush; its best four an ace-high straight flush
NOTHING_1 = "2H 5D 8C JH KD"
NOTHING_2 = "3H 6D 7C QH 4D"
DEALER = "AH AD KH QD 8D 7H"


def envies(events: list[Any], seat: int) -> list[FourCardWagerSettled]:
    return [
        e
        for e in events
        if type(e) is FourCardWagerSettled and e.seat == seat and e.wager.endswith("_envy")
    ]


def round_of(seats: dict[int, dict[str, int]], cards: str, fold: tuple[int, ...] = ()) -> Any:
    game = FourCardRound(RULES, "FCP-01")
    out: list[Any] = []
    for seat, wagers in seats.items():
        out += game.place_wagers(seat, wagers)
    out += game.deal(Stacked(cards))
    for seat in game.pending:
        action = Action.FOLD if seat in fold else Action.PLAY
        out += game.decide(seat, action, 0 if seat in fold else 1)
    out += settle(game)
    return game, out


def test_seat_2_is_paid_the_four_card_envy_for_seat_1s_four_of_a_kind_not_seat_1() -> None:
    """641a.1: the Envy goes to *another* player's progressive; the holder's own hand pays
    its progressive line, never its own Envy; a seat without the progressive gets nothing."""
    _, events = round_of(
        {1: BOTH, 2: BOTH, 3: {"ante": 500}},
        f"{QUADS} {NOTHING_1} {NOTHING_2} {DEALER}",
    )
    (paid,) = envies(events, 2)
    assert paid.wager == "four_card_envy" and paid.outcome == WON
    assert (paid.stake, paid.paid, paid.from_meter) == (0, FOUR_ENVY["Four of a Kind"], 0)
    assert paid.line == "Four-Card Envy Bonus: Four of a Kind at seat 1 $25.00 (641a.1)"
    assert envies(events, 1) == []  # its own four of a kind: the progressive pays it
    own = [e for e in events if type(e) is FourCardWagerSettled and e.seat == 1]
    assert any(e.wager == "four_card_progressive" and e.from_meter > 0 for e in own)
    assert envies(events, 3) == []  # no progressive placed: no Envy Bonus
    # Four of a kind is not a straight flush: no Five-Card Envy Bonus.
    assert all(e.wager != "five_card_envy" for e in events if type(e) is FourCardWagerSettled)


def test_a_royal_flush_pays_both_envies_each_for_its_own_ranking() -> None:
    """Seat 1's five cards are a royal flush (Five-Card: 641a.6(d)) and its best four an
    ace-high straight flush (Four-Card: 641a.6(b)): seat 2 (both progressives) is paid both
    Envy Bonuses; seat 3 (the Four-Card one only) only the Four-Card one."""
    _, events = round_of(
        {1: BOTH, 2: BOTH, 3: {"ante": 500, "four_card_progressive": 500}},
        f"{ROYAL} {NOTHING_1} {NOTHING_2} {DEALER}",
    )
    assert [(e.wager, e.paid) for e in envies(events, 2)] == [
        ("four_card_envy", FOUR_ENVY["Straight Flush"]),
        ("five_card_envy", FIVE_ENVY["Royal Flush"]),
    ]
    # A fixed sum: the same for the $5 wager as for the $1 one.
    assert [(e.wager, e.paid) for e in envies(events, 3)] == [
        ("four_card_envy", FOUR_ENVY["Straight Flush"])
    ]
    assert envies(events, 1) == []


def test_each_qualifying_hand_at_another_seat_pays_once_folded_or_not() -> None:
    """Two other holders, one of them folded, pay seat 3 twice; seat 3 itself folded and is
    paid all the same (the progressive wagers settle folded or not). Seats 1 and 2 are paid
    each other's hand only."""
    quads_2 = "5S 5H 5D 5C 3S"
    _, events = round_of(
        {1: BOTH, 2: BOTH, 3: BOTH},
        f"{QUADS} {quads_2} {NOTHING_2} {DEALER}",
        fold=(2, 3),
    )
    assert [e.line for e in envies(events, 3)] == [
        "Four-Card Envy Bonus: Four of a Kind at seat 1 $25.00 (641a.1)",
        "Four-Card Envy Bonus: Four of a Kind at seat 2 $25.00 (641a.1)",
    ]
    assert [e.line.split(": ")[1] for e in envies(events, 1)] == [
        "Four of a Kind at seat 2 $25.00 (641a.1)"
    ]
    assert [e.line.split(": ")[1] for e in envies(events, 2)] == [
        "Four of a Kind at seat 1 $25.00 (641a.1)"
    ]


def test_a_four_of_a_kind_only_table_pays_no_envy_for_a_straight_flush() -> None:
    """ "depending on the paytable selected": with "Four of a Kind" alone the Qualifying Hand
    is four of a kind or better, which a straight flush is not (641a.6(b))."""
    data = copy.deepcopy(DATA)
    data["fourcard"]["four_card_envy"] = {"Four of a Kind": "25.00"}
    rules = build_config(data, "four of a kind only").rules
    game = FourCardRound(rules, "FCP-01")
    game.place_wagers(1, BOTH)
    game.place_wagers(2, BOTH)
    game.deal(Stacked(f"8S 7S 6S 5S 2D {NOTHING_1} {DEALER}"))
    for seat in game.pending:
        game.decide(seat, Action.PLAY, 1)
    meters = {m: s for m, s in ((m, _open(rules, m)) for m in game.meter_ids_needed())}
    assert envies(game.settle(meters), 2) == []


def _open(rules: Any, meter_id: str) -> Any:
    from game_server.rules.meters import Meter

    return Meter.open(meter_id, rules.meters()[meter_id]).meter


def test_a_round_with_envy_bonuses_replays_exactly() -> None:
    game, events = round_of(
        {1: BOTH, 2: BOTH, 4: {"aces_up": 100}}, f"{ROYAL} {QUADS} {NOTHING_2} {DEALER}"
    )
    assert envies(events, 1) and envies(events, 2)
    # As etg verify hands them over: the engine's records (the meters' are the platform's).
    events = [e for e in events if type(e) in FOURCARD_KINDS]
    replayed = replay(RULES, events, "FCP-01")
    assert replayed.phase is game.phase and replayed.seats == game.seats
    tampered = [
        e._replace(paid=e.paid + 1)
        if type(e) is FourCardWagerSettled and e.wager.endswith("_envy")
        else e
        for e in events
    ]
    with pytest.raises(Exception, match=r"(?i)replay|differ|mismatch"):
        replay(RULES, tampered, "FCP-01")


# ------------------------------------------------------------- the Rules Submission


def refused(change: dict[str, Any], remove: tuple[str, ...] = ()) -> str:
    data = copy.deepcopy(DATA)
    data["fourcard"].update(change)
    for key in remove:  # a key of the game's section, or a table of its own ([must_hit_by])
        del (data["fourcard"] if key in data["fourcard"] else data)[key]
    with pytest.raises(ConfigError) as caught:
        build_table_config(data, "test")
    return str(caught.value)


def test_an_envy_bonus_without_its_progressive_is_refused_naming_641a_1() -> None:
    text = refused({}, remove=("four_card_progressive", "must_hit_by"))
    assert "fourcard.four_card_envy" in text and "641a.1" in text
    assert "Four-Card Progressive Payout Wager" in text


@pytest.mark.parametrize(
    ("key", "table", "words"),
    [
        ("four_card_envy", {"Three of a Kind": "5.00"}, "is not a Four-Card Envy Bonus Qualifying"),
        ("four_card_envy", {"Straight Flush": "10.00"}, "names no sum for Four of a Kind"),
        ("five_card_envy", {"Royal Flush": "500.00"}, "names no sum for Straight Flush"),
        ("five_card_envy", {"Four of a Kind": "50.00"}, "is not a Five-Card Envy Bonus Qualifying"),
        ("five_card_envy", {"Royal Flush": 500, "Straight Flush": "5.00"}, "string of dollars"),
        ("five_card_envy", {"Royal Flush": "0.00", "Straight Flush": "5.00"}, "five_card_envy"),
        ("four_card_envy", "25.00", "state the fixed sum per Qualifying Hand"),
    ],
)
def test_a_wrong_envy_table_is_refused_naming_its_field(key: str, table: Any, words: str) -> None:
    text = refused({key: table})
    assert f"fourcard.{key}" in text and words in text
    if "dollars" not in words and "0.00" not in str(table):
        assert "641a.1" in text


def test_the_player_edge_guard_refuses_an_envy_that_returns_100_percent() -> None:
    text = refused({"four_card_envy": {"Four of a Kind": "1000.00", "Straight Flush": "500.00"}})
    assert "fourcard.four_card_progressive" in text and "100%" in text


def test_the_logged_config_reads_back_with_its_envy_sums() -> None:
    config = build_config(DATA, "example")
    logged = logged_config(config)
    assert logged["fourcard"]["four_card_envy"] == FOUR_ENVY
    assert logged["fourcard"]["five_card_envy"] == FIVE_ENVY
    assert build_config(file_shape(logged), "logged").rules == config.rules


# ------------------------------------------------------------------ the return


def test_the_envy_adds_its_exact_expectation_at_a_full_table() -> None:
    """Each other seat's five cards are five cards of the deck: the expected Envy per $1 is
    (seats - 1) x sum of P(hand) x sum / $1, the hands counted independently here."""
    total = 2_598_960
    quads = 13 * 48  # four of a kind among five cards (its best four: the same hands)
    royal, straight_flush_5 = 4, 36
    # A four-card straight flush (4 suits x 11 runs, A-2-3-4 to J-Q-K-A) with any fifth card,
    # less the 40 five-card straight flushes, each of which holds two such runs and was
    # counted twice; four suited cards and one more never hold four of a kind.
    straight_flush_4 = 4 * 11 * 48 - 40
    seats = RULES.seats
    with_envy = {r.wager: r for r in fourcard_returns(RULES)}
    bare = build_config(_without_envy(), "bare").rules
    without = {r.wager: r for r in fourcard_returns(bare)}
    four = Fraction(seats - 1, total) * (quads * 2500 + straight_flush_4 * 1000) / 100
    five = Fraction(seats - 1, total) * (royal * 50000 + straight_flush_5 * 5000) / 100
    for wager, extra in (("four_card_progressive", four), ("five_card_progressive", five)):
        got = with_envy[wager].at_reset - without[wager].at_reset
        assert got == pytest.approx(float(extra), abs=1e-12)
        assert any("Envy Bonus" in line.line for line in with_envy[wager].lines)


def _without_envy() -> dict[str, Any]:
    data = copy.deepcopy(DATA)
    del data["fourcard"]["four_card_envy"], data["fourcard"]["five_card_envy"]
    return data


def test_the_simulator_reports_each_envy_with_its_progressive() -> None:
    _, events = round_of({1: BOTH, 2: BOTH}, f"{QUADS} {NOTHING_1} {DEALER}")
    result = SimResult()
    tally(events, result)
    assert "four_card_envy" not in result.wagers
    paid = result.wagers["four_card_progressive"].paid
    assert paid > 0 and paid == sum(
        e.paid
        for e in events
        if type(e) is FourCardWagerSettled and e.wager.startswith("four_card")
    )
