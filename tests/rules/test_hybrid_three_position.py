"""Scenario and property tests of the three-position hybrid Blackjack engine, 58 Pa. Code
633b.5(a)-(v), each scenario naming the paragraph it checks.

Card order of a deal with chosen positions p1..pn (in position order): p1 .. pn UP p1 .. pn
HOLE, then community card 1, 2, ... as players first need them, then the dealer's draws.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    CardDealt,
    DealerPeeked,
    HoleCardRevealed,
    RoundCompleted,
)
from game_server.games.hybrid.rules.events import (
    Hybrid3CardUsed,
    Hybrid3CommunityCard,
    Hybrid3Decision,
    Hybrid3WagerPlaced,
    Hybrid3WagerSettled,
)
from game_server.games.hybrid.rules.three_position import (
    BUZZER_BEATER_PAYS,
    LINE_BB_CLEARED,
    LINE_BLACKJACK_NOW,
    LINE_BLACKJACK_OVER_21,
    LINE_BUST,
    LINE_DEALER_BLACKJACK,
    LINE_DEALER_BLACKJACK_OVER_21,
    LINE_DEALER_BUST,
    LINE_EVEN_MONEY,
    LINE_INSURANCE,
    LINE_LOSS,
    LINE_PUSH,
    LINE_WIN,
    Phase,
    ThreePositionRound,
    ThreePositionRules,
    main_result,
    replay,
)
from game_server.rng.shoe import Shoe, ShoeSeed, StackedShoe
from game_server.rules.errors import (
    ActionNotAllowed,
    BetOutOfLimits,
    IllegalAction,
    NotYourTurn,
    ReplayMismatch,
    SeatError,
    WagerError,
    WagerNotOffered,
    WrongPhase,
)
from game_server.rules.events import from_dict, to_dict
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.buzzer_beater import (
    LINE_BB_21_PUSH,
    LINE_BB_NOT_19,
    LINE_BB_PLAYER_BEAT,
    LINE_BB_UNDER_19,
    buzzer_beater_result,
)
from shared.cards import CARDS, Card, parse_cards
from shared.money import ToOne

BB = "buzzer_beater"
BJ = "blackjack"


def table(**changes: Any) -> ThreePositionRules:
    base: dict[str, Any] = {
        "main_limits": WagerLimits(500, 100_000, 100),
        "buzzer_beater": WagerLimits(100, 10_000, 100),
    }
    base.update(changes)
    return ThreePositionRules(**base)


class Game:
    """A round plus every event it produced, dealt from a stacked shoe."""

    def __init__(
        self,
        joins: list[tuple[str, int, int | Mapping[str, int]]],
        cards: str,
        rules: ThreePositionRules | None = None,
    ) -> None:
        self.rules = rules if rules is not None else table()
        self.round = ThreePositionRound(self.rules)
        self.events: list[Any] = []
        for player, position, bet in joins:
            wagers = {BJ: bet} if isinstance(bet, int) else dict(bet)
            self.events += self.round.join(player, position, wagers)
        self.shoe = StackedShoe(cards)
        self.events += self.round.deal(self.shoe)

    def do(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        produced: list[Any] = getattr(self.round, method)(*args, **kwargs)
        self.events += produced
        return produced

    def settled(self, player: str, wager: str = BJ, hand: int = 0) -> Hybrid3WagerSettled:
        found = [
            e
            for e in self.events
            if type(e) is Hybrid3WagerSettled
            and (e.player, e.hand, e.wager) == (player, hand, wager)
        ]
        assert len(found) == 1, f"expected one settlement of {wager} of {player} hand {hand}"
        return found[0]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if type(e) is kind]

    def hand(self, player: str, hand: int = 0) -> tuple[tuple[Card, ...], tuple[int, ...]]:
        view = self.round.view(player).hands[hand]
        return view.cards, view.community


def assert_conserved(events: list[Any]) -> None:
    """Every wager placed is settled exactly once, for its full stake."""
    placed: dict[tuple[str, int, str], int] = {}
    for e in events:
        if type(e) is Hybrid3WagerPlaced:
            key = (e.player, e.hand, e.wager)
            assert key not in placed, f"{key} placed twice"
            placed[key] = e.amount
    settled: dict[tuple[str, int, str], int] = {}
    for e in events:
        if type(e) is Hybrid3WagerSettled:
            key = (e.player, e.hand, e.wager)
            assert key not in settled, f"{key} settled twice"
            settled[key] = e.stake
            assert e.paid >= 0
    assert settled == placed


def assert_replays(game: Game) -> None:
    """The log replays to the same events, and survives its JSON form."""
    assert game.round.phase is Phase.COMPLETE
    assert_conserved(game.events)
    again = replay(game.rules, game.events)
    assert again.phase is Phase.COMPLETE
    decoded = [from_dict(to_dict(e)) for e in game.events]
    assert decoded == game.events
    replay(game.rules, decoded)


def cards(text: str) -> tuple[Card, ...]:
    return parse_cards(text)


# ------------------------------------------------------------------ (k), (l), (m)


def test_positions_outside_one_to_three_are_refused() -> None:
    """633b.5(l): a player chooses a player position between 1 and 3; 0 and 4 are refused
    naming the paragraph, and any number of players may choose the same position."""
    game = ThreePositionRound(table())
    for bad in (0, 4, -1):
        with pytest.raises(SeatError, match=r"633b\.5\(l\)"):
            game.join("t1", bad, {BJ: 1000})
    assert not game.can_join("t1", 4, {BJ: 1000})
    for n in range(7):
        game.join(f"t{n}", 2, {BJ: 1000})
    game.join("x", 1, {BJ: 1000})
    events = game.deal(StackedShoe("2C 3C 9S 4C 5C 8S"))
    assert [e.seat for e in events if type(e) is CardDealt] == [1, 2, 0, 1, 2, 0]
    assert game.view("t6").hands[0].cards == cards("3C 5C")


def test_a_terminal_plays_one_position_per_round() -> None:
    """633b.5(l): a player selects a player position; the same terminal choosing another
    position in the same round is refused, adding a wager on his own position is not."""
    game = ThreePositionRound(table())
    game.join("t1", 1, {BJ: 1000})
    with pytest.raises(SeatError, match="one position per round"):
        game.join("t1", 2, {BJ: 1000})
    assert game.join("t1", 1, {BB: 500}) == [Hybrid3WagerPlaced("t1", 1, 0, BB, 500)]


def test_a_blackjack_wager_is_required_and_limited() -> None:
    """633b.5(l): to compete against the dealer's hand a player places a Blackjack wager,
    within the table limits."""
    game = ThreePositionRound(table())
    with pytest.raises(BetOutOfLimits):
        game.join("t1", 1, {BJ: 100})
    with pytest.raises(WagerNotOffered):
        game.join("t1", 1, {"lucky_aces": 500})
    with pytest.raises(WagerError, match="nothing to deal"):
        game.deal(StackedShoe("2C 3C 9S 4C"))


def test_buzzer_beater_needs_a_blackjack_wager_and_an_offer() -> None:
    """633b.5(m): the Buzzer Beater is offered only to a player who placed a Blackjack wager,
    and only where the Rules Submission offers it."""
    game = ThreePositionRound(table())
    with pytest.raises(WagerNotOffered, match=r"\(m\)"):
        game.join("t1", 1, {BB: 500})
    assert not game.can_join("t1", 1, {BB: 500})
    assert game.can_join("t1", 1, {BJ: 1000, BB: 500})
    with pytest.raises(BetOutOfLimits):
        game.join("t1", 1, {BJ: 1000, BB: 50_000})
    plain = ThreePositionRound(table(buzzer_beater=None))
    with pytest.raises(WagerNotOffered, match=r"633b\.5\(m\)"):
        plain.join("t1", 1, {BJ: 1000, BB: 500})


def test_no_wager_after_the_first_card() -> None:
    """633b.5(k): wagers other than insurance, double down and split are placed before the
    first card is dealt; a join after the deal is refused naming (k)."""
    game = Game([("a", 1, 1000)], "TS 7D 9S TC")
    with pytest.raises(WrongPhase, match=r"633b\.5\(k\)"):
        game.round.join("b", 2, {BJ: 1000})
    with pytest.raises(WrongPhase, match=r"\(k\)"):
        game.round.join("a", 1, {BB: 500})


# ------------------------------------------------------------------------ (n)


def test_deal_goes_to_chosen_positions_in_order_then_dealer() -> None:
    """633b.5(n): one card to each position any player chose, starting at position 1, the
    dealer's up card, a second card to each, the hole card face down; position 2, which no
    player chose, receives no cards."""
    game = Game([("x", 3, 1000), ("y", 1, 1000)], "2C 3C 9S 4C 5C 8S")
    dealt = game.of(CardDealt)
    assert [e.seat for e in dealt] == [1, 3, 0, 1, 3, 0]
    assert [e.position for e in dealt] == list(range(6))
    assert [e.face_up for e in dealt] == [True] * 5 + [False]
    assert game.round.positions == {1: cards("2C 4C"), 3: cards("3C 5C")}
    assert game.hand("x")[0] == cards("3C 5C")
    assert game.hand("y")[0] == cards("2C 4C")
    assert game.of(HoleCardRevealed) == []
    game.do("finish")
    assert game.of(HoleCardRevealed) == [HoleCardRevealed(parse_cards("8S")[0], 5)]
    assert_replays(game)


# ------------------------------------------------------------------------ (o)


def test_dealer_blackjack_under_an_ace_ends_the_round_and_settles_everything() -> None:
    """633b.5(o), (v)(2), (v)(3): on an ace up card insurance is offered to every player; a
    dealer Blackjack deals no more cards, insurance pays 2 to 1, the Blackjack wagers lose
    and a Buzzer Beater on 20 against the dealer's Blackjack pays 30 to 1."""
    game = Game(
        [("a", 1, {BJ: 1000, BB: 500}), ("b", 1, 1000), ("c", 2, {BJ: 1000, BB: 500})],
        "TS 9C AD KH TH QC 5C 5D",
    )
    assert game.round.phase is Phase.INSURANCE
    assert game.round.pending_insurance == ("a", "b", "c")
    assert game.round.view("a").insurance_pending
    game.do("decline_insurance", "a")
    with pytest.raises(BetOutOfLimits, match="half"):
        game.round.verify_insurance("b", 600)
    game.do("insure", "b", 500)
    assert game.of(DealerPeeked) == []
    game.do("decline_insurance", "c")
    assert game.of(DealerPeeked) == [DealerPeeked(True)]
    assert game.round.complete
    assert game.of(Hybrid3CommunityCard) == [] and game.of(Hybrid3CardUsed) == []
    assert game.shoe.position == 6
    assert game.settled("a").paid == 0
    assert game.settled("a").line == LINE_DEALER_BLACKJACK
    assert game.settled("a", BB).paid == 500 + 500 * 30
    assert game.settled("b", "insurance").paid == 1500
    assert game.settled("b", "insurance").line == LINE_INSURANCE
    assert game.settled("c", BB).paid == 500 + 500 * 10  # 19 against Blackjack: 10 to 1
    assert_replays(game)


