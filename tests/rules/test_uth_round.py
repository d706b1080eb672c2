"""Ultimate Texas Hold 'Em rounds on stacked decks (game_server.games.uth.rules.game): each
scenario names the paragraph of 58 Pa. Code 653a.12 (or the notes' procedure where 653a.7 and
653a.11 are not held) whose result it checks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from game_server.games.uth.rules.events import (
    UthCardDealt,
    UthDealerRevealed,
    UthPayoutCapped,
    UthStreetStarted,
    UthWagerSettled,
)
from game_server.games.uth.rules.game import Action, Phase, StackedDeck, UthRound
from game_server.games.uth.rules.rules import BonusOn, UthRules
from game_server.rules.errors import ActionNotAllowed, WrongPhase
from game_server.rules.meters import Meter, MeterAwarded, MeterReseeded
from game_server.rules.wagers.base import MeterSpec
from shared.cards import Card, parse_cards

PROGRESSIVE_SPEC = MeterSpec("Progressive Payout", 1_000_000, 1_000_000, 1_500)
FIVE_CARD_SPEC = MeterSpec("Five Card Hand Bonus", 2_000_000, 1_000_000, 1_500)


def rules(**kw: Any) -> UthRules:
    base: dict[str, Any] = {
        "progressive_amounts": (100, 500),
        "progressive_meter": PROGRESSIVE_SPEC,
        "five_card_amounts": (100, 500),
        "five_card_meter": FIVE_CARD_SPEC,
    }
    base.update(kw)
    return UthRules(**base)


def stack(seats: Mapping[int, str], dealer: str, board: str) -> StackedDeck:
    """The deck in dealing order: a card to each seat (ascending) and the dealer, twice,
    then the five community cards."""
    hands = {n: parse_cards(text) for n, text in sorted(seats.items())}
    dealt = parse_cards(dealer)
    order: list[Card] = []
    for i in range(2):
        order.extend(cards[i] for cards in hands.values())
        order.append(dealt[i])
    order.extend(parse_cards(board))
    assert len(set(order)) == len(order), "a stacked deck holds each card once"
    return StackedDeck(order)


def meters(game: UthRound) -> dict[str, Meter]:
    return {mid: Meter.open(mid, spec).meter for mid, spec in game.rules.meters().items()}


def play_round(
    game: UthRound,
    wagers: Mapping[int, Mapping[str, int]],
    deck: StackedDeck,
    decisions: Mapping[int, tuple[tuple[Action, int], ...]] | None = None,
    **settle: Any,
) -> list[Any]:
    """Place, deal, decide (default: Play 4x preflop) and settle; returns every event."""
    events: list[Any] = []
    for seat, w in wagers.items():
        events += game.place_wagers(seat, w)
    events += game.deal(deck)
    decisions = decisions or {}
    plans = {seat: list(decisions.get(seat, ((Action.PLAY, 4),))) for seat in wagers}
    while game.phase in (Phase.PREFLOP, Phase.FLOP, Phase.RIVER):
        for seat in game.pending:
            action, multiple = plans[seat].pop(0)
            events += game.decide(seat, action, multiple)
    if "meters" not in settle:
        settle["meters"] = meters(game)
    events += game.settle(**settle)
    return events


def settled(events: list[Any], seat: int) -> dict[str, UthWagerSettled]:
    return {e.wager: e for e in events if type(e) is UthWagerSettled and e.seat == seat}


def paid(events: list[Any], seat: int) -> dict[str, int]:
    return {name: e.paid for name, e in settled(events, seat).items()}


ANTE = {"ante": 1000, "blind": 1000}


# ---------------------------------------------------------------- 653a.12(a), (b)


def test_653a_12_a_ante_and_play_pay_1_to_1_when_the_player_beats_a_qualifying_dealer() -> None:
    """653a.12(a): Ante and Play win 1 to 1; 653a.12(b): a pair does not reach the Blind
    paytable, so the Blind pushes (Paytable A "Less than a straight")."""
    game = UthRound(rules())
    events = play_round(game, {1: ANTE}, stack({1: "AS AD"}, "KS KD", "2C 7H 9S JD 4C"))
    assert paid(events, 1) == {"ante": 2000, "blind": 1000, "play": 8000}
    revealed = next(e for e in events if type(e) is UthDealerRevealed)
    assert revealed.qualifies and revealed.hand == "Pair"
    assert "Less than a straight" in settled(events, 1)["blind"].line


def test_ante_pushes_when_the_dealer_does_not_qualify() -> None:
    """The dealer needs a pair or better; otherwise the Ante pushes and the Play and Blind
    are settled (regs-653a.md: 653a.11 not held)."""
    game = UthRound(rules())
    events = play_round(game, {1: ANTE}, stack({1: "AS KD"}, "QS 3D", "2C 7H 9S JD 4C"))
    assert paid(events, 1) == {"ante": 1000, "blind": 1000, "play": 8000}
    assert settled(events, 1)["ante"].outcome == "pushed"


def test_ante_pushes_but_blind_and_play_lose_to_a_non_qualifying_dealer_that_wins() -> None:
    """A dealer who does not qualify still beats a lower hand: the Ante pushes, the Blind
    and Play lose."""
    game = UthRound(rules())
    events = play_round(game, {1: ANTE}, stack({1: "KS QD"}, "AS 3D", "2C 7H 9S JD 4C"))
    assert paid(events, 1) == {"ante": 1000, "blind": 0, "play": 0}


def test_a_tie_pushes_ante_blind_and_play() -> None:
    """Equal hands push the Ante, Blind and Play (regs-653a.md)."""
    game = UthRound(rules())
    events = play_round(game, {1: ANTE}, stack({1: "2S 3D"}, "2H 3C", "AC KH QS JD 9C"))
    assert paid(events, 1) == {"ante": 1000, "blind": 1000, "play": 4000}
    assert all(e.outcome == "pushed" for e in settled(events, 1).values())


def test_a_losing_hand_loses_ante_blind_and_play() -> None:
    """A hand below the dealer's loses the Ante, Blind and Play."""
    game = UthRound(rules())
    events = play_round(game, {1: ANTE}, stack({1: "KS QD"}, "AS AD", "2C 7H 9S JD 4C"))
    assert paid(events, 1) == {"ante": 0, "blind": 0, "play": 0}


