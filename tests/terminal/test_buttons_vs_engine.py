"""The terminal's action buttons against the engine: a button is lit exactly when the engine
says the action is legal for the hand to act and that hand is this terminal's.

Each state is built by the real engine (``TableSession`` over ``BlackjackRound``), turned into
the server's JSON view for every seated terminal (``view_for``), read by a fresh
``TerminalModel`` and shown by the real ``PlayScreen``; the enabled buttons of
``PlayScreen.buttons(layout)`` and the touch geometry (``hit_test``) are compared with
``can_hit`` / ``can_stand`` / ``can_double`` / ``can_split`` / ``can_surrender`` and, during the
insurance offer, with ``can_insure`` / ``can_take_even_money``. Stacked-shoe scenarios cover
pairs, resplit limits, split aces, hard 10/11, soft hands, hits, surrender and insurance, with
an explicit expected button set where the rule is the point; a seeded sweep then walks many
dealt rounds with the same check at every step.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from typing import Any

import pygame
import pytest

from game_server.config import TableConfig, example_config_path, load_config
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.round import BlackjackRound, Phase
from game_server.games.blackjack.rules.rules import DoubleOn
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.views import table_actions, view_for
from game_server.rng.shoe import StackedShoe
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from terminal_client.model import ConnectionState, TerminalModel
from terminal_client.render import Layout
from terminal_client.screens import PlayScreen, screen_for
from terminal_client.screens.table import INSURANCE_BUTTONS

KEY = bytes(range(32))
CONFIG = load_config(example_config_path())
LAYOUT = Layout.for_window((1280, 720))
BET = 1_000


def config(**rules: Any) -> TableConfig:
    """The example Rules Submission with some Blackjack rules changed."""
    return dataclasses.replace(CONFIG, rules=dataclasses.replace(CONFIG.rules, **rules))


class RecordingClient:
    """A network client that records what the screen sent (every intent is accepted)."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def place_wagers(self, wagers: Any) -> Any:
        self.sent.append(("place_wagers", dict(wagers)))
        return object()

    def act(self, action: str, hand: int, amount: int = 0) -> Any:
        self.sent.append(("act", action, hand))
        return object()

    def answer_insurance(self, choice: str, amount: int = 0) -> Any:
        self.sent.append(("insurance", choice, amount))
        return object()

    def cash_out(self) -> Any:
        self.sent.append(("cash_out",))
        return object()


def screen_of(session: TableSession, terminal: str) -> PlayScreen:
    """The PlayScreen a terminal shows for the server's view of ``session`` (via JSON)."""
    wire = json.loads(json.dumps(view_for(session, terminal)))
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(wire)
    assert model.view is not None, model.last_error
    if wire["phase"] in ("insurance", "playing"):
        assert screen_for(model) is PlayScreen
    return PlayScreen(model, RecordingClient())


def shown(screen: PlayScreen) -> dict[str, bool]:
    """Button id -> enabled, as the screen draws them."""
    return {b.id: b.enabled for b in screen.buttons(LAYOUT)}


def engine_buttons(game: BlackjackRound, seat: int) -> dict[str, bool]:
    """What the engine allows ``seat`` now, keyed like the screen's buttons."""
    if seat in game.pending_insurance:
        expected = {
            "insurance": game.can_insure(seat),
            "decline": True,
        }
        if game.can_take_even_money(seat):
            expected["even-money"] = True
        return expected
    hand = game.to_act
    ours = hand is not None and hand.seat == seat
    return {  # a button for each decision the table offers at all (table_actions)
        action: ours and bool(getattr(game, f"can_{action}")(seat, hand.index))  # type: ignore[union-attr]
        for action in table_actions(game.rules)
    }


def check_table(session: TableSession) -> int:
    """Every seated terminal's buttons agree with the engine; returns the buttons checked."""
    game = session.round
    assert game is not None
    checked = 0
    for terminal, seat in session.seats.items():
        if seat not in game.seats:
            continue
        screen = screen_of(session, terminal)
        expected = engine_buttons(game, seat)
        assert shown(screen) == expected, (terminal, game.phase, game.to_act, expected)
        if game.phase is Phase.PLAYING and game.to_act is not None and game.to_act.seat != seat:
            assert not any(expected.values())  # another seat's turn: nothing is lit
        for button in screen.buttons(LAYOUT):
            centre = pygame.Rect(button.rect).center
            target = screen.hit_test(LAYOUT, centre)
            assert target == (button.target_id if button.enabled else None), button
        checked += len(expected)
    return checked


def table(cfg: TableConfig, terminals: int, seed: int = 1) -> TableSession:
    shoes = SealedShoes(cfg, simulation_seeds(seed, cfg.table_id), KEY, "test-key")
    session = TableSession(cfg, MemorySink(), shoes, {f"T{i}": i for i in range(1, terminals + 1)})
    session.open()
    for terminal in session.seats:
        session.cash_in(terminal, 1_000_000, "test")
    return session