def test_dealer_blackjack_under_a_ten_is_found_by_the_reader() -> None:
    """633b.5(o): under a ten-value up card the hole card is checked with no insurance offer;
    a player Blackjack pushes and a Blackjack/Blackjack Buzzer Beater pays 5 to 1."""
    game = Game([("a", 1, {BJ: 1000, BB: 500})], "AS KD JD AC")
    assert game.of(DealerPeeked) == [DealerPeeked(True)]
    assert game.settled("a").outcome == "pushed"
    assert game.settled("a").paid == 1000
    assert game.settled("a", BB).paid == 3000
    assert game.settled("a", BB).line == "Buzzer Beater Blackjack/Blackjack 5 to 1 (633b.5(v)(3))"
    assert_replays(game)


def test_no_dealer_blackjack_insurance_loses_and_play_goes_on() -> None:
    """633b.5(o): with no dealer Blackjack under the ace the insurance loses and each player
    goes on to decide his hand."""
    game = Game([("a", 1, 1000)], "TS AD 8S 7C")
    game.do("insure", "a", 500)
    assert game.of(DealerPeeked) == [DealerPeeked(False)]
    assert game.settled("a", "insurance").paid == 0
    assert game.round.phase is Phase.PLAYING
    assert game.round.to_act("a") == 0
    game.do("stand", "a")
    assert (game.settled("a").paid, game.settled("a").line) == (1000, LINE_PUSH)  # 18 / A,7
    assert_replays(game)