def test_653a_12_b_paytable_a_pays_a_straight_1_to_1_and_paytable_b_pushes_it() -> None:
    """653a.12(b): a winning straight pays the Blind 1 to 1 on Paytable A and pushes on
    Paytable B ("Less than a flush")."""
    deck = ("8S 9D", "KS KD", "TC JH QS 2D 3C")
    a = play_round(UthRound(rules()), {1: ANTE}, stack({1: deck[0]}, deck[1], deck[2]))
    b_rules = rules(blind_paytable="Paytable B")
    b = play_round(UthRound(b_rules), {1: ANTE}, stack({1: deck[0]}, deck[1], deck[2]))
    assert paid(a, 1)["blind"] == 2000
    assert paid(b, 1)["blind"] == 1000 and "Less than a flush" in settled(b, 1)["blind"].line


def test_653a_12_b_flush_pays_3_to_2_exactly() -> None:
    """653a.12(b): a winning flush pays the Blind 3 to 2: $5 wins $7.50."""
    game = UthRound(rules())
    wagers = {1: {"ante": 500, "blind": 500}}
    events = play_round(game, wagers, stack({1: "AH 4H"}, "KS KD", "2H 7H 9H JD 4C"))
    assert paid(events, 1)["blind"] == 500 + 750


def test_653a_12_b_blind_royal_flush_pays_500_to_1() -> None:
    """653a.12(b): a winning royal flush pays the Blind 500 to 1."""
    game = UthRound(rules())
    events = play_round(game, {1: ANTE}, stack({1: "AH KH"}, "KS KD", "QH JH TH 2D 4C"))
    assert paid(events, 1)["blind"] == 1000 + 500_000


