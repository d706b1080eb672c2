"""Scenario tests of the Blackjack engine: a stacked shoe per rule, each naming its section.

Card order of an initial deal with seats s1..sn: s1 s2 .. sn UP s1 s2 .. sn HOLE, then the
cards drawn during play in order.
"""

from __future__ import annotations

from typing import Any

import pytest

from game_server.games.blackjack.rules import round as engine
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    CardDealt,
    DealerPeeked,
    Decision,
    HoleCardRevealed,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import (
    LINE_BLACKJACK,
    LINE_EVEN_MONEY,
    LINE_ORIGINAL_ONLY,
    LINE_SURRENDER,
    BlackjackRound,
    Phase,
    replay,
)
from game_server.games.blackjack.rules.rules import BlackjackRules, CountdownDefault, DoubleOn
from game_server.rng.shoe import StackedShoe
from game_server.rules.errors import (
    ActionNotAllowed,
    BetOutOfLimits,
    NotYourTurn,
    ReplayMismatch,
    SeatError,
    WagerError,
    WagerNotOffered,
    WrongPhase,
)
from game_server.rules.events import to_dict
from game_server.rules.limits import WagerLimits
from game_server.rules.twenty_one import hand_total
from game_server.rules.wagers.base import SideWagerOffer
from game_server.rules.wagers.lucky_aces import LUCKY_ACES, PAYTABLES
from shared.cards import CARDS

LA_A = SideWagerOffer(LUCKY_ACES, PAYTABLES["Paytable A"], WagerLimits(100, 10_000))


def rules(**changes: Any) -> BlackjackRules:
    base: dict[str, Any] = {
        "main_limits": WagerLimits(500, 100_000, 100),
        "side_wagers": (LA_A,),
    }
    base.update(changes)
    return BlackjackRules(**base)


class Game:
    """A round plus every event it produced, dealt from a stacked shoe."""

    def __init__(self, table: BlackjackRules, bets: dict[int, Any], cards: str) -> None:
        self.round = BlackjackRound(table)
        self.events: list[Any] = []
        for seat, bet in bets.items():
            wagers = bet if isinstance(bet, dict) else {"blackjack": bet}
            self.events += self.round.place_wagers(seat, wagers)
        self.shoe = StackedShoe(cards)
        self.events += self.round.deal(self.shoe)

    def do(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        produced: list[Any] = getattr(self.round, method)(*args, **kwargs)
        self.events += produced
        return produced

    def settled(self, seat: int, wager: str = "blackjack", hand: int = 0) -> WagerSettled:
        found = [
            e
            for e in self.events
            if type(e) is WagerSettled and (e.seat, e.hand, e.wager) == (seat, hand, wager)
        ]
        assert len(found) == 1, f"expected one settlement of {wager} seat {seat} hand {hand}"
        return found[0]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if type(e) is kind]


def assert_conserved(game: Game) -> None:
    """Every wager placed is settled exactly once, for its full stake."""
    placed: dict[tuple[int, int, str], int] = {}
    for e in game.of(WagerPlaced):
        key = (e.seat, e.hand if e.wager in ("blackjack", "double") else 0, e.wager)
        placed[key] = placed.get(key, 0) + e.amount
    settled = {(e.seat, e.hand, e.wager): e.stake for e in game.of(WagerSettled)}
    assert len(settled) == len(game.of(WagerSettled)), "a wager was settled twice"
    assert settled == placed


# ---------------------------------------------------------------- deal


def test_deal_order_and_hidden_hole_card() -> None:
    """633a.7 / 633b.5(n): one card to each seat in order, the dealer's up card, a second card
    to each seat, then the hole card face down; the hole card is revealed only at the end."""
    game = Game(rules(), {5: 1000, 1: 1000, 3: 1000}, "2C 3C 4C 9S 5C 6C 7C 8S TD TH 9H 8D 7D")
    dealt = game.of(CardDealt)
    assert [e.seat for e in dealt] == [1, 3, 5, 0, 1, 3, 5, 0]
    assert [e.position for e in dealt] == list(range(8))
    assert [e.face_up for e in dealt] == [True] * 7 + [False]
    assert game.of(HoleCardRevealed) == []
    while game.round.to_act is not None:
        hand = game.round.to_act
        game.do("stand", hand.seat, hand.index)
    assert game.of(HoleCardRevealed) == [HoleCardRevealed(dealt[-1].card, 7)]
    assert_conserved(game)