def test_even_money_for_a_blackjack_against_an_ace() -> None:
    """633a.8, 633b.5(o): a player Blackjack against an ace may take even money; another
    player on the same position who declines is paid 3 to 2 once the dealer has no Blackjack,
    and the Buzzer Beater of the even money player loses ((p)(1))."""
    game = Game([("a", 1, {BJ: 1000, BB: 500}), ("b", 1, 1000)], "AS AD JD 7C")
    assert game.round.can_take_even_money("a")
    game.do("take_even_money", "a")
    assert game.settled("a").paid == 2000
    assert game.settled("a").line == LINE_EVEN_MONEY
    game.do("decline_insurance", "b")
    assert game.settled("b").paid == 2500
    assert game.settled("a", BB).line == LINE_BB_CLEARED
    assert game.round.phase is Phase.COMPLETE
    assert_replays(game)


# ------------------------------------------------------------------------ (p)


def test_blackjack_against_two_to_nine_is_paid_at_once_and_clears_buzzer_beaters() -> None:
    """633b.5(p)(1): a position's Blackjack against a 7 up card is paid 3 to 2 at the deal,
    for every player on that position, and their Buzzer Beater wagers are cleared; the
    other position plays on."""
    game = Game(
        [("a", 1, {BJ: 1000, BB: 500}), ("b", 1, {BJ: 2000, BB: 300}), ("c", 2, 1000)],
        "AS 9H 7D KH 9S TC",
    )
    assert game.settled("a").paid == 2500
    assert game.settled("a").line == LINE_BLACKJACK_NOW
    assert game.settled("b").paid == 5000
    assert game.settled("a", BB).paid == 0
    assert game.settled("b", BB).line == LINE_BB_CLEARED
    assert game.round.to_act("a") is None and game.round.to_act("b") is None
    assert game.round.pending_players == ("c",)
    game.do("stand", "c")
    assert game.settled("c").paid == 2000  # 18 against 17
    assert_replays(game)


def test_each_player_decides_for_himself_and_the_countdown_stands() -> None:
    """633b.5(p)(2): players on one position decide independently and in any order; a
    player who takes no action by the end of the countdown is deemed to stand."""
    game = Game([("a", 1, 1000), ("b", 1, 1000), ("c", 1, 1000)], "TS 9D 6S 8C 5H")
    assert game.round.countdown_action("b") == "stand"
    game.do("hit", "c")  # c first: there is no turn order between players
    assert game.hand("c")[0] == cards("TS 6S 5H")
    game.do("stand", "a")
    assert game.round.phase is Phase.PLAYING
    game.do("finish")
    assert Hybrid3Decision("b", 1, 0, "stand", 0, True) in game.events
    assert game.settled("a").paid == 0  # 16 against 17
    assert game.settled("b").paid == 0
    assert game.settled("c").paid == 2000  # 21 against 17
    assert_replays(game)


def test_countdown_declines_insurance() -> None:
    """633b.5(p)(2), 633a.8: the countdown answers the insurance offer with no insurance."""
    game = Game([("a", 1, 1000)], "TS AD 8S 7C")
    assert game.round.countdown_action("a") == "no-insurance"
    game.do("countdown", "a")
    assert Hybrid3Decision("a", 1, 0, "no-insurance", 0, True) in game.events
    assert game.round.countdown_action("a") == "stand"
    game.do("countdown", "a")
    assert game.events[-1] == RoundCompleted(cards("AD 7C"), 18)
    assert_replays(game)


# ---------------------------------------------------------------- (q) community


def test_several_players_share_the_same_community_cards_and_dealer() -> None:
    """633b.5(q): community cards are used by every player of every position who draws. Two
    players on position 1: one hits and takes community card 1, the other stands; a player on
    position 2 who hits also takes community card 1, and another who hits twice takes 1 and
    2. Two community cards are dealt (the most any player used) and the dealer's hand is the
    same for everyone."""
    game = Game(
        [("a", 1, 1000), ("b", 1, 1000), ("c", 2, 1000), ("d", 2, 1000)],
        # pos1 pos2 UP pos1 pos2 HOLE | CC1 CC2 | spare
        "5H 6C 9D 7S 4D 8C 8H 2C KD",
    )
    game.do("hit", "a")
    game.do("stand", "a")
    game.do("stand", "b")
    game.do("hit", "c")
    game.do("stand", "c")
    game.do("hit", "d")
    assert len(game.of(Hybrid3CommunityCard)) == 1  # d's first draw reused card 1
    game.do("hit", "d")
    game.do("stand", "d")
    assert game.of(Hybrid3CommunityCard) == [
        Hybrid3CommunityCard(1, parse_cards("8H")[0], 6),
        Hybrid3CommunityCard(2, parse_cards("2C")[0], 7),
    ]
    assert game.hand("a") == (cards("5H 7S 8H"), (0, 0, 1))
    assert game.hand("b") == (cards("5H 7S"), (0, 0))
    assert game.hand("c") == (cards("6C 4D 8H"), (0, 0, 1))
    assert game.hand("d") == (cards("6C 4D 8H 2C"), (0, 0, 1, 2))
    assert game.of(RoundCompleted) == [RoundCompleted(cards("9D 8C"), 17)]
    assert game.shoe.position == 8
    assert game.settled("a").line == LINE_WIN  # 20 against 17
    assert game.settled("b").line == LINE_LOSS  # 12 against 17
    assert game.settled("c").paid == 2000  # 18
    assert game.settled("d").paid == 2000  # 20
    assert game.round.view("c").community == cards("8H 2C")
    assert game.round.view("c").used == (1,)
    assert_replays(game)


def test_order_of_acting_changes_no_card() -> None:
    """633b.5(q): community card k is the same card whoever draws it first, so the same
    decisions taken in another order give every player the same cards and settlements."""

    def play(order: list[tuple[str, str]]) -> list[Any]:
        game = Game([("a", 1, 1000), ("b", 2, 1000)], "5H 6C 9D 7S 4D 6H 2C 3D 9S KD")
        for player, action in order:
            game.do("act", player, action)
        assert_replays(game)
        settled = sorted((e.player, e.hand, e.paid, e.line) for e in game.of(Hybrid3WagerSettled))
        return [*settled, game.of(RoundCompleted)]

    first = play([("a", "hit"), ("a", "hit"), ("a", "stand"), ("b", "hit"), ("b", "stand")])
    second = play([("b", "hit"), ("a", "hit"), ("b", "stand"), ("a", "hit"), ("a", "stand")])
    assert first == second