def test_blind_loses_when_the_dealer_beats_a_straight() -> None:
    """653a.12(b) pays only a winning Blind: a straight that loses to a flush loses."""
    game = UthRound(rules())
    events = play_round(game, {1: ANTE}, stack({1: "8S 9D"}, "2C 5C", "TC JC QS 2D 3C"))
    assert paid(events, 1) == {"ante": 0, "blind": 0, "play": 0}


# -------------------------------------------------------------------------- 653a.12(c)


@pytest.mark.parametrize(("paytable", "pays"), [("A", 9), ("B", 8), ("C", 8), ("D", 7)])
def test_653a_12_c_trips_pays_a_full_house_per_its_paytable(paytable: str, pays: int) -> None:
    """653a.12(c): a full house pays the Trips Wager 9, 8, 8 or 7 to 1 on Paytable A-D."""
    game = UthRound(rules(trips_paytable=f"Paytable {paytable}"))
    wagers = {1: {**ANTE, "trips": 500}}
    events = play_round(game, wagers, stack({1: "9S 9D"}, "2S 3D", "9C KH KS 5D 7C"))
    assert paid(events, 1)["trips"] == 500 * (pays + 1)
    assert f"Paytable {paytable}: Full house" in settled(events, 1)["trips"].line


def test_653a_12_c_trips_pays_regardless_of_the_dealer() -> None:
    """653a.12(c): Trips pays on the player's hand even when the dealer's hand wins."""
    game = UthRound(rules())
    wagers = {1: {**ANTE, "trips": 500}}
    events = play_round(game, wagers, stack({1: "5S 5D"}, "AS AD", "5C AH KS 2D 7C"))
    assert paid(events, 1) == {"ante": 0, "blind": 0, "play": 0, "trips": 2000}


def test_653a_12_c_trips_below_three_of_a_kind_loses() -> None:
    """653a.12(c): two pair is not on the Trips paytable."""
    game = UthRound(rules())
    wagers = {1: {**ANTE, "trips": 500}}
    events = play_round(game, wagers, stack({1: "5S 7D"}, "2S 3D", "5C 7H KS QD 9C"))
    assert paid(events, 1)["trips"] == 0


def test_a_folded_hand_loses_ante_and_blind_but_trips_still_pays() -> None:
    """Folding at the river loses the Ante and Blind; the Trips Wager is still paid on the
    player's hand (653a.12(c) has no condition on the Play Wager)."""
    game = UthRound(rules())
    wagers = {1: {**ANTE, "trips": 500}}
    decisions = {1: ((Action.CHECK, 0), (Action.CHECK, 0), (Action.FOLD, 0))}
    deck = stack({1: "5S 2D"}, "AS AD", "5C 5H KS 9D 7C")
    events = play_round(game, wagers, deck, decisions)
    assert paid(events, 1) == {"ante": 0, "blind": 0, "trips": 2000}
    assert settled(events, 1)["ante"].line.startswith("Fold")


def test_a_rules_submission_may_forfeit_side_wagers_on_a_fold() -> None:
    """With side_wagers_settle_on_fold off, a folded hand loses its Trips Wager too."""
    game = UthRound(rules(side_wagers_settle_on_fold=False))
    wagers = {1: {**ANTE, "trips": 500, "progressive": 100}}
    decisions = {1: ((Action.CHECK, 0), (Action.CHECK, 0), (Action.FOLD, 0))}
    events = play_round(game, wagers, stack({1: "5S 5D"}, "AS AD", "5C 6H KS 9D 7C"), decisions)
    assert paid(events, 1) == {"ante": 0, "blind": 0, "trips": 0, "progressive": 0}


# -------------------------------------------------------------------------- 653a.12(d)


