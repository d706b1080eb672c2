"""Caribbean Stud Poker (58 Pa. Code 639a, 639b.1): scenarios per paragraph through the
engine, the Rules Submission's refusals, the views (nothing hidden sent early), replay, the
Must-Hit-By meter shared with a Blackjack table (605a.8) and the exact math on a reduced
deck."""

from __future__ import annotations

import json
import tomllib
from itertools import combinations
from typing import Any

import pytest
from caribbean_table import config, make_session

from game_server.config import ConfigError, build_table_config, example_path
from game_server.games.caribbean.config import build_config
from game_server.games.caribbean.returns import caribbean_returns
from game_server.games.caribbean.rules.events import CaribbeanMysteryPaid, CaribbeanWagerSettled
from game_server.games.caribbean.rules.game import Action, CaribbeanRound, Phase, replay
from game_server.games.caribbean.rules.strategy import decide
from game_server.games.uth.rules.game import StackedDeck
from game_server.games.uth.rules.hands import category_counts
from game_server.rules.errors import RulesError
from game_server.rules.meters import Meter, MeterBank
from game_server.rules.poker import Category5, rank_hand
from shared.cards import parse_cards

RULES = config().rules


def deal(
    seats: dict[int, str], dealer: str, wagers: dict[str, int] | None = None
) -> CaribbeanRound:
    """A round with ``seats`` {seat: five cards} and the dealer's five, dealt one at a time."""
    game = CaribbeanRound(RULES, "T")
    for seat in seats:
        game.place_wagers(seat, wagers or {"ante": 500})
    hands = [parse_cards(seats[s]) for s in sorted(seats)] + [parse_cards(dealer)]
    order = [hand[i] for i in range(5) for hand in hands]
    game.deal(StackedDeck(order))
    return game


def settle(game: CaribbeanRound, actions: dict[int, Action]) -> dict[tuple[int, str], Any]:
    for seat, action in actions.items():
        game.decide(seat, action)
    assert game.phase is Phase.SHOWDOWN
    meters = {m: Meter.open(m, spec).meter for m, spec in RULES.meters().items()}
    events = game.settle(meters, None, None)
    return {(e.seat, e.wager): e for e in events if type(e) is CaribbeanWagerSettled}


def test_dealer_not_qualifying_pays_the_ante_and_pushes_the_bet() -> None:
    """639a.11 (secondary source): below ace-king the Ante pays 1 to 1, the Bet pushes."""
    out = settle(deal({1: "2C 2D 5H 9S JD"}, "KS QH 8D 6C 3S"), {1: Action.BET})
    assert (out[1, "ante"].paid, out[1, "bet"].paid) == (1000, 1000)
    assert out[1, "bet"].outcome == "pushed"


def test_beating_a_qualifying_dealer_pays_the_bet_by_the_paytable() -> None:
    """639a.12 Bet Wager paytable: a full house pays 7 to 1 on the Bet of twice the Ante."""
    out = settle(deal({1: "9C 9D 9H 4S 4D"}, "AS KH 8D 6C 3S"), {1: Action.BET})
    assert out[1, "ante"].paid == 1000 and out[1, "bet"].paid == 1000 * 8
    assert "Full house 7 to 1" in out[1, "bet"].line


def test_a_worse_hand_loses_both_a_tie_pushes_and_a_fold_loses_the_ante() -> None:
    game = deal({1: "AC KD 8H 6D 3C", 2: "AD KC 7H 5S 2D", 3: "2C 3D 5H 7S 9D"}, "AS KH 8D 6C 3S")
    out = settle(game, {1: Action.BET, 2: Action.BET, 3: Action.FOLD})
    assert out[1, "ante"].outcome == out[1, "bet"].outcome == "pushed"  # same ranks: a tie
    assert out[2, "ante"].paid == out[2, "bet"].paid == 0
    assert out[3, "ante"].line == "Fold (639a.1)" and (3, "bet") not in out


def test_progressive_pays_whatever_the_dealer_holds_and_the_envy_bonus() -> None:
    """639a.1 "Progressive Payout Hand" and "Envy Bonus": a royal flush takes 100% of the
    meter with the seat's Bet lost to nothing; the other seat gets its Envy Bonus."""
    wagers = {"ante": 500, "progressive": 100}
    game = deal({1: "AS KS QS JS TS", 2: "2C 3D 5H 7S 9D"}, "AH AD AC 8D 8C", wagers)
    out = settle(game, {1: Action.BET, 2: Action.BET})
    assert out[1, "progressive"].from_meter == 1_000_000 and out[1, "progressive"].paid == 1_000_100
    assert out[2, "progressive_envy"].paid == 50_000  # $500.00, the Rules Submission's line