def test_split_hands_continue_the_players_own_sequence() -> None:
    """633b.5(q), 633a.11: after splitting 8-8 the first hand takes the player's next
    community card (card 1) and its hits (card 2), the second hand the next one (card 3);
    another player on the same position who hits starts at community card 1."""
    game = Game([("a", 1, 1000), ("b", 1, 1000)], "8H 9D 8S 8C 3C TD 2H QS")
    game.do("split", "a")
    assert game.hand("a", 0) == (cards("8H 3C"), (0, 1))
    assert game.round.to_act("a") == 0
    with pytest.raises(NotYourTurn, match=r"633a\.11"):
        game.round.verify_hit("a", 1)
    game.do("hit", "a", 0)  # 21: the hand is finished (r)(1)
    assert game.hand("a", 0) == (cards("8H 3C TD"), (0, 1, 2))
    assert game.hand("a", 1) == (cards("8S 2H"), (0, 3))
    assert game.round.to_act("a") == 1
    game.do("stand", "a", 1)
    game.do("hit", "b")
    game.do("stand", "b")
    assert game.hand("b") == (cards("8H 8S 3C"), (0, 0, 1))
    assert len(game.of(Hybrid3CommunityCard)) == 3
    assert game.settled("a", BJ, 0).paid == 2000  # 21 against 17
    assert game.settled("a", BJ, 1).paid == 0  # 10 against 17
    assert game.settled("b").paid == 2000  # 19 against 17
    assert_replays(game)


def test_split_aces_take_one_card_each_and_are_never_blackjack() -> None:
    """633a.11: split aces receive one community card each; an ace and a ten after a split
    is 21, not Blackjack, and is paid 1 to 1."""
    game = Game([("a", 1, 1000)], "AH 9D AS 8C KD 5C")
    assert game.round.legal_actions("a") == {Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT}
    game.do("split", "a")
    assert game.round.phase is Phase.COMPLETE
    assert game.hand("a", 0) == (cards("AH KD"), (0, 1))
    assert game.hand("a", 1) == (cards("AS 5C"), (0, 2))
    assert game.settled("a", BJ, 0).paid == 2000
    assert game.settled("a", BJ, 0).line == LINE_WIN
    assert_replays(game)


def test_split_limits_and_double_after_split_follow_the_rules() -> None:
    """633a.10, 633a.11: a table with at most two hands refuses a resplit; a double after a
    split is refused unless the Rules Submission allows it."""
    game = Game([("a", 1, 1000)], "8H 9D 8S 8C 8D 3C 8C 5H", table(max_split_hands=2))
    game.do("split", "a")
    assert game.hand("a", 0)[0] == cards("8H 8D")
    with pytest.raises(ActionNotAllowed, match="at most 2 hands"):
        game.round.verify_split("a")
    with pytest.raises(ActionNotAllowed, match="after a split"):
        game.round.verify_double("a")
    game.do("finish")
    assert_replays(game)
    das = Game([("a", 1, 1000)], "8H 9D 8S 8C 3C TD 2H QS", table(double_after_split=True))
    das.do("split", "a")
    das.do("double", "a")  # 8+3 doubled: takes the player's next card, community card 2
    assert das.hand("a", 0) == (cards("8H 3C TD"), (0, 1, 2))
    das.do("finish")
    assert das.settled("a", "double", 0).paid == 2000
    assert_replays(das)


# --------------------------------------------------------------------- (r)


def test_no_draw_on_twenty_one_or_blackjack() -> None:
    """633b.5(r)(1): a player with a soft 21 after drawing may not draw again (the hand is
    finished without a decision), and a Blackjack is never offered a card."""
    game = Game([("a", 1, 1000), ("b", 2, 1000)], "AH AS 9D 5C TD 8C 5D 3H")
    assert game.round.to_act("b") is None  # Blackjack paid under (p)(1)
    with pytest.raises(IllegalAction):
        game.round.verify_hit("b")
    game.do("hit", "a")  # A,5 + 5 = soft 21
    assert game.hand("a")[0] == cards("AH 5C 5D")
    assert game.round.legal_actions("a") == frozenset()
    with pytest.raises(IllegalAction):
        game.round.verify_hit("a")
    assert game.round.phase is Phase.COMPLETE
    assert_replays(game)


def test_double_down_takes_only_the_first_community_card() -> None:
    """633b.5(r)(2): a player who doubles takes only community card 1, even after another
    player drew cards 1 and 2, and may not draw again."""
    game = Game([("a", 1, 1000), ("b", 1, 1000)], "5H 9D 6S 8C 2C 9H 4D")
    game.do("hit", "b")
    game.do("hit", "b")  # 11 + 2 + 9: bust
    assert game.settled("b").line == LINE_BUST
    assert game.round.legal_actions("a") == {Action.HIT, Action.STAND, Action.DOUBLE}
    game.do("double", "a")
    assert game.hand("a") == (cards("5H 6S 2C"), (0, 0, 1))
    assert len(game.of(Hybrid3CommunityCard)) == 2
    assert game.round.phase is Phase.COMPLETE
    assert game.settled("a").paid == 0 and game.settled("a", "double").paid == 0
    assert_replays(game)


def test_double_down_amount_is_at_most_the_original_wager() -> None:
    """633a.10: the additional wager of a double down may not exceed the original."""
    game = Game([("a", 1, 1000)], "5H 9D 6S 8C TC")
    with pytest.raises(BetOutOfLimits, match=r"633a\.10"):
        game.round.verify_double("a", 0, 1100)
    game.do("double", "a", 0, 500)
    assert game.settled("a").paid == 2000 and game.settled("a", "double").paid == 1000
    assert_replays(game)


# ------------------------------------------------------------------------ (s)