# ----------------------------------------------------------- peek, insurance


def test_ace_up_offers_insurance_and_dealer_blackjack_pays_it_two_to_one() -> None:
    """633a.8, 633b.5(v)(2): on an ace up card insurance of up to half the wager is offered;
    when the dealer has Blackjack it pays 2 to 1 and the Blackjack wager is lost."""
    game = Game(rules(), {1: 1000, 2: 1000}, "TS 9S AD 8S 9H KC")
    assert game.round.phase is Phase.INSURANCE
    assert game.round.pending_insurance == (1, 2)
    game.do("insure", 1, 500)
    assert game.round.phase is Phase.INSURANCE
    game.do("decline_insurance", 2)
    assert game.of(DealerPeeked) == [DealerPeeked(True)]
    assert game.settled(1, "insurance").paid == 1500
    assert game.settled(1).paid == 0
    assert game.settled(2).paid == 0
    assert game.round.phase is Phase.COMPLETE
    assert_conserved(game)


def test_insurance_loses_when_dealer_has_no_blackjack_and_play_goes_on() -> None:
    """633a.8: insurance is collected when the peek finds no Blackjack; play continues."""
    game = Game(rules(), {1: 1000}, "TS AD 8S 9C 5C")
    game.do("insure", 1, 500)
    assert game.of(DealerPeeked) == [DealerPeeked(False)]
    assert game.settled(1, "insurance").paid == 0
    assert game.round.phase is Phase.PLAYING
    game.do("stand", 1, 0)
    # Dealer A9 is soft 20 and stands: 18 loses.
    assert game.settled(1).paid == 0
    assert_conserved(game)


def test_insurance_is_limited_to_half_the_wager() -> None:
    """633a.8: an insurance wager may not exceed one half of the Blackjack wager."""
    game = Game(rules(), {1: 1000, 2: 1000}, "TS 9S AD 8S 9C 8C")
    with pytest.raises(BetOutOfLimits, match=r"half the Blackjack wager \(\$5.00\)"):
        game.round.insure(1, 501)
    game.do("decline_insurance", 1)
    with pytest.raises(WrongPhase, match="already answered"):
        game.round.insure(1, 100)


def test_insurance_not_offered_without_an_ace() -> None:
    """633a.8: insurance is offered only when the dealer's up card is an ace."""
    game = Game(rules(), {1: 1000}, "TS KD 8S 9C")
    with pytest.raises(WrongPhase, match="only while the dealer shows an ace"):
        game.round.insure(1, 500)


def test_ten_up_peeks_and_dealer_blackjack_ends_the_round() -> None:
    """633b.5(o): under a ten-value up card the dealer checks the hole card; a dealer
    Blackjack ends the round: a player Blackjack pushes and every other hand loses."""
    game = Game(rules(), {1: 1000, 2: 2000}, "AS 9S KD TH 8H AC")
    assert game.of(DealerPeeked) == [DealerPeeked(True)]
    assert game.settled(1).outcome == "pushed" and game.settled(1).paid == 1000
    assert game.settled(2).paid == 0
    assert game.round.phase is Phase.COMPLETE
    assert game.of(RoundCompleted)[0].dealer_total == 21
    assert_conserved(game)


def test_even_money_pays_a_blackjack_one_to_one_before_the_peek() -> None:
    """633a.8: a player with Blackjack against an ace may take even money."""
    game = Game(rules(), {1: 1000, 2: 1000}, "AS 9S AD KS 8H 6C")
    with pytest.raises(ActionNotAllowed, match="only to a Blackjack"):
        game.round.take_even_money(2)
    game.do("take_even_money", 1)
    game.do("decline_insurance", 2)
    settled = game.settled(1)
    assert (settled.paid, settled.line) == (2000, LINE_EVEN_MONEY)
    assert game.of(DealerPeeked) == [DealerPeeked(False)]
    game.do("stand", 2, 0)
    assert_conserved(game)


def test_player_blackjack_is_paid_three_to_two_at_once_when_dealer_cannot_have_one() -> None:
    """633b.5(p)(1), (v)(1): a Blackjack against a 2-9 up card is paid 3 to 2 right away."""
    game = Game(rules(), {1: 1000, 2: 1000}, "AS 9S 7D KS 8H TC")
    settled = game.settled(1)
    assert (settled.paid, settled.line) == (2500, LINE_BLACKJACK)
    assert game.round.to_act is not None and game.round.to_act.seat == 2