def test_bad_input_is_refused_with_the_paragraph() -> None:
    game = CaribbeanRound(RULES, "T")
    with pytest.raises(RulesError, match=r"639b\.1"):
        game.place_wagers(1, {"progressive": 100})  # a Progressive without an Ante
    with pytest.raises(RulesError, match=r"639a\.7"):
        game.place_wagers(1, {"ante": 500, "progressive": 200})  # an amount not offered
    with pytest.raises(RulesError, match=r"639a\.1"):
        game.place_wagers(1, {"ante": 500, "bet": 1000})  # the Bet is a decision
    game.place_wagers(1, {"ante": 500})
    game.deal(StackedDeck(parse_cards("2C 2D 3C 3D 4C 4D 5C 5D 6C 6D")))
    with pytest.raises(RulesError, match="twice the Ante"):
        game.decide(1, Action.BET, 1500)  # a Bet other than 2x the Ante


def problems(change: Any) -> list[str]:
    data = tomllib.loads(example_path("caribbean.toml").read_text())
    change(data)
    with pytest.raises(ConfigError) as refused:
        build_table_config(data, "t")
    return refused.value.problems


def test_rules_submission_refusals_name_the_paragraph() -> None:
    def cited(change: Any, paragraph: str) -> bool:
        return any(paragraph in p for p in problems(change))

    assert cited(lambda d: d["must_hit_by"].update(configuration="E"), "639b.1(c)(4)")
    assert cited(lambda d: d["must_hit_by"].update(minimum_wager="3.00"), "639b.1(c)(4)")
    assert cited(lambda d: d["must_hit_by"].update(minimum_wager="5.00"), "639b.1(c)(1)")
    # Only the Progressive Payout Wager qualifies at this table (the shared reader, 639b.1).
    assert cited(lambda d: d["must_hit_by"].update(qualifying=["blazing_7s"]), "639b.1(c)(1)")
    assert cited(lambda d: d["must_hit_by"].update(qualifying=[]), "639b.1(c)(1)")
    assert cited(lambda d: d["caribbean"]["progressive"]["lines"].update(Pair="5 for 1"), "639a.1")
    assert cited(lambda d: d["caribbean"]["five_card"].update(meter_seed="100.00"), "653a.12(e)(4)")
    assert cited(lambda d: d["caribbean"].pop("progressive"), "639b.1(a)")
    # The player-edge guard: a Progressive paytable returning 100% or more is refused.
    assert cited(
        lambda d: d["caribbean"]["progressive"]["lines"].update(Flush="5000 for 1"), "returns"
    )


def test_logged_config_round_trips() -> None:
    from game_server.games.caribbean.config import file_shape, logged_config

    table = config()
    assert build_config(file_shape(logged_config(table)), "again") == table


def scan(view: dict[str, Any], hidden: set[str]) -> None:
    text = json.dumps(view)
    leaked = {card for card in hidden if f'"{card}"' in text}
    assert not leaked, leaked


def test_views_never_send_the_dealers_hole_cards_early_nor_other_seats_cards() -> None:
    from twisted.internet import task

    from game_server.games.caribbean.machine import CaribbeanMachine

    clock = task.Clock()
    machine = CaribbeanMachine(make_session(seed=3), clock, next_round_delay=1.0)
    machine.open()
    machine.place_wagers("T1", {"ante": 500, "progressive": 100})
    machine.place_wagers("T2", {"ante": 500})
    clock.advance(16)
    game = machine.session.round
    assert game is not None and game.phase is Phase.DECIDING
    holes = {str(c) for c in game.dealer[1:]}
    t1 = {str(c) for c in game.seats[1].cards}
    t2 = {str(c) for c in game.seats[2].cards}
    scan(machine.view("T1"), holes | t2)
    scan(machine.view("T2"), holes | t1)
    scan(machine.view("T3"), holes | t1 | t2)
    assert "trigger" not in json.dumps(machine.view("T1"))
    machine.act("T1", "bet", 0, None)
    scan(machine.view("T1"), holes | t2)  # T2 has not decided: no showdown yet
    clock.advance(16)  # the countdown folds T2; the round settles
    after = machine.view("T1")
    assert after["dealer"]["cards"] == [str(c) for c in game.dealer]
    scan(after, t2)
    assert any(s["wager"] == "ante" for s in after["settlements"])