def test_dealer_draws_after_the_community_cards_to_seventeen() -> None:
    """633b.5(s): after every decision the hole card is turned up and the dealer draws from
    the shoe, after the community cards, until he has 17 to 21."""
    game = Game([("a", 1, 1000), ("b", 1, 1000)], "TS 6D 7S TC 3H 2C 5C")
    game.do("hit", "b")  # 17 + 3 = 20
    game.do("stand", "b")
    assert game.of(HoleCardRevealed) == []
    game.do("stand", "a")
    dealer = [e for e in game.of(CardDealt) if e.seat == 0]
    assert [(str(e.card), e.position) for e in dealer] == [
        ("6D", 1),
        ("TC", 3),
        ("2C", 5),
    ]
    assert game.of(RoundCompleted) == [RoundCompleted(cards("6D TC 2C"), 18)]
    assert game.shoe.position == 6
    assert game.settled("a").line == LINE_LOSS
    assert game.settled("b").paid == 2000
    assert_replays(game)


def test_dealer_stands_on_soft_seventeen() -> None:
    """633b.5(s), (c)(2): the dealer stands on all 17s, soft 17 included."""
    game = Game([("a", 1, 1000)], "TS AD 9S 6C 5H")
    game.do("decline_insurance", "a")
    game.do("stand", "a")
    assert game.of(RoundCompleted) == [RoundCompleted(cards("AD 6C"), 17)]
    assert game.settled("a").paid == 2000
    assert_replays(game)


# ------------------------------------------------------------------------ (t)


def test_win_when_the_dealer_goes_over_21() -> None:
    """633b.5(t)(1)(i): a hand of 21 or less wins 1 to 1 when the dealer goes over 21."""
    game = Game([("a", 1, 1000)], "TS 6D 2S TC KH")
    game.do("stand", "a")
    assert game.settled("a").paid == 2000
    assert game.settled("a").line == LINE_DEALER_BUST
    assert_replays(game)


def test_win_with_the_higher_total() -> None:
    """633b.5(t)(1)(ii): a hand whose total beats the dealer's without exceeding 21 wins."""
    game = Game([("a", 1, 1000)], "TS 9D 9S 9C")
    game.do("stand", "a")
    assert (game.settled("a").paid, game.settled("a").line) == (2000, LINE_WIN)
    assert_replays(game)


def test_blackjack_beats_a_dealer_21_of_more_cards() -> None:
    """633b.5(t)(1)(iii): a player Blackjack against a dealer 21 of three cards wins 3 to 2
    (here paid at once after the hole-card check under the ten, (p)(1))."""
    game = Game([("a", 1, 1000), ("b", 2, 1000)], "AS 9H TD KH 9S 5C 6C")
    assert game.settled("a").paid == 2500
    game.do("stand", "b")
    assert game.round.dealer_total() == 21 and len(game.round.dealer) == 3
    assert main_result(cards("AS KH"), False, cards("TD 5C 6C")) == (
        "won",
        LINE_BLACKJACK_OVER_21,
        ToOne(3, 2),
    )
    assert_replays(game)


def test_equal_totals_push() -> None:
    """633b.5(t)(2): equal totals push and the stake is returned."""
    game = Game([("a", 1, 1000)], "TS 9D 8S 9C")
    game.do("stand", "a")
    assert (game.settled("a").paid, game.settled("a").outcome) == (1000, "pushed")
    assert game.settled("a").line == LINE_PUSH
    assert_replays(game)


def test_a_hand_over_21_loses_at_once() -> None:
    """633b.5(t)(3)(i): a hand over 21 loses, settled as it busts, even if the dealer later
    goes over 21 too."""
    game = Game([("a", 1, 1000), ("b", 2, 1000)], "TS 9S 6D 5S 9C TC 8H TH")
    game.do("hit", "a")
    assert game.settled("a").line == LINE_BUST
    game.do("stand", "b")
    assert game.round.dealer_total() > 21
    assert game.settled("a").paid == 0
    assert_replays(game)


def test_lose_to_the_higher_dealer_total() -> None:
    """633b.5(t)(3)(ii): the dealer's higher total without exceeding 21 wins."""
    game = Game([("a", 1, 1000)], "TS 9D 7S TC")
    game.do("stand", "a")
    assert (game.settled("a").paid, game.settled("a").line) == (0, LINE_LOSS)
    assert_replays(game)


def test_dealer_blackjack_beats_a_21_of_more_cards() -> None:
    """633b.5(t)(3)(iii): a dealer Blackjack beats a player 21 of more than two cards. At
    this table the check of (o) ends the round on a dealer Blackjack before any player
    draws, so the case is settled only by the pure rule, checked here."""
    assert main_result(cards("7S 7H 7D"), False, cards("AS KD")) == (
        "lost",
        LINE_DEALER_BLACKJACK_OVER_21,
        None,
    )
    assert main_result(cards("AS KD"), True, cards("AH QD"))[:2] == ("lost", LINE_DEALER_BLACKJACK)
    assert main_result(cards("AS KD"), False, cards("AH QD")) == ("pushed", LINE_PUSH, None)


# ------------------------------------------------------------------------ (u)


@pytest.mark.parametrize(
    ("deal", "paid"),
    [
        # pos1 UP pos1 HOLE [dealer draws]: player total / dealer total -> pays
        ("TS TD 9S TC", 500 + 5000),  # 19 / 20: 10 to 1
        ("TS TD QS TC", 500 + 2500),  # 20 / 20: 5 to 1
        ("TS TD 9S 9C", 500 + 2500),  # 19 / 19: 5 to 1
        ("TS 6D QS 5C TH", 500 + 15000),  # 20 / 21: 30 to 1
        ("TS 6D 9S 5C TH", 500 + 5000),  # 19 / 21: 10 to 1
    ],
)
def test_buzzer_beater_wins_on_19_to_21_when_the_dealer_is_equal_or_greater(
    deal: str, paid: int
) -> None:
    """633b.5(u)(1), (v)(3): a player 19 or 20 against a dealer hand equal or greater
    without exceeding 21 wins the Buzzer Beater at the odds of the table."""
    game = Game([("a", 1, {BJ: 1000, BB: 500})], deal)
    game.do("stand", "a")
    assert game.settled("a", BB).paid == paid
    assert game.settled("a", BB).outcome == "won"
    assert_replays(game)


FINAL_HAND = "final-hand"