# ------------------------------------------------------------ hit and stand


def test_bust_is_settled_at_once_and_play_moves_on() -> None:
    """A hand over 21 loses at once; the next seat acts."""
    game = Game(rules(), {1: 1000, 2: 1000}, "TS 9S 6D 5S 8H TC KC 2C")
    game.do("hit", 1, 0)
    assert game.settled(1).outcome == "lost" and game.settled(1).line == "Bust"
    assert game.round.to_act is not None and game.round.to_act.seat == 2
    game.do("stand", 2, 0)
    # Dealer 6 T draws the 2 and stands on 18; seat 2 has 17.
    assert game.settled(2).paid == 0
    assert_conserved(game)


def test_no_draw_on_21() -> None:
    """633b.5(r)(1): a hand of 21 takes no more cards; the engine stands it by itself."""
    game = Game(rules(), {1: 1000, 2: 1000}, "5S 9S 6D 6S 8H TC TD 9C")
    game.do("hit", 1, 0)  # 5 6 T = 21
    assert game.round.to_act is not None and game.round.to_act.seat == 2
    assert not any(type(e) is Decision and e.action == "stand" and e.seat == 1 for e in game.events)


def test_out_of_turn_action_is_refused() -> None:
    """A decision for a seat whose turn it is not is refused with whose turn it is."""
    game = Game(rules(), {1: 1000, 2: 1000}, "TS 9S 6D 5S 8H TC")
    with pytest.raises(NotYourTurn, match="turn of seat 1 hand 1, not of seat 2 hand 1"):
        game.round.hit(2, 0)
    with pytest.raises(NotYourTurn):
        game.round.stand(1, 1)


def test_actions_before_the_deal_are_wrong_phase() -> None:
    """No decision is taken while betting is open."""
    game = BlackjackRound(rules())
    with pytest.raises(WrongPhase, match="betting phase"):
        game.hit(1, 0)


# ------------------------------------------------------------------ double


def test_double_takes_one_card_and_doubles_the_wager() -> None:
    """633a.10(a): an additional wager up to the original; exactly one more card."""
    game = Game(rules(), {1: 1000}, "6S 9S 5D 8D TC")
    game.do("double", 1, 0)
    assert game.of(WagerPlaced)[-1] == WagerPlaced(1, 0, "double", 1000)
    # 6 5 T = 21 against dealer 9 8 = 17: both wagers win 1 to 1.
    assert game.settled(1).paid == 2000 and game.settled(1, "double").paid == 2000
    assert game.round.phase is Phase.COMPLETE
    assert_conserved(game)


def test_double_for_less_and_no_second_double() -> None:
    """633a.10(a): the double down wager may not exceed the original; a hand doubles once."""
    game = Game(rules(), {1: 1000, 2: 1000}, "6S 9S 9D 5D TD 8C 2C")
    with pytest.raises(BetOutOfLimits, match="at most the original wager"):
        game.round.double(1, 0, 1100)
    game.do("double", 1, 0, 500)
    with pytest.raises(NotYourTurn):
        game.round.double(1, 0)
    game.do("stand", 2, 0)
    assert game.settled(1, "double").stake == 500


@pytest.mark.parametrize(
    ("double_on", "cards", "allowed"),
    [
        (DoubleOn.ANY, "6S 9S 6D 9D", True),  # 12
        (DoubleOn.NINE_TO_ELEVEN, "4S 9S 5D 9D", True),  # 9
        (DoubleOn.NINE_TO_ELEVEN, "4S 9S 4D 9D", False),  # 8
        (DoubleOn.TEN_TO_ELEVEN, "4S 9S 5D 9D", False),  # 9
        (DoubleOn.TEN_TO_ELEVEN, "5S 9S 6D 9D", True),  # 11
        (DoubleOn.TEN_TO_ELEVEN, "AS 9S 9D 9D", False),  # soft 20 / hard 10
    ],
)
def test_double_down_options(double_on: DoubleOn, cards: str, allowed: bool) -> None:
    """633a.10 with the Rules Submission's option: any two cards, hard 9-11 or hard 10-11."""
    game = Game(rules(double_on=double_on), {1: 1000}, cards + " 2C 3C 4C 5C")
    assert game.round.can_double(1, 0) is allowed
    if not allowed:
        with pytest.raises(ActionNotAllowed, match="only on a hard"):
            game.round.double(1, 0)