def test_653a_12_d_2_progressive_pays_only_on_the_two_cards_and_the_flop() -> None:
    """653a.12(d)(2): a flush completed on the turn does not win the Progressive Payout;
    one made with the flop pays 40 for 1 (653a.12(d)(1))."""
    late = play_round(
        UthRound(rules()),
        {1: {**ANTE, "progressive": 100}},
        stack({1: "AH 4H"}, "KS KD", "2H 7H 9S JH 4C"),
    )
    early = play_round(
        UthRound(rules()),
        {1: {**ANTE, "progressive": 100}},
        stack({1: "AH 4H"}, "KS KD", "2H 7H JH 9S 4C"),
    )
    assert paid(late, 1)["progressive"] == 0
    assert paid(early, 1)["progressive"] == 4000


def test_653a_12_d_4_progressive_pays_the_meter_as_each_players_turn_comes() -> None:
    """653a.12(d)(1), (4): seat 1's royal flush takes 100% of the meter, which resets to its
    $10,000; seat 3's straight flush then takes 10% of the reset meter, not of the old one."""
    game = UthRound(rules())
    bank = meters(game)
    pid = game.rules.progressive_meter_id
    bank[pid] = bank[pid].contribute(40_000_000, "elsewhere").meter  # $60,000 + $10,000 seed
    start = bank[pid].amount_cents
    wagers = {1: {**ANTE, "progressive": 100}, 3: {**ANTE, "progressive": 100}}
    deck = stack({1: "AS KS", 3: "9S 8S"}, "2D 3C", "QS JS TS 4D 5C")
    events = play_round(game, wagers, deck, meters=bank)
    assert settled(events, 1)["progressive"].from_meter == start
    assert settled(events, 3)["progressive"].from_meter == 1_000_000 // 10
    awards = [e for e in events if type(e) is MeterAwarded]
    assert [a.places for a in awards] == [("uth/1",), ("uth/3",)]
    assert any(type(e) is MeterReseeded for e in events)
    (step,) = game.meter_steps()
    # 10% left the meter below its reset amount: topped up again (meters.py "Reseed").
    assert step.meter.amount_cents == 1_000_000
    assert step.meter.paid == start + 100_000


def test_653a_12_d_5_envy_bonus_for_another_players_qualifying_hand() -> None:
    """653a.12(d)(5): a $5 Progressive Payout bettor gets $5,000 for another player's royal
    flush; the royal flush's holder gets $300 for the other's straight flush on a $1 wager;
    nobody is paid an Envy Bonus for their own hand."""
    game = UthRound(rules())
    wagers = {1: {**ANTE, "progressive": 100}, 3: {**ANTE, "progressive": 500}}
    deck = stack({1: "AS KS", 3: "9S 8S"}, "2D 3C", "QS JS TS 4D 5C")
    events = play_round(game, wagers, deck)
    envy = [e for e in events if type(e) is UthWagerSettled and e.wager == "progressive_envy"]
    assert [(e.seat, e.paid) for e in envy] == [(1, 30_000), (3, 500_000)]


def test_653a_12_d_5_envy_bonus_needs_no_wager_from_the_qualifying_hand() -> None:
    """653a.1 "Envy Bonus Qualifying Hand" is any player's hand: seat 2 without a
    Progressive Payout Wager still earns seat 1 an Envy Bonus."""
    game = UthRound(rules())
    wagers = {1: {**ANTE, "progressive": 100}, 2: ANTE}
    deck = stack({1: "2H 3H", 2: "AS KS"}, "2D 3C", "QS JS TS 4D 5C")
    events = play_round(game, wagers, deck)
    assert paid(events, 1)["progressive_envy"] == 100_000


# -------------------------------------------------------------------------- 653a.12(e)


def test_653a_12_e_1_five_card_bonus_on_the_players_hand() -> None:
    """653a.12(e)(1): a flush on the player's two cards and the flop pays 50 for 1."""
    game = UthRound(rules())
    events = play_round(
        game, {1: {**ANTE, "five_card_player": 100}}, stack({1: "AH 4H"}, "KS KD", "2H 7H JH 9S 4C")
    )
    assert paid(events, 1)["five_card_player"] == 5000


