"""Engine invariants under Hypothesis: money is conserved, every round completes, replay
reproduces every event, and the engine's can_* answers agree with what it accepts."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import WagerPlaced, WagerSettled
from game_server.games.blackjack.rules.round import BlackjackRound, Phase, replay
from game_server.games.blackjack.rules.rules import BlackjackRules, DoubleOn
from game_server.rng.shoe import StackedShoe
from game_server.rules.errors import IllegalAction
from game_server.rules.events import from_dict, to_dict
from game_server.rules.limits import WagerLimits
from game_server.rules.wagers.base import SideWagerOffer
from game_server.rules.wagers.lucky_aces import LUCKY_ACES, PAYTABLES
from shared.cards import CARDS
from shared.codec import canonical_json, loads

rules_strategy = st.builds(
    BlackjackRules,
    dealer_hits_soft_17=st.booleans(),
    dealer_peeks=st.booleans(),
    double_on=st.sampled_from(list(DoubleOn)),
    double_after_split=st.booleans(),
    max_split_hands=st.integers(2, 4),
    resplit_aces=st.booleans(),
    hit_split_aces=st.booleans(),
    late_surrender=st.booleans(),
    insurance=st.booleans(),
    even_money=st.booleans(),
    main_limits=st.just(WagerLimits(100, 100_000, 100)),
    side_wagers=st.sampled_from(
        [()]
        + [(SideWagerOffer(LUCKY_ACES, PAYTABLES[p], WagerLimits(100, 10_000)),) for p in PAYTABLES]
    ),
)
bets_strategy = st.dictionaries(
    st.integers(1, 7), st.tuples(st.integers(1, 1000), st.integers(0, 100)), min_size=1
)
# Half the cards from aces and ten-values, so that Blackjacks, peeks, even money, insurance
# and split pairs come up often.
_ACES_AND_TENS = [c for c in CARDS if c.rank >= 10]
cards_strategy = st.lists(
    st.one_of(st.sampled_from(_ACES_AND_TENS), st.sampled_from(CARDS)),
    min_size=200,
    max_size=200,
)


def play(
    rules: BlackjackRules, bets: dict[int, tuple[int, int]], cards: list[Any], data: st.DataObject
) -> tuple[BlackjackRound, list[Any]]:
    game = BlackjackRound(rules)
    events: list[Any] = []
    for seat, (main, side) in sorted(bets.items()):
        wagers = {"blackjack": main * 100}
        if side and rules.side_wagers:
            wagers["lucky_aces"] = side * 100
        events += game.place_wagers(seat, wagers)
    events += game.deal(StackedShoe(cards))
    while game.phase is Phase.INSURANCE:
        seat = game.pending_insurance[0]
        choice = data.draw(st.sampled_from(["insure", "decline", "even"]))
        if choice == "insure" and game.can_insure(seat):
            half = game.seats[seat].wagers["blackjack"] // 2
            events += game.insure(seat, data.draw(st.integers(1, half)))
        elif choice == "even" and game.can_take_even_money(seat):
            events += game.take_even_money(seat)
        else:
            events += game.decline_insurance(seat, auto=True)
    while game.phase is Phase.PLAYING:
        hand = game.to_act
        assert hand is not None
        legal = game.legal_actions()
        assert Action.STAND in legal
        illegal = set(Action) - legal
        for action in illegal:
            try:
                game.act(action, hand.seat, hand.index)
            except IllegalAction:
                pass
            else:  # pragma: no cover - the assertion below reports it
                raise AssertionError(f"{action} was accepted although can_{action} is False")
        action = data.draw(st.sampled_from(sorted(legal)))
        events += game.act(action, hand.seat, hand.index, auto=data.draw(st.booleans()))
    return game, events


# Every option on: insurance, even money, peek, surrender, resplits, Lucky Aces. The general
# test above draws the rules too, which makes these paths rarer in each example.
FULL_RULES = BlackjackRules(
    late_surrender=True,
    resplit_aces=True,
    hit_split_aces=True,
    main_limits=WagerLimits(100, 100_000, 100),
    side_wagers=(SideWagerOffer(LUCKY_ACES, PAYTABLES["Paytable D"], WagerLimits(100, 10_000)),),
)


@settings(max_examples=500, deadline=None)
@given(rules_strategy, bets_strategy, cards_strategy, st.data())
def test_money_is_conserved_and_replay_reproduces_every_settlement(
    rules: BlackjackRules,
    bets: dict[int, tuple[int, int]],
    cards: list[Any],
    data: st.DataObject,
) -> None:
    """Whatever the rules, wagers, cards and decisions: the round completes; every wager
    placed is settled exactly once for its full stake, and never pays a negative amount;
    replay(events) reproduces every event; every event survives its JSON form."""
    check_round(rules, bets, cards, data)


@settings(max_examples=500, deadline=None)
@given(bets_strategy, cards_strategy, st.data())
def test_conservation_with_every_option_on(
    bets: dict[int, tuple[int, int]], cards: list[Any], data: st.DataObject
) -> None:
    """The same invariants with insurance, even money, peek, surrender and resplits on."""
    check_round(FULL_RULES, bets, cards, data)


def check_round(
    rules: BlackjackRules, bets: dict[int, tuple[int, int]], cards: list[Any], data: st.DataObject
) -> None:
    game, events = play(rules, bets, cards, data)
    assert game.phase is Phase.COMPLETE

    placed: dict[tuple[int, int, str], int] = {}
    for e in events:
        if type(e) is WagerPlaced:
            key = (e.seat, e.hand, e.wager)
            assert key not in placed
            placed[key] = e.amount
    settled: dict[tuple[int, int, str], int] = {}
    for e in events:
        if type(e) is WagerSettled:
            key = (e.seat, e.hand, e.wager)
            assert key not in settled, f"{key} settled twice"
            assert e.paid >= 0
            settled[key] = e.stake
    assert settled == placed

    check_against_oracle(rules, events)

    rebuilt = replay(rules, events)
    assert rebuilt.phase is Phase.COMPLETE
    assert rebuilt.dealer == game.dealer
    for e in events:
        assert from_dict(loads(canonical_json(to_dict(e)))) == e


def _total(cards: list[Any]) -> tuple[int, bool]:
    """An independent count of a hand (not the engine's Hand): best total and softness."""
    hard = sum(1 if c.rank == 14 else min(c.rank, 10) for c in cards)
    if any(c.rank == 14 for c in cards) and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def _natural(cards: list[Any]) -> bool:
    ranks = sorted(min(c.rank, 10) if c.rank != 14 else 11 for c in cards)
    return len(cards) == 2 and ranks == [10, 11]


def check_against_oracle(rules: BlackjackRules, events: list[Any]) -> None:
    """Rebuild every hand from the events alone and check the engine's decisions against
    the rules written out independently: dealer Blackjack is an ace and a ten-value card;
    the dealer draws below 17 (and on soft 17 under H17) and stops otherwise; insurance wins
    exactly when the dealer has Blackjack; a hand settled against the dealer's total wins,
    pushes or loses by comparing totals (633b.5(s), (t))."""
    from game_server.games.blackjack.rules.events import CardDealt, Decision, RoundCompleted

    hands: dict[tuple[int, int], list[Any]] = {}
    dealer: list[Any] = []
    pending_split: tuple[int, int] | None = None
    moved: Any = None
    for e in events:
        if type(e) is CardDealt:
            (dealer if e.seat == 0 else hands.setdefault((e.seat, e.hand), [])).append(e.card)
        elif type(e) is Decision and e.action == "split":
            pending_split = (e.seat, e.hand)
            moved = hands[pending_split].pop()
        elif type(e) is WagerPlaced and pending_split is not None:
            hands[(e.seat, e.hand)] = [moved]
            pending_split = None
    completed = next(e for e in events if type(e) is RoundCompleted)
    assert list(completed.dealer_cards) == dealer
    dealer_total, _ = _total(dealer)
    assert completed.dealer_total == dealer_total
    dealer_bj = _natural(dealer[:2])
    for i in range(2, len(dealer) + 1):
        total, soft = _total(dealer[:i])
        must_draw = total < 17 or (total == 17 and soft and rules.dealer_hits_soft_17)
        if i < len(dealer):
            assert must_draw, f"dealer drew on {total} ({dealer[:i]})"
    for e in events:
        if type(e) is not WagerSettled:
            continue
        if e.wager == "insurance":
            assert (e.outcome == "won") == dealer_bj
            continue
        if e.line.startswith("Dealer Blackjack"):
            assert dealer_bj, f"{e.line} without a dealer Blackjack ({dealer[:2]})"
        if e.wager not in ("blackjack", "double") or e.line not in ("Win 1 to 1", "Loss", "Push"):
            continue
        cards = hands[(e.seat, e.hand)]
        total, _ = _total(cards)
        assert total <= 21
        if dealer_bj:
            assert (_natural(cards) and e.line == "Push") or (e.line == "Loss" and e.paid == 0)
        elif dealer_total > 21 or total > dealer_total:
            assert e.line == "Win 1 to 1" and e.paid == 2 * e.stake
        elif total == dealer_total:
            assert e.line == "Push" and e.paid == e.stake
        else:
            assert e.line == "Loss" and e.paid == 0
    if not dealer_bj and len(dealer) == 2:
        total, soft = _total(dealer)
        live = any(
            e.line in ("Win 1 to 1", "Loss", "Push") for e in events if type(e) is WagerSettled
        )
        if live:
            assert not (total < 17 or (total == 17 and soft and rules.dealer_hits_soft_17))