# ------------------------------------------------------------------- split


def test_split_identical_value_and_first_hand_completed_first() -> None:
    """633a.11(a)-(b): a king and a ten split; each hand gets a wager equal to the original,
    and the first hand is completed before the second gets its second card."""
    game = Game(rules(), {1: 1000}, "KS 9S TD 8D 5C 9C TC")
    game.do("split", 1, 0)
    dealt = game.of(CardDealt)
    assert (dealt[-1].hand, str(dealt[-1].card)) == (0, "5C")
    assert game.round.to_act is not None and game.round.to_act.index == 0
    game.do("stand", 1, 0)
    dealt = game.of(CardDealt)
    assert (dealt[-1].hand, str(dealt[-1].card)) == (1, "9C")
    game.do("stand", 1, 1)
    # Dealer 9 8 = 17: hand 0 (K5 = 15) loses, hand 1 (T9 = 19) wins.
    assert game.settled(1, hand=0).paid == 0
    assert game.settled(1, hand=1).paid == 2000
    assert_conserved(game)


def test_resplit_up_to_four_hands() -> None:
    """633a.11(c): the Rules Submission sets the number of splits; 4 hands by default."""
    game = Game(rules(), {1: 1000}, "8S 9S 8D 7D 8C 8H 8S 2C 2D 2H 2S")
    game.do("split", 1, 0)  # hand 0: 8S 8C
    game.do("split", 1, 0)  # hand 0: 8S 8H, hand 2: 8C
    game.do("split", 1, 0)  # hand 0: 8S 8S, hand 3: 8H
    assert len(game.round.seats[1].hands) == 4
    with pytest.raises(ActionNotAllowed, match="at most 4 hands"):
        game.round.split(1, 0)
    assert [h.index for h in game.round.seats[1].hands] == [0, 3, 2, 1]
    assert_conserved_after_standing_all(game)


def assert_conserved_after_standing_all(game: Game) -> None:
    while game.round.to_act is not None:
        hand = game.round.to_act
        game.do("stand", hand.seat, hand.index)
    assert game.round.phase is Phase.COMPLETE
    assert_conserved(game)


def test_split_aces_get_one_card_each_and_21_is_not_blackjack() -> None:
    """633a.11: split aces receive one card each; ace-ten after a split is 21, paid 1 to 1,
    not a Blackjack."""
    game = Game(rules(), {1: 1000}, "AS 9S AD 8D KC AH TC")
    game.do("split", 1, 0)
    # AS KC = 21, AD AH: no resplit of aces by default, hand done; dealer 9 8 = 17.
    assert game.round.phase is Phase.COMPLETE
    first = game.settled(1, hand=0)
    assert (first.paid, first.line) == (2000, "Win 1 to 1")
    assert game.settled(1, hand=1).paid == 0  # soft 12 against 17
    assert_conserved(game)


def test_resplit_aces_when_allowed() -> None:
    """633a.11(c): if the Rules Submission allows it, split aces may be split again."""
    game = Game(rules(resplit_aces=True), {1: 1000}, "AS 9S AD 8D AC 5C 6C 7C")
    game.do("split", 1, 0)
    assert game.round.can_split(1, 0)
    assert not game.round.can_hit(1, 0)
    game.do("split", 1, 0)
    assert len(game.round.seats[1].hands) == 3


def test_double_after_split_is_optional() -> None:
    """633a.10(c): double after split only if the Rules Submission allows it."""
    cards = "8S 9S 8D 7D 3C 2C 4C 5C"
    game = Game(rules(double_after_split=True), {1: 1000}, cards)
    game.do("split", 1, 0)
    assert game.round.can_double(1, 0)
    game = Game(rules(double_after_split=False), {1: 1000}, cards)
    game.do("split", 1, 0)
    with pytest.raises(ActionNotAllowed, match="after a split"):
        game.round.double(1, 0)


def test_only_pairs_split() -> None:
    """633a.11(a): only two cards identical in value may be split."""
    game = Game(rules(), {1: 1000}, "8S 9S 9D 7D")
    with pytest.raises(ActionNotAllowed, match="identical in value"):
        game.round.split(1, 0)


# ---------------------------------------------------------------- surrender