def test_replay_reproduces_a_logged_round() -> None:
    session = make_session(seed=5)
    session.start_round()
    placed = session.place_wagers("T1", {"ante": 500, "progressive": 100, "five_card_player": 100})
    placed += session.place_wagers("T2", {"ante": 1000})
    dealt = session.deal()
    rest = session.decide("T1", Action.BET) + session.countdown("T2")
    engine = [e for e in placed + dealt + rest if type(e).__name__.startswith("Caribbean")]
    engine = [e for e in engine if type(e) is not CaribbeanMysteryPaid]
    game = replay(RULES, engine, "CSP-01")
    assert game.phase is Phase.COMPLETE
    with pytest.raises(RulesError):
        replay(RULES, [*engine[:-1], engine[-1]._replace(dealer_hand="Flush")], "CSP-01")


def test_must_hit_by_is_shared_with_a_blackjack_table_of_the_same_server() -> None:
    """605a.8: both Rules Submissions link ``meter = "floor:mystery"``, Configuration A $1:
    the Caribbean table opens it (its trigger drawn), the Blackjack table links to the same
    meter; the Caribbean contributions raise the one meter both show."""
    from game_server.games.blackjack.session import TableSession
    from game_server.table.session import MemorySink, SealedShoes, simulation_seeds

    link = '\nmeter = "floor:mystery"\n'
    carib_text = (
        example_path("caribbean.toml")
        .read_text()
        .replace('minimum_wager = "1.00"', 'minimum_wager = "1.00"' + link)
    )
    carib = build_config(tomllib.loads(carib_text), "csp")
    bank = MeterBank()
    make_session(carib, meters=bank)
    bj_text = example_path("fully-automated-all-side-wagers.toml").read_text()
    if "[must_hit_by]" not in bj_text:
        bj_text += (
            '\n[must_hit_by]\nconfiguration = "A"\nminimum_wager = "1.00"\n'
            'qualifying = ["blazing_7s"]' + link
        )
    from game_server.config import parse_config

    bj = parse_config(bj_text, "bj")
    assert bj.must_hit_by is not None and bj.must_hit_by.meter == "floor:mystery"
    shoes = SealedShoes(bj, simulation_seeds(1, bj.table_id), bytes(32), "k")
    TableSession(bj, MemorySink(), shoes, {"B1": 1}, bank).open()
    before = bank.meter("floor:mystery")
    assert before.trigger is not None
    spec = carib.must_hit_by.spec() if carib.must_hit_by else None
    assert spec is not None and bj.must_hit_by.spec() == spec
    session = make_session(carib, seed=9, meters=bank)
    session.start_round()
    session.place_wagers("T1", {"ante": 500, "progressive": 100})
    session.deal()
    after = bank.meter("floor:mystery")
    # The $1.00 Progressive Payout Wager feeds the one meter at the configuration's rate
    # (millicents: 100 cents x rate in basis points / 10,000 x 1,000).
    assert after.amount == before.amount + 100 * spec.increment_bp // 10
    assert after.trigger == before.trigger


def test_must_hit_by_award_is_paid_to_the_crossing_players_wallet() -> None:
    """639b.1(c)(3), (7): the contribution that takes the meter above its trigger wins the
    whole amount, paid to that player's wallet; the meter resets to its minimum and a new
    trigger is drawn. The trigger is set at the minimum (a draw of 0) so that the first
    qualifying contribution crosses it."""
    from game_server.rules.wagers import must_hit_by

    carib = config()
    assert carib.must_hit_by is not None
    spec = carib.must_hit_by.spec()
    bank = MeterBank()
    meter_id = f"{carib.table_id}:must_hit_by"
    bank.commit(must_hit_by.open_meter(meter_id, spec, lambda n: 0))
    assert bank.meter(meter_id).trigger == spec.seed
    session = make_session(carib, seed=9, meters=bank)
    assert session.mystery_id == meter_id
    credits = session.balance("T1")
    session.start_round()
    session.place_wagers("T1", {"ante": 500, "progressive": 100})
    session.place_wagers("T2", {"ante": 500, "progressive": 100})
    events = session.deal()
    award = spec.seed + 100 * spec.increment_bp // 10_000
    paid = [e for e in events if type(e).__name__ == "CaribbeanMysteryPaid"]
    assert [(e.seat, e.paid) for e in paid] == [(1, award)]  # T1 crossed first, in seat order
    assert session.balance("T1") == credits - 600 + award
    meter = bank.meter(meter_id)
    # Reset to the minimum, then T2's contribution; a new trigger in the range.
    assert meter.amount == spec.seed * 1000 + 100 * spec.increment_bp // 10
    assert meter.trigger is not None and spec.seed <= meter.trigger <= spec.must_hit_by