def test_buzzer_beater_on_a_player_21_against_a_dealer_21() -> None:
    """633b.5(u)(1) read on the final hand: a player 21 that is not Blackjack against a
    dealer 21 wins the Buzzer Beater, but (v)(3) has no line for it: this table pays the odds
    of the equal-hand lines, 5 to 1, by default; a table that sets no odds returns the stake.
    On the position's first two cards (the default) the hand is a 14 and loses."""
    deal = "9S 7D 5S 4C 7H TD"  # player 9+5, hits 7 = 21; dealer 7+4, draws 10 = 21
    final = table(buzzer_beater_basis=FINAL_HAND)
    game = Game([("a", 1, {BJ: 1000, BB: 500})], deal, final)
    game.do("hit", "a")
    assert game.settled("a").outcome == "pushed"
    assert game.settled("a", BB).paid == 3000
    assert "not in (v)(3)" in game.settled("a", BB).line
    assert_replays(game)
    none = Game([("a", 1, {BJ: 1000, BB: 500})], deal, replace(final, buzzer_beater_21_pays=None))
    none.do("hit", "a")
    assert (none.settled("a", BB).paid, none.settled("a", BB).line) == (500, LINE_BB_21_PUSH)
    assert_replays(none)
    two_cards = Game([("a", 1, {BJ: 1000, BB: 500})], deal)
    two_cards.do("hit", "a")
    assert two_cards.settled("a", BB).paid == 0


def test_633b_5_u_buzzer_beater_on_the_positions_first_two_cards() -> None:
    """633b.5(m), (p)(1), (u), read on the position's first two cards (the default): a 20
    that hits and goes over 21 still wins 30 to 1 when the dealer completes a 21 (the dealer
    draws while a Buzzer Beater is unsettled); on the final hand it lost with the bust."""
    deal = "TS 6D QS 5C 9H TH"  # position 20; the player hits 9 = 29; dealer 11 draws 10 = 21
    game = Game([("a", 1, {BJ: 1000, BB: 500})], deal)
    game.do("hit", "a")
    assert game.settled("a").outcome == "lost"
    assert game.settled("a", BB).paid == 500 + 500 * 30
    assert game.settled("a", BB).line == "Buzzer Beater 20/21 or Blackjack 30 to 1 (633b.5(v)(3))"
    assert tuple(game.round.dealer) == cards("6D 5C TH")
    assert_replays(game)
    final = Game([("a", 1, {BJ: 1000, BB: 500})], deal, table(buzzer_beater_basis=FINAL_HAND))
    final.do("hit", "a")
    assert final.settled("a", BB).paid == 0


def test_633b_5_p_1_every_buzzer_beater_on_a_position_rides_on_its_two_cards() -> None:
    """633b.5(p)(1) "Buzzer Beater wagers ... placed on that player position": two players
    on a 19 are paid alike, 10 to 1 against the dealer's 21, whether one stands and the other
    draws to 21 (on the final hand the second was paid 5 to 1 on a 21/21 not in (v)(3))."""
    deal = "TS 6D 9S 5C 2H TH"  # position 19; b hits 2 = 21; dealer 11 draws 10 = 21
    joins: list[tuple[str, int, int | Mapping[str, int]]] = [
        ("a", 1, {BJ: 1000, BB: 500}),
        ("b", 1, {BJ: 1000, BB: 500}),
    ]
    game = Game(joins, deal)
    game.do("stand", "a")
    game.do("hit", "b")
    assert [game.settled(p, BB).paid for p in "ab"] == [500 + 5000, 500 + 5000]
    assert_replays(game)
    final = Game(joins, deal, table(buzzer_beater_basis=FINAL_HAND))
    final.do("stand", "a")
    final.do("hit", "b")
    assert [final.settled(p, BB).paid for p in "ab"] == [500 + 5000, 3000]


def test_buzzer_beater_loses_when_the_player_beats_the_dealer() -> None:
    """633b.5(u)(2)(i): a Buzzer Beater loses when the player's hand beats the dealer's,
    also when the dealer goes over 21."""
    game = Game(
        [("a", 1, {BJ: 1000, BB: 500}), ("b", 2, {BJ: 1000, BB: 500})], "TS 9H 6D QS TC TD 8C"
    )
    game.do("stand", "a")
    game.do("stand", "b")
    assert game.settled("a", BB).line == LINE_BB_PLAYER_BEAT
    assert game.settled("b", BB).paid == 0
    assert_replays(game)


def test_buzzer_beater_loses_when_the_dealer_beats_a_hand_under_19() -> None:
    """633b.5(u)(2)(ii): the dealer beats a hand that is not 19, 20, 21 or Blackjack, or the
    hand goes over 21: the Buzzer Beater loses; a push below 19 loses too (the wager is on a
    hand of 19 or more, (m))."""
    game = Game([("a", 1, {BJ: 1000, BB: 500}), ("b", 2, {BJ: 1000, BB: 500})], "TS 9H TD 8S 9C QC")
    game.do("stand", "a")
    game.do("stand", "b")
    assert game.settled("a", BB).line == LINE_BB_UNDER_19  # 18 against 20
    assert game.settled("b", BB).line == LINE_BB_UNDER_19  # 18 against 20
    assert_replays(game)
    bust = Game([("a", 1, {BJ: 1000, BB: 500})], "TS 9D 6S 8C KH")
    bust.do("hit", "a")
    assert bust.settled("a", BB).line == LINE_BB_UNDER_19
    assert buzzer_beater_result(cards("TS 8H"), False, cards("9S 9D")) == (
        "lost",
        LINE_BB_NOT_19,
        None,
    )


def test_buzzer_beater_after_a_split_rides_on_the_first_hand() -> None:
    """633b.5(u) read on the final hand: after a split the Buzzer Beater is settled on the
    player's first hand (on the position's two cards, 18, it loses)."""
    game = Game(
        [("a", 1, {BJ: 1000, BB: 500})], "9S TD 9H TC KH 2C", table(buzzer_beater_basis=FINAL_HAND)
    )
    game.do("split", "a")
    game.do("stand", "a")  # hand 0: 9 + K = 19
    game.do("stand", "a")  # hand 1: 9 + 2 = 11
    assert game.settled("a", BB).paid == 500 + 5000  # 19 / 20
    assert game.settled("a", BB).hand == 0
    assert_replays(game)