def test_late_surrender_returns_half() -> None:
    """633a.9: where offered, surrender of the first two cards returns half the wager."""
    game = Game(rules(late_surrender=True), {1: 1000}, "TS 9S 6D TD")
    game.do("surrender", 1, 0)
    settled = game.settled(1)
    assert (settled.paid, settled.outcome, settled.line) == (500, "surrendered", LINE_SURRENDER)
    assert game.round.phase is Phase.COMPLETE
    assert_conserved(game)


def test_surrender_not_offered_by_default_nor_after_split() -> None:
    """633a.9: surrender is optional, and only on an unsplit first two cards."""
    game = Game(rules(), {1: 1000}, "TS 9S 6D TD")
    with pytest.raises(ActionNotAllowed, match="does not offer surrender"):
        game.round.surrender(1, 0)
    game = Game(rules(late_surrender=True), {1: 1000}, "8S 9S 8D TD 2C")
    game.do("split", 1, 0)
    with pytest.raises(ActionNotAllowed, match="unsplit"):
        game.round.surrender(1, 0)


# ------------------------------------------------------------------ dealer


def test_dealer_stands_on_soft_17() -> None:
    """633b.5(c)(2), (s): the dealer stands on all 17s, soft 17 included."""
    game = Game(rules(), {1: 1000}, "TS AS 8D 6D")
    game.do("decline_insurance", 1)
    game.do("stand", 1, 0)
    assert game.of(RoundCompleted)[0].dealer_total == 17
    assert game.settled(1).paid == 2000


def test_dealer_hits_soft_17_when_configured() -> None:
    """Rules Submission option: the dealer hits soft 17."""
    game = Game(rules(dealer_hits_soft_17=True), {1: 1000}, "TS AS 8D 6D 3C")
    game.do("decline_insurance", 1)
    game.do("stand", 1, 0)
    completed = game.of(RoundCompleted)[0]
    assert completed.dealer_total == 20 and len(completed.dealer_cards) == 3
    assert game.settled(1).paid == 0


def test_push_on_equal_totals_and_dealer_bust_pays() -> None:
    """633b.5(t): equal totals push; a dealer over 21 pays every standing hand 1 to 1."""
    game = Game(rules(), {1: 1000}, "TS 9S 8D 9D")
    game.do("stand", 1, 0)
    assert game.settled(1).outcome == "pushed" and game.settled(1).paid == 1000
    game = Game(rules(), {1: 1000}, "TS 6S 2D 9D 8C")
    game.do("stand", 1, 0)
    assert game.settled(1).paid == 2000


def test_blackjack_beats_a_dealer_21_of_three_cards() -> None:
    """633b.5(t)(1)(iii): a Blackjack wins against a dealer 21 in more than two cards."""
    game = Game(rules(), {1: 1000, 2: 1000}, "AS TS 5D KS 6H 5C AH")
    assert game.settled(1).paid == 2500
    game.do("stand", 2, 0)
    assert game.of(RoundCompleted)[0].dealer_total == 21


@pytest.mark.parametrize("dealer", ["5H 6C", "2H 9C", "3H 8C", "4H 7C"])
def test_a_dealer_two_card_11_is_not_blackjack_and_draws(dealer: str) -> None:
    """633a.1 "Blackjack": an ace and a ten-value card only; a dealer 5-6 is 11 and draws
    (633b.5(s)), here a ten to 21."""
    up, hole = dealer.split()
    game = Game(rules(), {1: 1000}, f"TS {up} 7D {hole} TC")
    game.do("stand", 1, 0)
    completed = game.of(RoundCompleted)[0]
    assert completed.dealer_total == 21 and len(completed.dealer_cards) == 3
    assert game.settled(1).line == "Loss"


def test_dealer_does_not_draw_when_every_hand_is_settled() -> None:
    """With every hand busted the dealer turns the hole card up and draws nothing."""
    game = Game(rules(), {1: 1000}, "TS 5S 6D TD KC 9C")
    game.do("hit", 1, 0)
    assert game.of(RoundCompleted)[0].dealer_cards == tuple(
        e.card for e in game.of(CardDealt) if e.seat == 0
    )
    assert len(game.of(RoundCompleted)[0].dealer_cards) == 2