def test_strategy_follows_the_published_rules() -> None:
    assert decide(parse_cards("2C 2D 5H 9S JD"), parse_cards("AS")[0]) is Action.BET
    assert decide(parse_cards("AC QD 5H 9S JD"), parse_cards("AS")[0]) is Action.FOLD
    assert decide(parse_cards("AC KD 5H 9S JD"), parse_cards("9H")[0]) is Action.BET  # matches
    assert decide(parse_cards("AC KD 5H 8S 3D"), parse_cards("KH")[0]) is Action.FOLD


def test_category_counts_match_brute_force_on_a_reduced_deck() -> None:
    """The exact counts the returns use, checked by enumerating every five-card hand of a
    deck of eight ranks (56 choose... 32 cards) with the poker ranker."""
    ranks = (2, 3, 4, 5, 6, 7, 8, 14)
    deck = [
        c
        for c in parse_cards(" ".join(f"{'A' if r == 14 else r}{s}" for r in ranks for s in "CDHS"))
    ]
    brute: dict[int, int] = {}
    for hand in combinations(deck, 5):
        cat = int(rank_hand(hand).category)
        brute[cat] = brute.get(cat, 0) + 1
    counted = category_counts(5, ranks)
    assert {k: v for k, v in counted.items() if v} == brute
    assert brute[int(Category5.STRAIGHT_FLUSH)] > 0


def test_example_returns_are_below_one() -> None:
    table = config()
    for ret in caribbean_returns(table.rules, table.must_hit_by):
        assert 0 < ret.long_run < 1, ret


def _five_card_rules(bonus: str) -> Any:
    from dataclasses import replace

    from game_server.games.caribbean.rules.rules import FiveCardBonus

    assert RULES.five_card is not None
    return replace(RULES, five_card=replace(RULES.five_card, bonus=FiveCardBonus(bonus)))


def _settle_five_card(
    rules: Any, magic: str | None, lucky: int | None
) -> dict[tuple[int, str], Any]:
    """Seat 1 holds a flush (50 for 1), seat 2 nothing; both wager $1 on their own hand and
    seat 2 $5 on the dealer's (a pair: no line)."""
    game = CaribbeanRound(rules, "T")
    game.place_wagers(1, {"ante": 500, "five_card_player": 100})
    game.place_wagers(2, {"ante": 500, "five_card_player": 100, "five_card_dealer": 500})
    hands = [parse_cards(h) for h in ("2H 5H 8H JH KH", "3C 6D 9S QC 4D", "AS AD 7C TD 2S")]
    game.deal(StackedDeck([hand[i] for i in range(5) for hand in hands]))
    game.decide(1, Action.BET)
    game.decide(2, Action.FOLD)
    meters = {m: Meter.open(m, spec).meter for m, spec in rules.meters().items()}
    card = None if magic is None else parse_cards(magic)[0]
    events = game.settle(meters, card, lucky)
    return {(e.seat, e.wager): e for e in events if type(e) is CaribbeanWagerSettled}


def test_five_card_hand_bonus_with_the_magic_card() -> None:
    """639a.1; 653a.12(e)(1), (3): the flush pays 50 for 1; the Magic Card among the
    player's five cards adds 20 for 1 less the stake the line returned (19 x $1); a hand
    that won no line gets no Magic Card on ``winning-hand``; a folded hand's wager is lost."""
    out = _settle_five_card(_five_card_rules("magic-card"), "KH", None)
    assert out[1, "five_card_player"].paid == 50 * 100
    assert out[1, "five_card_player_magic_card"].paid == 19 * 100
    assert out[1, "five_card_player_magic_card"].stake == 0
    assert out[2, "five_card_player"].line == "Fold (639a.1)"
    assert out[2, "five_card_dealer"].paid == 0  # the dealer's pair wins no line
    assert (2, "five_card_dealer_magic_card") not in out
    # The Magic Card in no hand that won pays nothing more.
    out = _settle_five_card(_five_card_rules("magic-card"), "AS", None)
    assert not [k for k in out if k[1].endswith("_magic_card")]


def test_five_card_hand_bonus_with_the_lucky_bonus() -> None:
    """639a.1; 653a.12(e)(3): the Lucky position drawn is seat 1's: 5 for 1 less the stake
    (4 x $1) on its winning flush; drawn at the dealer (0) it pays nothing on a losing hand."""
    out = _settle_five_card(_five_card_rules("lucky-bonus"), None, 1)
    assert out[1, "five_card_player"].paid == 50 * 100
    assert out[1, "five_card_player_lucky_bonus"].paid == 4 * 100
    out = _settle_five_card(_five_card_rules("lucky-bonus"), None, 0)
    assert not [k for k in out if k[1].endswith("_lucky_bonus")]
