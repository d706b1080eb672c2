"""The TriLux Deluxe Press in the engine, 58 Pa. Code 633b.11(f)-(h): offered after a TriLux
Deluxe win, settled with the hand, matched on a split, replayed from the log.

Card order of an initial deal with seats s1..sn: s1 s2 .. sn UP s1 s2 .. sn HOLE, then the
cards drawn during play in order. Seat 1 wagers $10 on Blackjack and $5 on TriLux Deluxe
(Paytable TLX-3): a flush pays 5 to 1 ($25 of winnings), three of a kind 15 to 1 ($75).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import (
    CardDealt,
    DealerPeeked,
    Decision,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import (
    LINE_BUST,
    LINE_SURRENDER,
    LINE_WIN,
    BlackjackRound,
    Phase,
    replay,
)
from game_server.games.blackjack.rules.rules import BlackjackRules, CountdownDefault
from game_server.rng.shoe import StackedShoe
from game_server.rules.errors import ActionNotAllowed, IllegalAction, WrongPhase
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import SideWagerOffer
from game_server.rules.wagers.buster import BUSTER
from game_server.rules.wagers.trilux import TRILUX, PressNotAllowed, refuse_press
from shared.cards import CARDS

MAIN = WagerLimits(500, 100_000, 100)
SIDE = WagerLimits(100, 10_000, 100)
TLX_3 = TRILUX.paytables["Paytable TLX-3"]
BET = {"blackjack": 1_000, "trilux": 500}
FLUSH_WIN = 2_500  # $5 at 5 to 1
TRIPS_WIN = 7_500  # $5 at 15 to 1

# s1 2H, up 5H, s1 9H, hole TC: a heart flush wins TriLux Deluxe; the player has 11, the
# dealer 15 (no peek under a 5).
FLUSH = "2H 5H 9H TC"


def rules(press: bool | None = True, **changes: Any) -> BlackjackRules:
    options = () if press is None else (("press", press),)
    base: dict[str, Any] = {
        "main_limits": MAIN,
        "side_wagers": (SideWagerOffer(TRILUX, TLX_3, SIDE, options),),
    }
    base.update(changes)
    return BlackjackRules(**base)


class Game:
    """A round plus every event it produced, dealt from a stacked shoe."""

    def __init__(self, table: BlackjackRules, bets: dict[int, dict[str, int]], cards: str) -> None:
        self.rules = table
        self.round = BlackjackRound(table)
        self.events: list[Any] = []
        for seat, wagers in bets.items():
            self.events += self.round.place_wagers(seat, wagers)
        self.events += self.round.deal(StackedShoe(cards))

    def do(self, method: str, *args: Any, **kwargs: Any) -> list[Any]:
        produced: list[Any] = getattr(self.round, method)(*args, **kwargs)
        self.events += produced
        return produced

    def settled(self, seat: int, wager: str, hand: int = 0) -> WagerSettled:
        found = [
            e
            for e in self.events
            if type(e) is WagerSettled and (e.seat, e.hand, e.wager) == (seat, hand, wager)
        ]
        assert len(found) == 1, f"expected one settlement of {wager} seat {seat} hand {hand}"
        return found[0]

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if type(e) is kind]


def assert_conserved(events: list[Any]) -> None:
    """Every wager placed (per seat, hand and name) is settled exactly once, for its full
    stake, and never pays a negative amount."""
    placed: dict[tuple[int, int, str], int] = {}
    for e in events:
        if type(e) is WagerPlaced:
            key = (e.seat, e.hand, e.wager)
            assert key not in placed, f"{key} placed twice"
            placed[key] = e.amount
    settled: dict[tuple[int, int, str], int] = {}
    for e in events:
        if type(e) is WagerSettled and e.stake:
            key = (e.seat, e.hand, e.wager)
            assert key not in settled, f"{key} settled twice"
            assert e.paid >= 0
            settled[key] = e.stake
    assert settled == placed


def finish(game: Game) -> None:
    while (hand := game.round.to_act) is not None:
        game.do("stand", hand.seat, hand.index)
    assert game.round.phase is Phase.COMPLETE


# ------------------------------------------------------------------ when it is offered


def test_press_is_offered_after_a_trilux_win_with_the_option_on() -> None:
    """633b.11(f): a winning TriLux Deluxe wager gives the player the option to cap the
    initial Blackjack wager with the winnings; the most is the winnings, not the stake."""
    game = Game(rules(), {1: BET}, FLUSH)
    assert game.settled(1, "trilux").paid == 500 + FLUSH_WIN
    assert Action.PRESS in game.round.legal_actions()
    assert game.round.can_press(1, 0)
    assert game.round.press_limit(1) == FLUSH_WIN
    assert game.round.can_press(1, 0, FLUSH_WIN)


@pytest.mark.parametrize("press", [None, False])
def test_press_is_not_offered_without_the_option(press: bool | None) -> None:
    """633b.11(f), Rules Submission: without the "press" option the winnings are collected."""
    game = Game(rules(press), {1: BET}, FLUSH)
    assert Action.PRESS not in game.round.legal_actions()
    assert not game.round.can_press(1, 0)
    with pytest.raises(ActionNotAllowed, match=r"does not offer the TriLux Deluxe Press.*\(f\)"):
        game.do("press", 1, 0, 1_000)


def test_press_is_not_offered_when_the_trilux_wager_lost_or_was_not_placed() -> None:
    """633b.11(f): only a seat whose TriLux Deluxe wager wins has winnings to press."""
    # s1 2H, s2 3D, up 5C, s1 9H, s2 4D, hole TC: seat 1 has no TriLux hand, seat 2 no wager.
    game = Game(rules(), {1: BET, 2: {"blackjack": 1_000}}, "2H 3D 5C 9H 4D TC")
    assert game.settled(1, "trilux").outcome == "lost"
    assert Action.PRESS not in game.round.legal_actions()
    with pytest.raises(PressNotAllowed, match=r"no TriLux Deluxe winnings.*633b\.11\(f\)"):
        game.do("press", 1, 0)
    game.do("stand", 1, 0)
    assert Action.PRESS not in game.round.legal_actions()
    assert not game.round.can_press(2, 0)


def test_no_press_when_the_dealer_has_blackjack() -> None:
    """633b.11(g): the winnings may not cap the Blackjack wager when the dealer has
    Blackjack; the peek ends the round before the Press could be offered."""
    game = Game(rules(), {1: BET}, "2H AH 9H KC")
    assert game.settled(1, "trilux").paid == 500 + FLUSH_WIN  # settled at the deal, (e)
    game.do("decline_insurance", 1)
    assert game.of(DealerPeeked) == [DealerPeeked(True)]
    assert game.round.phase is Phase.COMPLETE
    assert not game.round.can_press(1, 0)
    with pytest.raises(WrongPhase):
        game.do("press", 1, 0)
    assert [e.action for e in game.of(Decision)] == ["no-insurance"]
    assert_conserved(game.events)


def test_press_is_offered_after_the_peek_shows_no_dealer_blackjack() -> None:
    """633b.11(g): under an ace the Press waits for the peek; no Blackjack, it is offered."""
    game = Game(rules(), {1: BET}, "2H AH 9H 7C")
    assert not game.round.can_press(1, 0)  # the insurance phase: the peek has not happened
    game.do("decline_insurance", 1)
    assert game.of(DealerPeeked) == [DealerPeeked(False)]
    assert Action.PRESS in game.round.legal_actions()


@pytest.mark.parametrize("cards", ["2H AH 9H 7C", "2H KH 9H 7C"])
def test_no_press_while_the_dealer_blackjack_is_unknown(cards: str) -> None:
    """633b.11(g): a table that does not peek cannot know that the dealer has no Blackjack
    under an ace or a ten-value card, so it never offers the Press there."""
    game = Game(rules(dealer_peeks=False), {1: BET}, cards)
    if game.round.phase is Phase.INSURANCE:
        game.do("decline_insurance", 1)
    assert game.round.to_act is not None
    assert Action.PRESS not in game.round.legal_actions()
    with pytest.raises(PressNotAllowed, match=r"dealer has Blackjack.*633b\.11\(g\)"):
        game.do("press", 1, 0)


def test_a_player_blackjack_is_paid_at_once_and_never_pressed() -> None:
    """633b.11(g) names a pressed Blackjack, but the engine pays a player Blackjack 3 to 2 as
    soon as the dealer is known not to have one (633b.5(v)(1)), before the Press is offered:
    the seat collects its TriLux Deluxe winnings."""
    game = Game(rules(), {1: BET}, "AH 5H KH TC")
    assert game.settled(1, "trilux").outcome == "won"
    assert game.settled(1, "blackjack").paid == 2_500
    assert game.round.phase is Phase.COMPLETE
    assert not any(e.action == "press" for e in game.of(Decision))
    assert_conserved(game.events)


# ------------------------------------------------------------------ amounts


def test_more_than_the_winnings_is_refused() -> None:
    """633b.11(f): "all or a portion of the ... winnings": a cent more is refused, with a
    sentence that names the winnings and the paragraph."""
    game = Game(rules(), {1: BET}, FLUSH)
    with pytest.raises(
        PressNotAllowed, match=r"more than the TriLux Deluxe winnings of \$25\.00.*633b\.11\(f\)"
    ):
        game.do("press", 1, 0, FLUSH_WIN + 1)
    assert not game.round.can_press(1, 0, FLUSH_WIN + 1)
    assert not game.round.can_press(1, 0, 500 + FLUSH_WIN)  # the stake is not pressed


@pytest.mark.parametrize("amount", [0, -100, 250, 1_250])
def test_a_press_of_nothing_or_off_the_wager_unit_is_refused(amount: int) -> None:
    """633b.11(f): a Press is a positive amount; a portion is a multiple of the table's
    wager unit ($1 here)."""
    game = Game(rules(), {1: BET}, FLUSH)
    with pytest.raises(PressNotAllowed, match=r"633b\.11\(f\)"):
        game.do("press", 1, 0, amount)
    assert game.round.can_press(1, 0, 1_200)


def test_all_the_winnings_may_be_pressed_off_the_wager_unit() -> None:
    """633b.11(f): all of the winnings may always be pressed, as a double may always be the
    full original wager; only a portion has to be a multiple of the unit."""
    assert refuse_press(2_550, winnings=2_550, main=1_000, dealer_blackjack=False, unit=100) is None
    assert refuse_press(2_050, winnings=2_550, main=1_000, dealer_blackjack=False, unit=100)


def test_press_without_an_amount_presses_all_the_winnings() -> None:
    """633b.11(f): act(PRESS) without an amount (the terminal's button) presses all of the
    winnings; the pressed amount is a wager placed on the hand from the credits."""
    game = Game(rules(), {1: BET}, FLUSH)
    produced = game.round.act(Action.PRESS, 1, 0)
    assert produced == [
        Decision(1, 0, "press", FLUSH_WIN, False),
        WagerPlaced(1, 0, "trilux_press", FLUSH_WIN),
    ]
    other = Game(rules(), {1: BET}, FLUSH)
    assert other.round.act(Action.PRESS, 1, 0, amount=1_000)[1] == WagerPlaced(
        1, 0, "trilux_press", 1_000
    )


# ------------------------------------------------------------------ settlement


def test_press_then_win_pays_the_pressed_portion_even_money() -> None:
    """633b.11(g): a pressed hand that wins is paid even money on the pressed winnings."""
    # Press, hit TD: 21. The dealer's 15 draws TS and busts.
    game = Game(rules(), {1: BET}, FLUSH + " TD TS")
    game.do("press", 1, 0)
    game.do("hit", 1, 0)
    assert game.round.phase is Phase.COMPLETE
    main, pressed = game.settled(1, "blackjack"), game.settled(1, "trilux_press")
    assert (main.paid, main.outcome) == (2_000, "won")
    assert (pressed.stake, pressed.paid, pressed.outcome, pressed.line) == (
        FLUSH_WIN,
        2 * FLUSH_WIN,
        "won",
        LINE_WIN,
    )
    settled = game.of(WagerSettled)
    assert settled.index(pressed) == settled.index(main) + 1  # next to the Blackjack wager
    assert_conserved(game.events)


def test_press_then_push_returns_the_pressed_portion() -> None:
    """633b.11(g) and the standard rules: a push returns the pressed winnings."""
    game = Game(rules(), {1: BET}, FLUSH + " 7D 3C")  # 18 against 18
    game.do("press", 1, 0, 2_000)
    game.do("hit", 1, 0)
    game.do("stand", 1, 0)
    pressed = game.settled(1, "trilux_press")
    assert (pressed.stake, pressed.paid, pressed.outcome) == (2_000, 2_000, "pushed")
    assert_conserved(game.events)


def test_press_then_lose_loses_the_pressed_portion() -> None:
    """633b.11(g) and the standard rules: a losing hand loses the pressed winnings."""
    game = Game(rules(), {1: BET}, FLUSH + " 5D 2C")  # 16 against 17
    game.do("press", 1, 0)
    game.do("hit", 1, 0)
    game.do("stand", 1, 0)
    assert (game.settled(1, "trilux_press").paid, game.settled(1, "blackjack").paid) == (0, 0)
    assert game.settled(1, "trilux_press").outcome == "lost"
    assert_conserved(game.events)


def test_press_then_bust_loses_the_pressed_portion_at_once() -> None:
    """633b.11(g) and the standard rules: a bust loses the pressed winnings with the hand."""
    game = Game(rules(), {1: BET}, FLUSH + " 3D TD")  # 14, then 24
    game.do("press", 1, 0)
    game.do("hit", 1, 0)
    produced = game.do("hit", 1, 0)
    bust = [e for e in produced if type(e) is WagerSettled and e.hand == 0]
    assert [(e.wager, e.paid, e.line) for e in bust] == [
        ("blackjack", 0, LINE_BUST),
        ("trilux_press", 0, LINE_BUST),
    ]
    assert_conserved(game.events)


def test_surrender_returns_half_of_the_pressed_portion() -> None:
    """633a.9 with 633b.11(h): the pressed winnings are "added to the initial wager", so a
    surrender returns half of them, as it returns half of the Blackjack wager."""
    game = Game(rules(late_surrender=True), {1: BET}, FLUSH)
    game.do("press", 1, 0)
    assert game.round.can_surrender(1, 0)
    game.do("surrender", 1, 0)
    pressed = game.settled(1, "trilux_press")
    assert (pressed.paid, pressed.outcome, pressed.line) == (1_250, "surrendered", LINE_SURRENDER)
    assert game.settled(1, "blackjack").paid == 500
    assert_conserved(game.events)


# ------------------------------------------------------------------ split and double

# s1 8H, up 8S, s1 8D, hole TC: three eights win TriLux Deluxe 15 to 1; the dealer has 18.
# After the split: hand 1 gets 3C (11) and doubles onto 9C (20); hand 2 gets TD (18).
TRIPS_SPLIT = "8H 8S 8D TC 3C 9C TD"


def test_press_then_split_matches_the_initial_wager_and_the_pressed_portion() -> None:
    """633b.11(h): after a Press, a split needs the initial Blackjack wager and the pressed
    winnings on the new hand; the new hand carries both wagers."""
    game = Game(rules(), {1: BET}, TRIPS_SPLIT)
    assert game.round.press_limit(1) == TRIPS_WIN
    assert game.round.split_cost(1, 0) == 1_000
    game.do("press", 1, 0, 3_000)
    assert (game.round.split_cost(1, 0), game.round.double_cost(1, 0)) == (4_000, 1_000)
    produced = game.do("split", 1, 0)
    assert produced[:3] == [
        Decision(1, 0, "split", 0, False),
        WagerPlaced(1, 1, "blackjack", 1_000),
        WagerPlaced(1, 1, "trilux_press", 3_000),
    ]
    assert not game.round.can_press(1, 0)  # one Press per seat, on the initial hand
    # 633b.11(h), 633a.10: the double down matches the initial wager only.
    assert game.round.double_cost(1, 0) == 1_000
    game.do("double", 1, 0)
    assert game.of(WagerPlaced)[-1] == WagerPlaced(1, 0, "double", 1_000)
    game.do("stand", 1, 1)
    assert game.round.phase is Phase.COMPLETE
    won = [game.settled(1, w, 0).paid for w in ("blackjack", "trilux_press", "double")]
    assert won == [2_000, 6_000, 2_000]  # 20 beats 18
    pushed = [game.settled(1, w, 1).paid for w in ("blackjack", "trilux_press")]
    assert pushed == [1_000, 3_000]  # 18 against 18
    assert_conserved(game.events)


def test_a_resplit_of_a_pressed_hand_matches_the_press_again() -> None:
    """633b.11(h), 633a.11(c): every hand split from a pressed hand carries the Press."""
    # s1 8H, up 8S, s1 8D, hole TC; hand 1 draws 8C (resplit), then 3 more cards.
    game = Game(rules(), {1: BET}, "8H 8S 8D TC 8C TH TS TD")
    game.do("press", 1, 0, 1_000)
    game.do("split", 1, 0)
    assert game.round.split_cost(1, 0) == 2_000
    game.do("split", 1, 0)
    finish(game)
    presses = [e for e in game.of(WagerPlaced) if e.wager == "trilux_press"]
    assert [(e.hand, e.amount) for e in presses] == [(0, 1_000), (1, 1_000), (2, 1_000)]
    assert_conserved(game.events)
    replay(game.rules, game.events)


def test_press_is_only_the_first_decision_on_the_initial_hand() -> None:
    """633b.11(f): the Press caps the initial wager before the hand is played: not after a
    hit, not twice, not on a split hand."""
    game = Game(rules(), {1: BET}, FLUSH + " 2D 2C 2S 3S")
    game.do("hit", 1, 0)
    assert Action.PRESS not in game.round.legal_actions()
    with pytest.raises(PressNotAllowed, match=r"first decision.*633b\.11\(f\)"):
        game.do("press", 1, 0)

    twice = Game(rules(), {1: BET}, FLUSH)
    twice.do("press", 1, 0, 1_000)
    assert Action.PRESS not in twice.round.legal_actions()
    with pytest.raises(PressNotAllowed, match=r"already pressed.*633b\.11\(f\)"):
        twice.do("press", 1, 0, 1_000)

    split = Game(rules(), {1: BET}, TRIPS_SPLIT)
    split.do("split", 1, 0)
    assert not split.round.can_press(1, 0)
    with pytest.raises(PressNotAllowed, match=r"first decision"):
        split.do("press", 1, 0)


@pytest.mark.parametrize("default", list(CountdownDefault))
def test_the_countdown_never_presses(default: CountdownDefault) -> None:
    """633b.5(p)(2), 633b.11(f): a player who does not act collects the TriLux winnings."""
    game = Game(rules(countdown_default=default), {1: BET}, FLUSH + " 5D 2C 2S")
    assert Action.PRESS in game.round.legal_actions()
    while (hand := game.round.to_act) is not None:
        action = game.round.countdown_action()
        assert action is not Action.PRESS
        game.events += game.round.act(action, hand.seat, hand.index, auto=True)
    assert not any(e.wager == "trilux_press" for e in game.of(WagerPlaced))
    assert_conserved(game.events)


# ------------------------------------------------------------------ replay, other wagers


def test_replay_of_a_round_with_a_press_and_a_split_reproduces_every_event() -> None:
    """Recall: replay re-drives the Press, the matched split and the double exactly."""
    game = Game(rules(), {1: BET, 2: {"blackjack": 2_000}}, "8H 2C 8S 8D 9C TC 3C 9C TD 5S")
    game.do("press", 1, 0, 3_000, auto=False)
    game.do("split", 1, 0)
    game.do("double", 1, 0)
    finish(game)
    rebuilt = replay(game.rules, game.events)
    assert rebuilt.phase is Phase.COMPLETE
    assert rebuilt.dealer == game.round.dealer
    assert any(type(e) is Decision and e.action == "press" for e in game.events)
    assert_conserved(game.events)


def test_side_wagers_after_the_round_still_settle_with_a_press() -> None:
    """633b.11(f) leaves the other side wagers alone: Buster Blackjack, settled after the
    round on the dealer's final hand, settles once next to a pressed hand."""
    table = rules(
        decks=6,
        side_wagers=(
            SideWagerOffer(TRILUX, TLX_3, SIDE, (("press", True),)),
            SideWagerOffer(BUSTER, BUSTER.paytables["Paytable A"], SIDE),
        ),
    )
    game = Game(table, {1: {**BET, "buster": 500}}, FLUSH + " TD TS")
    game.do("press", 1, 0)
    game.do("hit", 1, 0)
    buster = game.settled(1, "buster")
    assert buster.outcome == "won"  # the dealer busted with three cards
    settled = game.of(WagerSettled)
    assert settled.index(buster) > settled.index(game.settled(1, "trilux_press"))
    assert_conserved(game.events)


def test_legal_actions_agree_with_can_press() -> None:
    """The terminal's Press button (legal_actions) is exactly can_press for the hand."""
    game = Game(rules(), {1: BET, 2: BET}, "2H 3C 5H 9H 4C TC 2S 2D 2C")
    for _ in range(3):
        hand = game.round.to_act
        assert hand is not None
        assert (Action.PRESS in game.round.legal_actions()) is game.round.can_press(
            hand.seat, hand.index
        )
        game.do("hit", hand.seat, hand.index)


# ------------------------------------------------------------------ invariants

PRESS_RULES = rules(late_surrender=True, resplit_aces=True, hit_split_aces=True)
_HEARTS = [c for c in CARDS if str(c).endswith("H")]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.integers(1, 4), st.integers(5, 20), min_size=1, max_size=4),
    st.lists(st.one_of(st.sampled_from(_HEARTS), st.sampled_from(CARDS)), min_size=80),
    st.data(),
)
def test_presses_conserve_money_and_replay(
    bets: dict[int, int], cards: list[Any], data: st.DataObject
) -> None:
    """633b.11(f)-(h): whatever the cards, Presses and decisions, every wager is settled
    once for its full stake, a pressed portion settles as its hand does (even money, push,
    loss, half on surrender), and replay reproduces every event."""
    game = BlackjackRound(PRESS_RULES)
    events: list[Any] = []
    for seat, dollars in sorted(bets.items()):
        events += game.place_wagers(seat, {"blackjack": dollars * 100, "trilux": 500})
    events += game.deal(StackedShoe(cards))
    while game.phase is Phase.INSURANCE:
        events += game.decline_insurance(game.pending_insurance[0], auto=True)
    while (hand := game.to_act) is not None:
        legal = game.legal_actions()
        assert (Action.PRESS in legal) is game.can_press(hand.seat, hand.index)
        if Action.PRESS in legal and data.draw(st.booleans()):
            limit = game.press_limit(hand.seat)
            amount = data.draw(st.sampled_from([None, limit, limit + 1, 100, 150]))
            if amount is not None and not game.can_press(hand.seat, hand.index, amount):
                with pytest.raises(IllegalAction):
                    game.press(hand.seat, hand.index, amount)
                continue
            events += game.press(hand.seat, hand.index, amount)
            continue
        action = data.draw(st.sampled_from(sorted(legal - {Action.PRESS})))
        events += game.act(action, hand.seat, hand.index)
    assert game.phase is Phase.COMPLETE
    assert_conserved(events)
    by_hand: dict[tuple[int, int], dict[str, WagerSettled]] = {}
    for e in events:
        if type(e) is WagerSettled:
            by_hand.setdefault((e.seat, e.hand), {})[e.wager] = e
    for wagers in by_hand.values():
        pressed = wagers.get("trilux_press")
        if pressed is None:
            continue
        main = wagers["blackjack"]
        assert pressed.outcome == main.outcome
        expected = {"won": 2 * pressed.stake, "pushed": pressed.stake, "lost": 0}
        expected["surrendered"] = pressed.stake // 2
        assert pressed.paid == expected[pressed.outcome]
    assert len([e for e in events if type(e) is CardDealt]) <= len(cards)
    replay(PRESS_RULES, events)