def deal_stacked(cfg: TableConfig, cards: str, terminals: int = 2) -> TableSession:
    """A round where every terminal bets BET and the cards come from ``cards``.

    Deal order with seats 1..n: s1 .. sn UP s1 .. sn HOLE, then the cards drawn in play.
    """
    session = table(cfg, terminals)
    session.start_round()
    for terminal in session.seats:
        session.place_wagers(terminal, {"blackjack": BET})
    session.shoe = StackedShoe(cards)  # type: ignore[assignment]
    session.deal()
    return session


def lit(session: TableSession, terminal: str) -> set[str]:
    return {name for name, on in shown(screen_of(session, terminal)).items() if on}


#: A step: ``(terminal, action)`` acts on its hand to act; ``("expect", terminal, {...})``
#: checks the exact set of lit buttons of that terminal.
Step = tuple[Any, ...]


def run(session: TableSession, steps: Sequence[Step]) -> None:
    """Check every terminal, then take each step and check again."""
    check_table(session)
    for step in steps:
        if step[0] == "expect":
            _, terminal, wanted = step
            assert lit(session, terminal) == wanted, (step, session.round and session.round.to_act)
            continue
        terminal, action = step
        game = session.round
        assert game is not None
        if action in ("insure", "decline", "even-money"):
            if action == "insure":
                session.insure(terminal, BET // 2)
            elif action == "decline":
                session.decline_insurance(terminal)
            else:
                session.take_even_money(terminal)
        else:
            hand = game.to_act
            assert hand is not None and hand.seat == session.seats[terminal], step
            session.act(terminal, Action(action), hand.index)
        if session.round is None:
            return
        check_table(session)


def test_a_pair_splits_and_resplits_and_doubles_after_split_until_a_hit() -> None:
    """633a.10, 633a.11: 8-8 lights SPLIT; the resplit 8 lights SPLIT again (4 hands
    allowed) and DOUBLE (DAS); after a hit DOUBLE and SPLIT go dark; the other seat sees
    nothing lit until its 11, which lights DOUBLE but not SPLIT."""
    #        s1  s2  UP  s1  s2  HOLE | draws
    cards = "8H  5C  9S  8D  6D  7C     8C 3S 2D 10H 9D 10C 10D"
    session = deal_stacked(CONFIG, cards)
    run(
        session,
        [
            ("expect", "T1", {"hit", "stand", "double", "split"}),
            ("expect", "T2", set()),
            ("T1", "split"),  # hand 1: 8H 8C
            ("expect", "T1", {"hit", "stand", "double", "split"}),
            ("expect", "T2", set()),
            ("T1", "split"),  # hand 1: 8H 3S = 11
            ("expect", "T1", {"hit", "stand", "double"}),
            ("T1", "hit"),  # 8H 3S 2D = 13
            ("expect", "T1", {"hit", "stand"}),
            ("T1", "stand"),  # next hand: 8C 10H
            ("T1", "stand"),  # next hand: 8D 9D
            ("T1", "stand"),
            ("expect", "T1", set()),
            ("expect", "T2", {"hit", "stand", "double"}),
            ("T2", "double"),
        ],
    )


def test_resplit_is_dark_when_the_table_allows_only_two_hands() -> None:
    """633a.11(c): with max_split_hands = 2, a second 8 after a split does not light SPLIT
    (the screen must not guess from the pair alone)."""
    cards = "8H  5C  9S  8D  6D  7C     8C 8S 10H 10D"
    session = deal_stacked(config(max_split_hands=2), cards)
    run(
        session,
        [
            ("T1", "split"),
            ("expect", "T1", {"hit", "stand", "double"}),
        ],
    )


def test_split_aces_get_one_card_and_resplit_only_where_allowed() -> None:
    """633a.11: split aces take one card each; with resplit_aces a third ace lights only
    SPLIT and STAND (no hit, no double); without it the hand is finished for the player."""
    cards = "AH  5C  9S  AD  6D  7C     AC 9H 9D 9C"
    session = deal_stacked(config(resplit_aces=True), cards)
    run(
        session,
        [
            ("expect", "T1", {"hit", "stand", "double", "split"}),
            ("T1", "split"),  # hand 1: AH AC
            ("expect", "T1", {"stand", "split"}),
            ("T1", "stand"),
        ],
    )
    session = deal_stacked(CONFIG, cards)
    run(
        session,
        [
            ("T1", "split"),  # AH AC and AD 9H are both finished: split aces, no resplit
            ("expect", "T1", set()),
            ("expect", "T2", {"hit", "stand", "double"}),
        ],
    )


def test_a_soft_hand_may_not_double_where_only_hard_10_or_11_may() -> None:
    """633a.10: with double_on = "10-11", soft 17 lights HIT and STAND only, while a pair of
    fives (hard 10) lights DOUBLE and SPLIT."""
    cards = "AH  5C  9S  6D  5D  7C     2C 10H 10D"
    session = deal_stacked(config(double_on=DoubleOn.TEN_TO_ELEVEN), cards)
    run(
        session,
        [
            ("expect", "T1", {"hit", "stand"}),
            ("T1", "hit"),  # soft 19
            ("expect", "T1", {"hit", "stand"}),
            ("T1", "stand"),
            ("expect", "T2", {"hit", "stand", "double", "split"}),
        ],
    )


def test_surrender_lights_only_on_the_first_two_cards_of_an_unsplit_hand() -> None:
    """633a.9: with late surrender offered, SURRENDER is lit on the first two cards, dark
    after a hit and dark on split hands; without it, it is never lit."""
    cards = "10H 8C  9S  6D  8D  7C     2C 8H 10D 10C"
    session = deal_stacked(config(late_surrender=True), cards)
    run(
        session,
        [
            ("expect", "T1", {"hit", "stand", "double", "surrender"}),
            ("T1", "hit"),  # 18
            ("expect", "T1", {"hit", "stand"}),
            ("T1", "stand"),
            ("expect", "T2", {"hit", "stand", "double", "split", "surrender"}),
            ("T2", "split"),  # 8C 8H
            ("expect", "T2", {"hit", "stand", "double", "split"}),
        ],
    )
    session = deal_stacked(CONFIG, cards)
    run(session, [("expect", "T1", {"hit", "stand", "double"})])


def test_insurance_buttons_follow_can_insure_and_can_take_even_money() -> None:
    """633a.8: against a dealer ace a Blackjack is offered even money and insurance, a plain
    hand insurance only; an answered seat sees no action lit until play starts."""
    cards = "AC  10C AS  KD  9D  7C     10D"
    session = deal_stacked(CONFIG, cards)
    game = session.round
    assert game is not None and game.phase is Phase.INSURANCE
    run(
        session,
        [
            ("expect", "T1", {"insurance", "decline", "even-money"}),
            ("expect", "T2", {"insurance", "decline"}),
            ("T1", "decline"),
            ("expect", "T1", set()),
            ("expect", "T2", {"insurance", "decline"}),
            ("T2", "insure"),
        ],
    )
    assert shown(screen_of(session, "T2"))["hit"]  # 19 against an ace: T2 plays on
    session = deal_stacked(config(even_money=False), cards)
    run(session, [("expect", "T1", {"insurance", "decline"})])
    assert "even-money" not in shown(screen_of(session, "T1"))


def test_a_tap_on_a_dark_button_sends_nothing() -> None:
    """A press on a dark button is not a decision: after a hit, DOUBLE sends no Act, while
    a lit button sends exactly its action for the hand to act."""
    from terminal_client.input import Tap

    cards = "6H  5C  9S  5D  6D  7C     2C 10H 10D"
    session = deal_stacked(CONFIG, cards)
    session.act("T1", Action.HIT, 0)  # 6H 5D 2C
    screen = screen_of(session, "T1")
    client: Any = screen.client
    assert screen.handle(Tap("button:double")) is None
    assert screen.handle(Tap("button:split")) is None
    assert client.sent == []
    assert screen.handle(Tap("button:hit")) is not None
    assert client.sent == [("act", "hit", 0)]


def _sweep(cfg: TableConfig, seed: int, rounds: int) -> Iterator[int]:
    """Play ``rounds`` seeded rounds at three seats, choosing every legal action in turn."""
    session = table(cfg, 3, seed)
    turn = seed
    for _ in range(rounds):
        session.start_round()
        for terminal in session.seats:
            session.place_wagers(terminal, {"blackjack": BET})
        session.deal()
        while session.round is not None:
            game = session.round
            yield check_table(session)
            turn += 1
            if game.phase is Phase.INSURANCE:
                seat = game.pending_insurance[0]
                terminal = session.terminal_of[seat]
                choices = [
                    c for c, _, _ in INSURANCE_BUTTONS if shown(screen_of(session, terminal)).get(c)
                ]
                choice = choices[turn % len(choices)]
                if choice == "insurance":
                    session.insure(terminal, BET // 2)
                elif choice == "decline":
                    session.decline_insurance(terminal)
                else:
                    session.take_even_money(terminal)
                continue
            hand = game.to_act
            assert hand is not None, game.phase
            legal = sorted(str(a) for a in game.legal_actions())
            lit_now = sorted(lit(session, session.terminal_of[hand.seat]))
            assert lit_now == legal
            session.act(
                session.terminal_of[hand.seat], Action(legal[turn % len(legal)]), hand.index
            )


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"late_surrender": True, "max_split_hands": 2},
        {"double_on": DoubleOn.NINE_TO_ELEVEN, "double_after_split": False, "resplit_aces": True},
        {"hit_split_aces": True, "insurance": True, "even_money": False},
    ],
    ids=["example", "surrender-2-hands", "9-11-no-das-resplit-aces", "hit-split-aces"],
)
def test_a_seeded_sweep_of_dealt_rounds_agrees_with_the_engine_at_every_step(
    rules: dict[str, Any],
) -> None:
    """At every step of many seeded rounds (three seats, every legal action chosen in turn),
    each terminal's lit buttons are exactly the engine's legal actions on its turn, nothing
    on another seat's turn, and the insurance answers the engine allows."""
    cfg = config(**rules)
    steps = checked = 0
    for seed in range(4):
        for count in _sweep(cfg, seed, rounds=40):
            steps += 1
            checked += count
    assert steps > 500 and checked > 5 * steps