def test_without_peek_dealer_blackjack_takes_only_the_original_wager() -> None:
    """633a.10, 633a.11(d): when the dealer's Blackjack is found after splits and doubles,
    only the original wager is collected; the additional wagers are returned."""
    game = Game(rules(dealer_peeks=False, insurance=False), {1: 1000}, "8S AS 8D KD 3C 5C 9C")
    game.do("split", 1, 0)  # hand 0: 8S 3C
    game.do("double", 1, 0)  # 8 3 9 = 20
    game.do("stand", 1, 1)  # 8D 5C = 13
    assert game.settled(1, hand=0).paid == 0
    assert (game.settled(1, "double", 0).paid, game.settled(1, "double", 0).line) == (
        1000,
        LINE_ORIGINAL_ONLY,
    )
    assert game.settled(1, hand=1).paid == 1000
    assert_conserved(game)


# ------------------------------------------------------------------ wagers


def test_wager_limits() -> None:
    """A wager below the minimum, over the maximum or off the wager unit is refused."""
    game = BlackjackRound(rules())
    with pytest.raises(BetOutOfLimits, match=r"below the table minimum \$5.00"):
        game.place_wagers(1, {"blackjack": 400})
    with pytest.raises(BetOutOfLimits, match=r"above the table maximum \$1,000.00"):
        game.place_wagers(1, {"blackjack": 100_100})
    with pytest.raises(BetOutOfLimits, match="not a multiple of the wager unit"):
        game.place_wagers(1, {"blackjack": 550})
    with pytest.raises(BetOutOfLimits, match="whole number of cents"):
        game.place_wagers(1, {"blackjack": 5.0})  # type: ignore[dict-item]


def test_side_wager_needs_main_wager_and_is_limited() -> None:
    """633b.8(c): Lucky Aces is placed after a Blackjack wager; its own limits apply."""
    game = BlackjackRound(rules())
    with pytest.raises(WagerNotOffered, match=r"needs a Blackjack wager .*633b.8"):
        game.place_wagers(1, {"lucky_aces": 500})
    with pytest.raises(BetOutOfLimits, match="Lucky Aces wager"):
        game.place_wagers(1, {"blackjack": 1000, "lucky_aces": 20_000})
    with pytest.raises(WagerNotOffered, match="does not offer"):
        game.place_wagers(1, {"blackjack": 1000, "buster": 500})
    game.place_wagers(1, {"blackjack": 1000})
    game.place_wagers(1, {"lucky_aces": 500})
    with pytest.raises(WagerError, match="already placed"):
        game.place_wagers(1, {"blackjack": 2000})


def test_placing_the_same_wagers_on_several_seats_is_placing_them_seat_by_seat() -> None:
    """place_wagers_on (the simulator's tables) gives exactly the events and state of
    place_wagers on each seat in turn, and refuses what place_wagers refuses, with the same
    error, after placing the seats before it."""
    wagers = {"blackjack": 1000, "lucky_aces": 500}
    one_by_one = BlackjackRound(rules())
    expected = [e for seat in (1, 3, 4) for e in one_by_one.place_wagers(seat, wagers)]
    together = BlackjackRound(rules())
    assert together.place_wagers_on((1, 3, 4), wagers) == expected
    assert {n: s.wagers for n, s in together.seats.items()} == {
        n: s.wagers for n, s in one_by_one.seats.items()
    }
    with pytest.raises(WagerError, match="already placed"):
        together.place_wagers_on((5, 3), wagers)
    assert 5 in together.seats
    with pytest.raises(SeatError, match=r"1\.\.7"):
        together.place_wagers_on((6, 8), wagers)
    with pytest.raises(SeatError, match=r"1\.\.7"):
        together.place_wagers_on((7, True), wagers)  # type: ignore[arg-type]
    with pytest.raises(BetOutOfLimits, match="Lucky Aces wager"):
        BlackjackRound(rules()).place_wagers_on((1, 2), {"blackjack": 1000, "lucky_aces": 1})
    # A first seat with a Blackjack wager already: its side wager alone is fine, the next
    # seat's is not (it has no Blackjack wager).
    game = BlackjackRound(rules())
    game.place_wagers(1, {"blackjack": 1000})
    with pytest.raises(WagerNotOffered, match="needs a Blackjack wager"):
        game.place_wagers_on((1, 2), {"lucky_aces": 500})
    assert game.seats[1].wagers == wagers and 2 not in game.seats
    assert BlackjackRound(rules()).place_wagers_on((), wagers) == []


def test_bets_after_the_deal_and_bad_seats_are_refused() -> None:
    """633a.6(c), 633b.5(k): no wager after the first card; seats are 1..7."""
    game = Game(rules(), {1: 1000}, "TS 9S 6D TD")
    with pytest.raises(WrongPhase, match="no more bets"):
        game.round.place_wagers(2, {"blackjack": 1000})
    fresh = BlackjackRound(rules())
    with pytest.raises(SeatError, match=r"1\.\.7"):
        fresh.place_wagers(8, {"blackjack": 1000})
    with pytest.raises(WagerError, match="nothing to deal"):
        fresh.deal(StackedShoe("TS 9S 6D TD"))