def test_buzzer_beater_table_every_line() -> None:
    """633b.5(v)(3): every line of the Buzzer Beater table, and no payout outside (u)(1)."""
    dealers = {
        "17": "TD 7C",
        "18": "TD 8C",
        "19": "TD 9C",
        "20": "TD QC",
        "21": "TD 5C 6C",
        "Blackjack": "AD QC",
        "bust": "TD 6C 9C",
    }
    players = {"18": "TS 8H", "19": "TS 9H", "20": "TS KH", "21": "7S 7H 7D", "Blackjack": "AS KH"}
    strength = {"17": 17, "18": 18, "19": 19, "20": 20, "21": 21, "Blackjack": 22, "bust": -1}
    for p, p_cards in players.items():
        for d, d_cards in dealers.items():
            outcome, line, odds = buzzer_beater_result(cards(p_cards), False, cards(d_cards))
            wins = p in ("19", "20", "21", "Blackjack") and strength[d] >= strength[p]
            if not wins:
                assert (outcome, odds) == ("lost", None), (p, d, line)
                continue
            assert outcome == "won", (p, d)
            if p == "21":
                assert odds == ToOne(5, 1)
            else:
                key = (p, "21" if d == "Blackjack" and p != "Blackjack" else d)
                assert odds == BUZZER_BEATER_PAYS[key], (p, d)
    assert dict(BUZZER_BEATER_PAYS) == {
        ("Blackjack", "Blackjack"): ToOne(5, 1),
        ("20", "20"): ToOne(5, 1),
        ("20", "21"): ToOne(30, 1),
        ("19", "19"): ToOne(5, 1),
        ("19", "20"): ToOne(10, 1),
        ("19", "21"): ToOne(10, 1),
    }


# ------------------------------------------------------------------------ (v)


def test_blackjack_pays_three_to_two_other_wins_one_to_one() -> None:
    """633b.5(v)(1): a player Blackjack is paid 3 to 2 ($5 wins $7.50); a doubled hand wins
    1 to 1 on both wagers."""
    game = Game([("a", 1, 500), ("b", 2, 1000)], "AS 5H 8D KH 6S TC 9C")
    assert game.settled("a").paid == 1250
    assert game.settled("a").line == LINE_BLACKJACK_NOW
    game.do("double", "b")  # 11 + 9 = 20 against 18
    assert game.settled("b").paid == 2000 and game.settled("b", "double").paid == 2000
    assert_replays(game)


def test_insurance_pays_two_to_one() -> None:
    """633b.5(v)(2): a winning insurance wager is paid 2 to 1."""
    game = Game([("a", 1, 1000)], "9S AD 9H KC")
    game.do("insure", "a", 300)
    assert game.settled("a", "insurance").paid == 900
    assert_replays(game)


# ------------------------------------------------------------------ views, replay


def test_view_hides_the_hole_card_until_it_is_turned_up() -> None:
    """633b.5(n)(4), (o), (s): the hole card is face down until the dealer turns it up; a
    player's view shows the positions, the community cards and which of them he used."""
    game = Game([("a", 1, 1000), ("b", 2, 1000)], "5H 6C 9D 7S 4D 8C 8H 2C")
    view = game.round.view("a")
    assert view.dealer_cards == (parse_cards("9D")[0], None)
    assert view.dealer_total == 9
    assert view.positions == ((1, cards("5H 7S")), (2, cards("6C 4D")))
    assert view.to_act == 0 and Action.DOUBLE in view.legal
    game.do("hit", "b")
    view = game.round.view("a")
    assert view.community == cards("8H") and view.used == ()
    game.do("finish")
    view = game.round.view("a")
    assert view.dealer_cards == cards("9D 8C") and view.dealer_total == 17
    assert view.hands[0].settled
    with pytest.raises(SeatError):
        game.round.view("nobody")


def test_replay_refuses_a_tampered_log() -> None:
    """A logged round whose cards or decisions were changed does not replay."""
    game = Game([("a", 1, 1000), ("b", 1, 1000)], "5H 9D 7S 8C 8H")
    game.do("hit", "a")
    game.do("finish")
    assert_replays(game)
    tampered = list(game.events)
    i = next(k for k, e in enumerate(tampered) if type(e) is Hybrid3WagerSettled)
    tampered[i] = tampered[i]._replace(paid=tampered[i].paid + 100)
    with pytest.raises(ReplayMismatch):
        replay(game.rules, tampered)
    dropped = [e for e in game.events if not (type(e) is Hybrid3Decision and e.player == "b")]
    with pytest.raises(ReplayMismatch):
        replay(game.rules, dropped)


def test_surrender_and_unknown_actions_are_refused() -> None:
    """633b.5(p)(2): the decisions are double down, split, stand or draw; surrender is not
    offered at this table."""
    game = Game([("a", 1, 1000)], "5H 9D 7S 8C")
    with pytest.raises(ActionNotAllowed, match="not offered"):
        game.round.act("a", Action.SURRENDER)
    with pytest.raises(ActionNotAllowed):
        game.round.act("a", "fold")
    with pytest.raises(SeatError):
        game.round.act("nobody", Action.STAND)


def test_rules_refuse_deck_counts_other_than_six_or_eight() -> None:
    """633b.5(f): Blackjack on a hybrid table uses six or eight decks."""
    with pytest.raises(ValueError, match=r"633b\.5\(f\)"):
        ThreePositionRules(decks=2)


# --------------------------------------------------------------------- property

#: Few ranks, so that the stacked prefix of a shoe often holds pairs, aces and Blackjacks.
LOW_VARIETY = [c for c in CARDS if c.rank in (2, 6, 8, 9, 10, 14)]

rules_strategy = st.builds(
    ThreePositionRules,
    double_after_split=st.booleans(),
    max_split_hands=st.integers(1, 4),
    resplit_aces=st.booleans(),
    hit_split_aces=st.booleans(),
    insurance=st.booleans(),
    even_money=st.booleans(),
    main_limits=st.just(WagerLimits(100, 100_000, 100)),
    buzzer_beater=st.sampled_from([None, WagerLimits(100, 10_000, 100)]),
    buzzer_beater_21_pays=st.sampled_from([None, ToOne(5, 1)]),
    buzzer_beater_basis=st.sampled_from(["first-two-cards", "final-hand"]),
)

joins_strategy = st.lists(
    st.tuples(st.integers(1, 3), st.integers(1, 50), st.integers(0, 20)),
    min_size=1,
    max_size=6,
)


def _shoe(prefix: list[Card], seed: int) -> StackedShoe:
    tail = Shoe(6, ShoeSeed.from_test_seed(seed))
    return StackedShoe(prefix + [tail.draw() for _ in range(120)])