def test_653a_12_e_2_dealer_hand_jackpot_is_divided_among_its_bettors() -> None:
    """653a.12(e)(2): a dealer's royal flush jackpot is divided equally among the players
    who wagered on the dealer's hand; a player who wagered on both hands is paid for both."""
    game = UthRound(rules())
    bank = meters(game)
    wagers = {
        1: {**ANTE, "five_card_dealer": 100, "five_card_player": 100},
        2: {**ANTE, "five_card_dealer": 500},
        4: ANTE,
    }
    deck = stack({1: "2H 2D", 2: "3S 4D", 4: "5C 6C"}, "AS KS", "QS JS TS 9D 8C")
    events = play_round(game, wagers, deck, meters=bank)
    jackpot = bank[game.rules.five_card_meter_id].amount_cents
    s1, s2 = settled(events, 1), settled(events, 2)
    assert s1["five_card_dealer"].from_meter == s2["five_card_dealer"].from_meter == jackpot // 2
    assert s1["five_card_dealer"].paid == 100 + jackpot // 2
    assert s2["five_card_dealer"].paid == 500 + jackpot // 2
    assert s1["five_card_player"].paid == 0
    (award,) = [e for e in events if type(e) is MeterAwarded]
    assert award.places == ("uth/1", "uth/2") and award.share == jackpot // 2


def test_653a_12_e_3_magic_card_20_for_1_counts_the_stake_once_on_a_winning_hand() -> None:
    """653a.12(e)(3), 653a.1: by default (``BonusOn.WINNING_HAND``) the drawn card among the
    player's two cards pays the Magic Card bonus "20 for 1" on a Five Card Hand Bonus Wager
    whose hand wins a line of (e)(1), besides that line; on a losing hand it pays nothing.
    A "for 1" pay includes the stake once: the Flush line (50 for 1) has returned the $5
    stake, so the bonus adds 19 units, $95, and the wager returns $250 + $95 = $345 in all
    (before: $100 more, 20 to 1)."""
    magic = parse_cards("4H")[0]
    wagers = {1: {**ANTE, "five_card_player": 500}}
    flush = play_round(
        UthRound(rules(magic_card_bonus=True)),
        wagers,
        stack({1: "AH 4H"}, "KS KD", "2H 7H JH 9S 4C"),
        magic_card=magic,
    )
    assert paid(flush, 1)["five_card_player"] == 500 * 50  # Flush 50 for 1 (e)(1)
    assert paid(flush, 1)["five_card_player_magic_card"] == 500 * 19
    wager_total = sum(v for k, v in paid(flush, 1).items() if k.startswith("five_card_player"))
    assert wager_total == 500 * (50 + 20) - 500
    losing = play_round(
        UthRound(rules(magic_card_bonus=True)),
        wagers,
        stack({1: "AH 4H"}, "KS KD", "2C 7H JH 9S 4C"),
        magic_card=magic,
    )
    assert paid(losing, 1)["five_card_player"] == 0
    assert "five_card_player_magic_card" not in paid(losing, 1)


def test_653a_12_e_3_magic_card_on_every_hand_when_the_rules_submission_says_so() -> None:
    """653a.12(e)(3), 653a.1 read as ``BonusOn.EVERY_HAND``: the drawn card among the
    player's two cards pays the Magic Card bonus 20 for 1 on the Five Card Hand Bonus Wager,
    besides its paytable result, even on a losing hand, whose stake no line returned: the
    whole 20 for 1 (the stake once)."""
    game = UthRound(rules(magic_card_bonus=True, bonus_on=BonusOn.EVERY_HAND))
    magic = parse_cards("4H")[0]
    events = play_round(
        game,
        {1: {**ANTE, "five_card_player": 500}},
        stack({1: "AH 4H"}, "KS KD", "2C 7H JH 9S 4C"),
        magic_card=magic,
    )
    assert paid(events, 1)["five_card_player"] == 0
    assert paid(events, 1)["five_card_player_magic_card"] == 10_000


