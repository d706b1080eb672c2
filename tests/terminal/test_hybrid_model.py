"""The terminal's model of a hybrid table's view (58 Pa. Code 633b.5), read from views the
real server code builds: a :class:`~game_server.games.hybrid.machine.HybridMachine` over a
:class:`~game_server.games.hybrid.session.HybridSession` on a MemorySink, seeded sealed
shoes and a ``task.Clock`` (as tests/table/test_hybrid_views.py does), whose views come from
:func:`~game_server.games.hybrid.views.hybrid_view_for`.

The builders here (:func:`make_table`, :func:`find_round`, :func:`model_of`) are also used by
the hybrid screen tests.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from twisted.internet.task import Clock

from game_server.config import TableConfig, example_path, load_config
from game_server.games.blackjack.rules.actions import Action
from game_server.games.hybrid.machine import HybridMachine, HybridState
from game_server.games.hybrid.session import HybridSession
from game_server.games.hybrid.views import HybridResults, hybrid_view_for
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from shared.protocol import PlaceWagers
from terminal_client.games.hybrid.model import (
    STADIUM_SEAT,
    TO_DEALER,
    TO_HAND,
    NoHoleCardCards,
    ThreePositionCards,
    hybrid_of,
    parse_hybrid_view,
)
from terminal_client.model import ConnectionState, IntentKind, TerminalModel
from terminal_client.model.view import MalformedView, ViewVersionError

THREE = load_config(example_path("hybrid-three-position.toml"))
NO_HOLE = load_config(example_path("hybrid-no-hole-card.toml"))
KEY = bytes(range(32))
TERMINALS = ("T1", "T2", "T3", "T4")
BET = {"blackjack": 1_000}


# Builders --------------------------------------------------------------------------------------


class Table:
    """A hybrid machine with its clock and results listener; every terminal holds credits."""

    def __init__(self, config: TableConfig, seed: int = 5) -> None:
        shoes = SealedShoes(config, simulation_seeds(seed, config.table_id), KEY, "test-key")
        self.session = HybridSession(config, MemorySink(), shoes, TERMINALS)
        self.session.open()
        self.clock = Clock()
        self.machine = HybridMachine(self.session, self.clock, next_round_delay=5.0)
        self.results = HybridResults(self.session)
        self.machine.add_listener(self.results)
        for terminal in TERMINALS:
            self.machine.cash_in(terminal, 1_000_000, "test")
        self.machine.open()

    @property
    def three_position(self) -> bool:
        return self.session.config.table_type == "hybrid"

    def view(self, terminal: str = "T1") -> dict[str, Any]:
        return hybrid_view_for(self.machine, terminal, results=self.results)

    def join(self, terminal: str, position: int = 1, wagers: dict[str, int] | None = None) -> None:
        self.machine.join(terminal, wagers or BET, position if self.three_position else None)

    def deal(self, joiners: dict[str, int]) -> None:
        """Join ``joiners`` (terminal -> position) and let the betting window run out."""
        assert self.machine.machine_state is HybridState.BETTING
        for terminal, position in joiners.items():
            self.join(terminal, position)
        self.clock.advance(self.session.config.timers.betting_seconds)

    def decline_insurance(self, but: str | None = None) -> None:
        for terminal in self.session.pending_insurance():
            if terminal != but:
                self.machine.answer_insurance(terminal, "decline", 0)

    def settle(self) -> None:
        """Let the countdowns run until the round shows its results (between rounds)."""
        while self.machine.machine_state not in (HybridState.BETWEEN, HybridState.BETTING):
            seconds = self.machine.seconds_left()
            assert seconds is not None
            self.clock.advance(seconds)

    def next_round(self) -> None:
        self.settle()
        while self.machine.machine_state is not HybridState.BETTING:
            seconds = self.machine.seconds_left()
            assert seconds is not None
            self.clock.advance(seconds)


def make_table(config: TableConfig, seed: int = 5) -> Table:
    return Table(config, seed)


def find_round(
    config: TableConfig,
    joiners: dict[str, int],
    wanted: Callable[[Table], bool],
    *,
    seed: int = 5,
    insurance: bool = False,
    rounds: int = 300,
) -> Table:
    """Deal rounds from the seeded shoe until ``wanted(table)`` holds right after the deal
    (insurance declined for everybody, unless ``insurance`` keeps T1's offer open)."""
    table = make_table(config, seed)
    for _ in range(rounds):
        table.deal(joiners)
        table.decline_insurance(but="T1" if insurance else None)
        if wanted(table):
            return table
        table.decline_insurance()
        table.next_round()
    pytest.fail("no round of the seeded shoes came up with the situation wanted")


def model_of(*views: dict[str, Any]) -> TerminalModel:
    """A connected model that took ``views`` in order."""
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    for view in views:
        model.apply_view(view)
    return model


def to_act(table: Table, terminal: str = "T1") -> bool:
    view = table.view(terminal)
    return view["to_act"] is not None and "hit" in view["actions"]


def three_position_after_hits() -> tuple[Table, dict[str, Any]]:
    """T1 at position 2 (with T2) and T3 at position 3: T3 hits first, then T1 hits; T1 is
    still to act with a community card in his hand."""

    def wanted(table: Table) -> bool:
        if not (to_act(table, "T1") and to_act(table, "T3")):
            return False
        return table.view("T1")["hybrid"]["hands"][0]["total"] <= 11

    table = find_round(THREE, {"T1": 2, "T2": 2, "T3": 3}, wanted)
    table.machine.act("T3", Action.HIT, 0)
    if to_act(table, "T3"):
        table.machine.act("T3", Action.HIT, 0)
    table.machine.act("T1", Action.HIT, 0)
    return table, table.view("T1")


def no_hole_card_designated() -> tuple[Table, dict[str, Any]]:
    """T2 stands and T1 hits: the first community card is in T1's hand and T2's dealer
    hand; T1 is still to act (a hand of 11 or less hit once stays under 21)."""

    def wanted(table: Table) -> bool:
        return (
            to_act(table, "T1")
            and to_act(table, "T2")
            and table.view("T1")["hybrid"]["hands"][0]["total"] <= 11
        )

    table = find_round(NO_HOLE, {"T1": 0, "T2": 0}, wanted)
    table.machine.act("T2", Action.STAND, 0)
    table.machine.act("T1", Action.HIT, 0)
    return table, table.view("T1")


# The model -------------------------------------------------------------------------------------


def test_three_position_view_is_read_with_the_players_community_cards() -> None:
    """633b.5(q): the community cards are numbered in the order drawn; those in T1's hand
    are marked his, per hand card, and the positions' first cards are T1's position's."""
    _table, data = three_position_after_hits()
    hybrid = parse_hybrid_view(data)
    cards = hybrid.cards
    assert isinstance(cards, ThreePositionCards)
    assert hybrid.three_position and hybrid.joined and hybrid.position == 2
    assert cards.chosen == {2, 3}
    assert [c.number for c in cards.community] == list(range(1, len(cards.community) + 1))
    assert [c.card for c in cards.community] == [c["card"] for c in data["hybrid"]["community"]]
    assert len(cards.community) >= 1
    mine = [c.number for c in cards.community if c.use == TO_HAND]
    assert mine == data["hybrid"]["used"] == [1]
    assert cards.community[0].hand == 0
    hand = cards.hands[0]
    assert hand.community == (0, 0, 1)
    assert hand.cards[:2] == next(p.cards for p in cards.positions if p.position == 2)
    assert hand.cards[2] == cards.community[0].card
    # The hole card is face down and the shown total is the up card's.
    assert cards.dealer.cards[1] is None and not cards.dealer.hole_revealed
    assert hybrid.view.dealer.total_text is not None
    # The common view: T1 is the one stadium seat and its hand is to act.
    view = hybrid.view
    assert view.seat == STADIUM_SEAT and view.my_seat is not None
    assert view.to_act == (STADIUM_SEAT, 0) and view.my_turn
    assert view.actions == frozenset(data["actions"])
    assert view.my_seat.hands[0].cards == hand.cards


def test_no_hole_card_view_tells_where_each_community_card_went_for_this_player() -> None:
    """633b.5(y)(4), (aa): the same first community card is in T1's hand (he hit) and in
    T2's dealer hand (he stood); each model shows its own dealer hand."""
    table, data = no_hole_card_designated()
    one = parse_hybrid_view(data)
    two = parse_hybrid_view(table.view("T2"))
    assert isinstance(one.cards, NoHoleCardCards) and isinstance(two.cards, NoHoleCardCards)
    first_one, first_two = one.cards.community[0], two.cards.community[0]
    assert first_one.card == first_two.card and first_one.number == first_two.number == 1
    assert (first_one.use, first_one.hand) == (TO_HAND, 0)
    assert (first_two.use, first_two.hand) == (TO_DEALER, None)
    assert one.hands[0].community[-1] == 1 and one.hands[0].cards[-1] == first_one.card
    assert two.dealer is not None and two.dealer.cards[1] == first_two.card
    assert two.dealer.community == (0, 1)
    assert one.dealer is not None and one.dealer.cards == (one.cards.up_card,)
    assert one.view.dealer.cards == (one.cards.up_card,)
    assert two.view.dealer.cards == two.dealer.cards
    assert one.up_card == two.up_card == data["hybrid"]["up_card"]


def test_a_terminal_that_did_not_join_sees_the_shared_cards_but_no_hands() -> None:
    """A terminal outside the round has no seat, no hands and no turn."""
    table, _ = no_hole_card_designated()
    outsider = parse_hybrid_view(table.view("T3"))
    assert not outsider.joined and outsider.view.my_seat is None and outsider.hands == ()
    assert outsider.view.seat is None and not outsider.view.my_turn
    assert outsider.view.dealer.cards == (outsider.up_card,)


def test_results_are_of_the_round_shown() -> None:
    """Settlements carry their round: current for the round just completed, not for the
    next one (the server keeps a terminal's last settlements)."""
    table = find_round(THREE, {"T1": 1}, lambda t: True)
    table.settle()
    done = parse_hybrid_view(table.view())
    assert done.view.phase == "complete" and done.results_current
    assert done.view.settlements and {s.wager for s in done.view.settlements} >= {"blackjack"}
    table.next_round()
    later = parse_hybrid_view(table.view())
    assert later.view.settlements and not later.results_current


@pytest.mark.parametrize(
    "change",
    [
        lambda v: v.pop("hybrid"),
        lambda v: v.__setitem__("joined", "yes"),
        lambda v: v["hybrid"]["community"][0].__setitem__("number", 7),
        lambda v: v["hybrid"]["community"][0].__setitem__("card", "ZZ"),
        lambda v: v["hybrid"]["hands"][0].__setitem__("community", [0]),
        lambda v: v["hybrid"].__setitem__("position", 4),
        lambda v: v.__setitem__("to_act", {"seat": 1}),
        lambda v: v.__setitem__("credits", 10.5),
    ],
    ids=[
        "no-hybrid-block",
        "joined-not-bool",
        "community-out-of-order",
        "not-a-card",
        "community-marks-short",
        "position-4",
        "to-act-without-hand",
        "credits-float",
    ],
)
def test_a_malformed_three_position_view_is_refused(change: Callable[[Any], Any]) -> None:
    """A view not of the documented shape raises MalformedView, naming what is wrong."""
    _, data = three_position_after_hits()
    parse_hybrid_view(data)
    bad = copy.deepcopy(data)
    change(bad)
    with pytest.raises(MalformedView):
        parse_hybrid_view(bad)


def test_a_malformed_no_hole_card_view_is_refused() -> None:
    """A designation of a community card never dealt is refused."""
    _, data = no_hole_card_designated()
    bad = copy.deepcopy(data)
    bad["hybrid"]["designations"].append({"position": 999, "to": "hand", "index": 0})
    with pytest.raises(MalformedView, match="designation"):
        parse_hybrid_view(bad)


def test_a_hybrid_view_of_another_version_needs_an_update() -> None:
    """A hybrid view of another version is a version error, as for every view."""
    _, data = no_hole_card_designated()
    with pytest.raises(ViewVersionError):
        parse_hybrid_view({**data, "v": 2})
    model = model_of({**data, "v": 2})
    assert model.needs_update


def test_the_model_keeps_the_last_good_hybrid_view_and_shows_a_notice() -> None:
    """TerminalModel.apply_view reads a hybrid view into hybrid_of(model); a malformed one
    becomes a MALFORMED_VIEW notice and the last good view stays."""
    _, data = three_position_after_hits()
    model = model_of(data)
    good, hybrid = model.view, hybrid_of(model)
    assert hybrid is not None and good is hybrid.view
    assert model.my_turn and model.hand_to_act == 0
    bad = copy.deepcopy(data)
    bad["hybrid"]["community"] = "nonsense"
    model.apply_view(bad)
    assert model.view is good and hybrid_of(model) is hybrid
    assert model.last_error is not None and model.last_error.code == "MALFORMED_VIEW"
    assert "hybrid view" in model.last_error.message


def test_a_fully_automated_view_clears_the_hybrid_model() -> None:
    """A view without a hybrid table_type is the fully automated one: hybrid_of(model) is None."""
    from client_helpers import sample_view

    _, data = three_position_after_hits()
    model = model_of(data, sample_view())
    assert hybrid_of(model) is None and model.view is not None and model.view.seat == 1


# The client ------------------------------------------------------------------------------------


class RecordingProtocol:
    """Stands in for the AMP connection: records each command sent with its arguments."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, dict[str, Any]]] = []

    def callRemote(self, command: Any, **arguments: Any) -> Any:
        from twisted.internet.defer import Deferred

        self.sent.append((command, arguments))
        return Deferred()


def _client() -> tuple[Any, RecordingProtocol]:
    from terminal_client.net import TerminalClient

    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    client = TerminalClient(object(), model, Clock(), new_request_id=iter("abcdef").__next__)
    protocol = RecordingProtocol()
    client._protocol = protocol  # type: ignore[assignment]  # connected, Hello answered
    return client, protocol


def test_place_wagers_sends_the_position_only_when_given() -> None:
    """PlaceWagers carries ``position`` at a three-position table (protocol version 2) and
    leaves it out everywhere else."""
    client, protocol = _client()
    intent = client.place_wagers({"blackjack": 1_000}, 3)
    assert intent is not None and intent.kind is IntentKind.PLACE_WAGERS
    assert protocol.sent == [
        (PlaceWagers, {"request_id": "a", "wagers": {"blackjack": 1_000}, "position": 3})
    ]
    client.model.apply_answer("a", sample_hybrid_betting())
    assert client.place_wagers({"blackjack": 500}) is not None
    assert protocol.sent[-1] == (PlaceWagers, {"request_id": "b", "wagers": {"blackjack": 500}})
    # Both encode as the AMP command declares them.
    PlaceWagers.makeArguments({"request_id": "a", "wagers": {}, "position": 3}, None)
    PlaceWagers.makeArguments({"request_id": "b", "wagers": {}}, None)


def sample_hybrid_betting() -> dict[str, Any]:
    """T1's betting view at a fresh three-position table."""
    return make_table(THREE).view()


def test_the_betting_view_says_how_many_chose_each_position() -> None:
    """633b.5(l): while bets are open the view counts the players on each position; the
    model reads the counts (a position outside 1-3 is a malformed view)."""
    table = make_table(THREE)
    table.join("T2", 3)
    table.join("T3", 3)
    hybrid = parse_hybrid_view(table.view("T1"))
    assert isinstance(hybrid.cards, ThreePositionCards)
    assert hybrid.cards.chosen == frozenset({3}) and dict(hybrid.cards.counts) == {3: 2}
    bad = table.view("T1")
    bad["hybrid"]["chosen"] = {"4": 1}
    with pytest.raises(MalformedView, match="position 4"):
        parse_hybrid_view(bad)