def _run(
    rules: ThreePositionRules,
    joins: list[tuple[int, int, int]],
    shoe: StackedShoe,
    data: st.DataObject,
) -> tuple[ThreePositionRound, list[Any]]:
    game = ThreePositionRound(rules)
    events: list[Any] = []
    for n, (position, main, bb) in enumerate(joins):
        wagers = {BJ: main * 100}
        if bb and rules.buzzer_beater is not None:
            wagers[BB] = bb * 100
        events += game.join(f"t{n}", position, wagers)
    events += game.deal(shoe)
    for _ in range(200):
        if game.phase is Phase.COMPLETE:
            break
        player = data.draw(st.sampled_from(game.pending_players))
        if data.draw(st.integers(0, 9)) == 0:
            events += game.countdown(player)
            continue
        if game.phase is Phase.INSURANCE:
            options = ["no"]
            if game.can_insure(player):
                options.append("insure")
            if game.can_take_even_money(player):
                options.append("even")
            choice = data.draw(st.sampled_from(options))
            if choice == "insure":
                half = game.players[player].wagers[BJ] // 2
                events += game.insure(player, data.draw(st.integers(1, half)))
            elif choice == "even":
                events += game.take_even_money(player)
            else:
                events += game.decline_insurance(player)
            continue
        legal = sorted(game.legal_actions(player))
        assert legal, "a pending player always has a legal decision"
        for action in Action:
            hand = game.to_act(player)
            refused = action not in legal
            if refused and action in (Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT):
                with pytest.raises(IllegalAction):
                    game.act(player, action, hand)
        if Action.SPLIT in legal and data.draw(st.booleans()):
            events += game.act(player, Action.SPLIT)
        else:
            events += game.act(player, data.draw(st.sampled_from(legal)))
    assert game.phase is Phase.COMPLETE
    return game, events


@settings(max_examples=300, deadline=None)
@given(
    rules_strategy,
    joins_strategy,
    st.lists(st.sampled_from(LOW_VARIETY), min_size=6, max_size=24),
    st.integers(0, 10_000),
    st.data(),
)
def test_random_rounds_conserve_money_and_replay(
    rules: ThreePositionRules,
    joins: list[tuple[int, int, int]],
    prefix: list[Card],
    seed: int,
    data: st.DataObject,
) -> None:
    """Whatever the players decide, on a stacked or seeded shoe, every wager placed is settled
    exactly once for its full stake, the dealer draws only after the community cards, the
    number of community cards dealt is the most any player used, the log replays to the same
    events, and the order in which the players act changes no card and no settlement."""
    game, events = _run(rules, joins, _shoe(prefix, seed), data)
    assert_conserved(events)
    community = [e for e in events if type(e) is Hybrid3CommunityCard]
    assert [e.number for e in community] == list(range(1, len(community) + 1))
    most = max((s.drawn for s in game.players.values()), default=0)
    assert len(community) == most
    used = [e for e in events if type(e) is Hybrid3CardUsed]
    for e in used:
        assert community[e.number - 1].card == e.card
    dealer_draws = [e for e in events if type(e) is CardDealt and e.seat == 0][2:]
    if community and dealer_draws:
        assert dealer_draws[0].position > community[-1].position
    again = replay(rules, events)
    assert again.phase is Phase.COMPLETE
    assert replay(rules, [from_dict(to_dict(e)) for e in events]).phase is Phase.COMPLETE
    # 633b.5(q): the same decisions in another order (players reversed, each playing all his
    # hands at once) give every player the same cards and settlements.
    other = _reorder(rules, joins, _shoe(prefix, seed), events)
    assert _outcome(other) == _outcome(events)


INSURANCE_ANSWERS = ("insurance", "no-insurance", "even-money")


def _apply(game: ThreePositionRound, d: Hybrid3Decision) -> list[Any]:
    if d.action == "insurance":
        return game.insure(d.player, d.amount, auto=d.auto)
    if d.action == "no-insurance":
        return game.decline_insurance(d.player, auto=d.auto)
    if d.action == "even-money":
        return game.take_even_money(d.player, auto=d.auto)
    amount = d.amount if d.action == "double" else None
    return game.act(d.player, d.action, d.hand, amount=amount, auto=d.auto)


def _reorder(
    rules: ThreePositionRules,
    joins: list[tuple[int, int, int]],
    shoe: StackedShoe,
    events: list[Any],
) -> list[Any]:
    game = ThreePositionRound(rules)
    out: list[Any] = [e for e in events if type(e) is Hybrid3WagerPlaced and e.wager in (BJ, BB)]
    for n, (position, _, _) in enumerate(joins):
        wagers = {e.wager: e.amount for e in out if e.player == f"t{n}"}
        game.join(f"t{n}", position, wagers)
    out += game.deal(shoe)
    decisions = [e for e in events if type(e) is Hybrid3Decision]
    for d in reversed([d for d in decisions if d.action in INSURANCE_ANSWERS]):
        out += _apply(game, d)
    for player in reversed(list(game.players)):
        for d in decisions:
            if d.player == player and d.action not in INSURANCE_ANSWERS:
                out += _apply(game, d)
    assert game.phase is Phase.COMPLETE
    return out


def _outcome(events: list[Any]) -> tuple[Any, ...]:
    settled = sorted(
        (e.player, e.hand, e.wager, e.paid, e.line)
        for e in events
        if type(e) is Hybrid3WagerSettled
    )
    used = sorted(
        (e.player, e.hand, e.number, e.card) for e in events if type(e) is Hybrid3CardUsed
    )
    community = [e for e in events if type(e) is Hybrid3CommunityCard]
    completed = [e for e in events if type(e) is RoundCompleted]
    return tuple(settled), tuple(used), tuple(community), tuple(completed)


def test_lines_are_distinct() -> None:
    """Each settlement line names its paragraph once (the log and the terminal show it)."""
    lines = [
        LINE_BB_CLEARED,
        LINE_BB_NOT_19,
        LINE_BB_PLAYER_BEAT,
        LINE_BB_UNDER_19,
        LINE_BLACKJACK_NOW,
        LINE_BLACKJACK_OVER_21,
        LINE_BUST,
        LINE_DEALER_BLACKJACK,
        LINE_DEALER_BLACKJACK_OVER_21,
        LINE_DEALER_BUST,
        LINE_LOSS,
        LINE_PUSH,
        LINE_WIN,
    ]
    assert len(set(lines)) == len(lines)