def test_653a_12_e_3_magic_card_on_the_dealers_hand() -> None:
    """653a.12(e)(3), 653a.1: the drawn card among the dealer's cards pays every dealer-hand
    bettor; a card elsewhere pays nothing."""
    game = UthRound(rules(magic_card_bonus=True, bonus_on=BonusOn.EVERY_HAND))
    events = play_round(
        game,
        {1: {**ANTE, "five_card_dealer": 100}, 2: {**ANTE, "five_card_player": 100}},
        stack({1: "2H 2D", 2: "3S 4D"}, "KS 7D", "QS JC 9C 6D 8C"),
        magic_card=parse_cards("7D")[0],
    )
    assert paid(events, 1)["five_card_dealer_magic_card"] == 2000
    assert "five_card_player_magic_card" not in paid(events, 2)


def test_653a_12_e_3_lucky_bonus_for_the_drawn_seat_or_dealer() -> None:
    """653a.12(e)(3), 653a.1: the drawn position pays the Lucky Bonus 5 for 1: a seat's
    player-hand wager, or (position 0) every dealer-hand wager (``BonusOn.EVERY_HAND``; by
    default a hand with no winning line gets none)."""
    wagers = {1: {**ANTE, "five_card_player": 100}, 2: {**ANTE, "five_card_dealer": 100}}
    deck = ({1: "2H 2D", 2: "3S 4D"}, "KS 7D", "QS JC 9C 6D 8C")
    every = rules(lucky_bonus=True, bonus_on=BonusOn.EVERY_HAND)
    seat = play_round(UthRound(every), wagers, stack(*deck), lucky_position=1)
    dealer = play_round(UthRound(every), wagers, stack(*deck), lucky_position=0)
    default = play_round(UthRound(rules(lucky_bonus=True)), wagers, stack(*deck), lucky_position=1)
    assert "five_card_player_lucky_bonus" not in paid(default, 1)  # no winning line
    assert paid(seat, 1)["five_card_player_lucky_bonus"] == 500
    assert "five_card_dealer_lucky_bonus" not in paid(seat, 2)
    assert paid(dealer, 2)["five_card_dealer_lucky_bonus"] == 500
    assert "five_card_player_lucky_bonus" not in paid(dealer, 1)


# -------------------------------------------------------------------------- 653a.12(f)


def test_653a_12_f_maximum_payout_limits_ante_blind_play_and_trips_only() -> None:
    """653a.12(f): winnings of $55,500 on the Ante, Blind, Play and Trips are limited to the
    $50,000 maximum, while the Progressive Payout royal flush is paid in full."""
    game = UthRound(rules(max_payout=5_000_000, ante_limits=_limits(), trips_limits=_limits()))
    wagers = {1: {"ante": 10_000, "blind": 10_000, "trips": 10_000, "progressive": 100}}
    bank = meters(game)
    events = play_round(game, wagers, stack({1: "AH KH"}, "KS KD", "QH JH TH 2D 4C"), meters=bank)
    capped = next(e for e in events if type(e) is UthPayoutCapped)
    assert (capped.uncapped, capped.cap) == (10_000 + 5_000_000 + 40_000 + 500_000, 5_000_000)
    main = settled(events, 1)
    wins = sum(main[w].paid - main[w].stake for w in ("ante", "blind", "play", "trips"))
    assert wins == 5_000_000
    assert main["progressive"].from_meter == bank[game.rules.progressive_meter_id].amount_cents


def test_653a_12_f_no_limit_below_the_maximum() -> None:
    """653a.12(f): a hand that wins less than the maximum is paid in full."""
    game = UthRound(rules(max_payout=5_000_000))
    events = play_round(game, {1: ANTE}, stack({1: "AH KH"}, "KS KD", "QH JH TH 2D 4C"))
    assert not any(type(e) is UthPayoutCapped for e in events)
    assert paid(events, 1)["blind"] == 501_000