def test_lucky_aces_settles_right_after_the_hole_card_is_turned_up() -> None:
    """633b.8(d): Lucky Aces is settled immediately after the hole card is turned face up,
    on the player's two and the dealer's two cards (here 2 aces of the same suit, Paytable A
    8 to 1)."""
    game = Game(rules(), {1: {"blackjack": 1000, "lucky_aces": 500}}, "AS 9S 7D AS 3C")
    assert not any(e.wager == "lucky_aces" for e in game.of(WagerSettled))
    game.do("stand", 1, 0)
    kinds = [type(e) for e in game.events]
    reveal = kinds.index(HoleCardRevealed)
    assert type(game.events[reveal + 1]) is WagerSettled
    settled = game.events[reveal + 1]
    assert (settled.wager, settled.line, settled.paid) == ("lucky_aces", "2 Aces Same Suit", 4500)


def test_lucky_aces_settles_on_dealer_blackjack_at_the_peek() -> None:
    """633b.8(d): with a dealer Blackjack the hole card is turned up at the peek and Lucky
    Aces is settled then (3 aces of different suits: 20 to 1 on Paytable A)."""
    game = Game(rules(), {1: {"blackjack": 1000, "lucky_aces": 100}}, "AS AD AH KC")
    game.do("decline_insurance", 1)
    assert game.settled(1, "lucky_aces").line == "3 Aces"
    assert game.settled(1, "lucky_aces").paid == 2_100
    assert game.settled(1).outcome == "lost"
    assert_conserved(game)


# ------------------------------------------------------------------ replay


def test_replay_rebuilds_the_round_and_detects_a_changed_settlement() -> None:
    """replay(events) drives a fresh engine to the same events; a changed payout is caught."""
    game = Game(
        rules(), {1: {"blackjack": 1000, "lucky_aces": 100}, 4: 2000}, "8S 9S 7D 8D TC KC 3C 2H 9H"
    )
    game.do("split", 1, 0)
    game.do("stand", 1, 0)
    game.do("hit", 1, 1, auto=True)
    game.do("stand", 1, 1)
    game.do("stand", 4, 0, auto=True)
    assert game.round.phase is Phase.COMPLETE
    rebuilt = replay(game.round.rules, game.events)
    assert rebuilt.phase is Phase.COMPLETE
    assert rebuilt.dealer == game.round.dealer
    tampered = list(game.events)
    index = next(i for i, e in enumerate(tampered) if type(e) is WagerSettled)
    tampered[index] = tampered[index]._replace(paid=tampered[index].paid + 100)
    with pytest.raises(ReplayMismatch, match=f"event {index} differs"):
        replay(game.round.rules, tampered)


def test_replay_refuses_an_event_no_input_explains() -> None:
    """A settlement inserted into the log is not the result of any input."""
    game = Game(rules(), {1: 1000}, "TS 9S 6D TD")
    forged = [*game.events, WagerSettled(1, 0, "blackjack", 1000, 2000, "won", "Win 1 to 1")]
    with pytest.raises(ReplayMismatch, match="not the result of any input"):
        replay(game.round.rules, forged)


def test_legal_actions_match_can_methods() -> None:
    """legal_actions() is exactly the set of actions whose can_* is true."""
    game = Game(rules(late_surrender=True), {1: 1000}, "8S 9S 8D 7D")
    assert game.round.legal_actions() == {
        Action.HIT,
        Action.STAND,
        Action.DOUBLE,
        Action.SPLIT,
        Action.SURRENDER,
    }


@pytest.mark.parametrize(
    ("default", "cards", "action"),
    [
        (CountdownDefault.STAND, "6S 9S 4D 9D", Action.STAND),  # hard 10
        (CountdownDefault.HIT_HARD_11_OR_LESS, "6S 9S 4D 9D", Action.HIT),  # hard 10
        (CountdownDefault.HIT_HARD_11_OR_LESS, "6S 9S 5D 9D", Action.HIT),  # hard 11
        (CountdownDefault.HIT_HARD_11_OR_LESS, "7S 9S 5D 9D", Action.STAND),  # hard 12
        (CountdownDefault.HIT_HARD_11_OR_LESS, "AS 9S 6D 9D", Action.STAND),  # soft 17
    ],
)
def test_countdown_default(default: CountdownDefault, cards: str, action: Action) -> None:
    """633b.5(p)(2): a player who takes no action is deemed to stand; with the option of
    633b.5(z) selected, a hard total of 11 or less is hit instead."""
    game = Game(rules(countdown_default=default), {1: 1000}, cards + " 2C 3C")
    assert game.round.countdown_action() is action