def _limits() -> Any:
    from game_server.rules.limits import WagerLimits

    return WagerLimits(500, 100_000, 100)


# ------------------------------------------------------------------- decisions (notes)


def test_play_multiples_and_the_street_each_is_offered_on() -> None:
    """Play 3x or 4x preflop, 2x on the flop, 1x at the river; check is not allowed at the
    river and folding only there (653a.7 procedure per regs-653a.md)."""
    game = UthRound(rules())
    game.place_wagers(1, ANTE)
    game.place_wagers(2, ANTE)
    game.deal(stack({1: "2S 3D", 2: "4S 5D"}, "KS KD", "QH JH TH 2D 4C"))
    assert game.legal_plays(1) == (3, 4)
    assert not game.can_play(1, 2) and not game.can_fold(1)
    with pytest.raises(ActionNotAllowed, match=r"653a\.7"):
        game.play(1, 2)
    with pytest.raises(ActionNotAllowed, match="fold only after the turn and river"):
        game.fold(1)
    game.play(1, 3)
    with pytest.raises(ActionNotAllowed, match="one Play Wager"):
        game.play(1, 4)
    game.check(2)
    assert game.phase is Phase.FLOP and game.pending == (2,)
    assert game.legal_plays(1) == () and game.legal_plays(2) == (2,)
    with pytest.raises(ActionNotAllowed, match="one Play Wager"):
        game.check(1)
    game.check(2)
    assert game.phase is Phase.RIVER
    with pytest.raises(ActionNotAllowed, match="checking is not allowed"):
        game.check(2)
    assert game.can_fold(2) and game.legal_plays(2) == (1,)
    game.play(2, 1)
    assert game.phase is Phase.SHOWDOWN
    assert game.seats[1].wagers["play"] == 3000 and game.seats[2].wagers["play"] == 1000


def test_countdown_checks_preflop_and_on_the_flop_and_folds_at_the_river() -> None:
    """The countdown's default: check where checking is allowed, fold at the river."""
    game = UthRound(rules())
    game.place_wagers(1, ANTE)
    game.deal(stack({1: "2S 3D"}, "KS KD", "QH JH TH 2D 4C"))
    assert game.countdown_action(1) is Action.CHECK
    first = game.act_default(1)
    assert first[0].auto and first[0].action == "check"
    assert game.countdown_action(1) is Action.CHECK
    game.act_default(1)
    assert game.countdown_action(1) is Action.FOLD
    last = game.act_default(1)
    assert last[0].action == "fold" and last[0].auto
    assert game.seats[1].folded


def test_streets_deal_when_every_seat_decided_and_skip_when_all_played() -> None:
    """When every seat played preflop the flop, turn and river come at once."""
    game = UthRound(rules())
    game.place_wagers(1, ANTE)
    game.deal(stack({1: "AS AD"}, "KS KD", "QH JH TH 2D 4C"))
    events = game.play(1, 4)
    board = [e for e in events if type(e) is UthCardDealt]
    assert [e.seat for e in board] == [-1] * 5 and all(e.face_up for e in board)
    assert not any(type(e) is UthStreetStarted for e in events)
    assert game.phase is Phase.SHOWDOWN


def test_deal_order_and_face_down_cards() -> None:
    """A card to each seat in seat order and to the dealer, twice, all face down."""
    game = UthRound(rules())
    game.place_wagers(3, ANTE)
    game.place_wagers(1, ANTE)
    events = game.deal(stack({1: "AS AD", 3: "2C 3C"}, "KS KD", "QH JH TH 2D 4C"))
    dealt = [e for e in events if type(e) is UthCardDealt]
    assert [(e.seat, e.position) for e in dealt] == [(1, 0), (3, 1), (0, 2), (1, 3), (3, 4), (0, 5)]
    assert not any(e.face_up for e in dealt)