def test_a_two_card_hand_read_from_the_table_equals_the_hand_counted_card_by_card() -> None:
    """The totals of every hand of the deal (and of the dealer's two cards) are read from a
    table made once: for each of the 52 x 52 pairs of cards, the hand made from both equals
    the hand made from the first and given the second (hard total, ace, best total, soft),
    and the best total and softness are those :func:`hand_total` counts."""
    for first in CARDS:
        for second in CARDS:
            dealt = engine.Hand(1, 0, {}, first, second)
            counted = engine.Hand(1, 0, {}, first, None)
            counted.add(second)
            fields = ("hard", "has_ace", "total", "soft")
            assert [getattr(dealt, f) for f in fields] == [getattr(counted, f) for f in fields]
            assert (dealt.total, dealt.soft) == hand_total((first, second))
            assert engine._TWO_CARDS[first][second] == (
                counted.hard,
                counted.has_ace,
                counted.total,
                counted.soft,
            )
            assert dealt.cards == [first, second]


def test_a_hit_or_stand_record_made_once_is_the_record_the_decision_would_build() -> None:
    """The records of a player's own hit and stand are made once per seat and hand: each is
    the record built for that decision (same class, equal, same JSON form); the countdown's
    decisions, hands past the table and inputs of another type get records of their own."""
    for table, action in ((engine._OWN_HITS, "hit"), (engine._OWN_STANDS, "stand")):
        for seat in range(1, 8):
            for hand in range(4):
                made = engine._decision(table, seat, hand, action, False)
                fresh = Decision(seat, hand, action, 0, False)
                assert type(made) is Decision
                assert made == fresh
                assert to_dict(made) == to_dict(fresh)
        countdown = engine._decision(table, 2, 1, action, True)
        assert countdown == Decision(2, 1, action, 0, True)
        assert countdown.auto is True
        assert engine._decision(table, 9, 5, action, False) == Decision(9, 5, action, 0, False)
        kept = to_dict(engine._decision(table, True, 0, action, False))  # type: ignore[arg-type]
        assert kept["seat"] is True


def test_the_records_of_a_played_hand_equal_those_built_for_its_decisions() -> None:
    """A round played with hits and stands logs a hit and a stand as built for the seat and
    hand that made them (the records made once are the ones a round returns)."""
    game = BlackjackRound(BlackjackRules())
    game.place_wagers(3, {"blackjack": 1000})
    # s3 UP s3 HOLE, then a card for the hit: 5 + 4 = 9 hits a 2 to 11 and stands.
    game.deal(StackedShoe("5C 9D 4H 8S 2C 10D"))
    hit = game.hit(3, 0)
    stand = game.stand(3, 0)
    assert hit[0] == Decision(3, 0, "hit", 0, False)
    assert stand[0] == Decision(3, 0, "stand", 0, False)
    assert type(hit[0]) is Decision and type(stand[0]) is Decision


def test_a_hit_or_stand_of_another_input_type_or_the_countdown_keeps_its_own_record() -> None:
    """The hit and stand look the record made once up themselves: a seat given as ``True``
    (equal to seat 1) and the countdown's decisions still log a record of their own, as
    built for that input, and a player's own decision at seat 1 logs the record made once."""
    game = BlackjackRound(BlackjackRules())
    game.place_wagers(1, {"blackjack": 1000})
    # s1 UP s1 HOLE, then cards for the hits: 2 + 3 hits twice, then stands.
    game.deal(StackedShoe("2C 9D 3H 8S 2D 2H"))
    by_true = game.hit(True, 0)[0]  # type: ignore[arg-type]
    assert to_dict(by_true)["seat"] is True
    countdown = game.hit(1, 0, auto=True)[0]
    assert countdown == Decision(1, 0, "hit", 0, True) and countdown.auto is True
    own = game.stand(1, 0)[0]
    assert own is engine._OWN_STANDS[1][0]