def test_decisions_out_of_phase_are_refused() -> None:
    """A decision before the deal or after the last one is refused."""
    game = UthRound(rules())
    game.place_wagers(1, ANTE)
    with pytest.raises(WrongPhase):
        game.check(1)
    with pytest.raises(WrongPhase):
        game.settle()


def test_653a_12_e_2_a_fixed_line_on_the_dealers_hand_pays_each_bettor_on_their_stake() -> None:
    """653a.12(e)(1)-(2): only meter lines are divided; four of a kind on the dealer's two
    cards and the flop pays each dealer-hand bettor 500 for 1 on their own wager."""
    game = UthRound(rules())
    wagers = {1: {**ANTE, "five_card_dealer": 100}, 2: {**ANTE, "five_card_dealer": 500}}
    deck = stack({1: "2H 3D", 2: "4S 5D"}, "KS KD", "KH KC 9C 6D 8C")
    events = play_round(game, wagers, deck)
    assert paid(events, 1)["five_card_dealer"] == 50_000
    assert paid(events, 2)["five_card_dealer"] == 250_000
    assert not any(type(e) is MeterAwarded for e in events)


def test_653a_12_e_2_five_card_hand_may_be_the_best_of_seven_by_rules_submission() -> None:
    """653a.12(e)(2) does not say which cards form the hand: by default the two cards and
    the flop (as (d)(2)); a Rules Submission choosing the best of seven pays a flush made
    on the river."""
    deck = ({1: "AH 4H"}, "KS KD", "2H 7H 9S JH 4C")
    wagers = {1: {**ANTE, "five_card_player": 100}}
    default = play_round(UthRound(rules()), wagers, stack(*deck))
    seven = play_round(UthRound(rules(five_card_hand="best-of-seven")), wagers, stack(*deck))
    assert paid(default, 1)["five_card_player"] == 0
    assert paid(seven, 1)["five_card_player"] == 5000


def test_653a_12_d_a_folded_hand_still_settles_its_progressive_payout() -> None:
    """653a.12(d)(1)-(2): the Progressive Payout is paid on the two cards and the flop even
    when the player folds at the river: three of a kind pays 9 for 1."""
    game = UthRound(rules())
    wagers = {1: {**ANTE, "progressive": 500}}
    decisions = {1: ((Action.CHECK, 0), (Action.CHECK, 0), (Action.FOLD, 0))}
    events = play_round(game, wagers, stack({1: "5S 2D"}, "AS AD", "5C 5H KS 9D 7C"), decisions)
    assert paid(events, 1) == {"ante": 0, "blind": 0, "progressive": 4500}


def test_653a_12_e_3_lucky_bonus_5_for_1_counts_the_stake_once_on_a_winning_hand() -> None:
    """653a.12(e)(3): the Lucky Bonus "5 for 1" on a hand that won a line of (e)(1) adds 4
    units: a $1 Full House (100 for 1) on the drawn seat returns $100 + $4 (before: $105)."""
    game = UthRound(rules(lucky_bonus=True))
    wagers = {1: {**ANTE, "five_card_player": 100}}
    events = play_round(
        game, wagers, stack({1: "9H 9D"}, "KS 7D", "9C 4S 4C 2D 8C"), lucky_position=1
    )
    assert paid(events, 1)["five_card_player"] == 100 * 100
    assert paid(events, 1)["five_card_player_lucky_bonus"] == 100 * 4


def test_653a_12_e_3_lucky_bonus_for_a_seat_without_the_wager_pays_nobody() -> None:
    """653a.1 Lucky Bonus: only a Five Card Hand Bonus Wager on the drawn position is paid."""
    game = UthRound(rules(lucky_bonus=True))
    wagers = {1: {**ANTE, "five_card_player": 100}, 2: ANTE}
    events = play_round(
        game, wagers, stack({1: "2H 2D", 2: "3S 4D"}, "KS 7D", "QS JC 9C 6D 8C"), lucky_position=2
    )
    assert not [e for e in events if type(e) is UthWagerSettled and "lucky" in e.wager]
