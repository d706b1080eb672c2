"""The views of one step are built together and encoded once per shared part (issue 22), and
each terminal still gets exactly the bytes of its own view built alone: nothing of another
seat (its cards, its credits, its actions) nor the dealer's hole card reaches it through a
shared part, and the wire format is unchanged (sorted keys, no spaces, as ``json.dumps``).

For every registered game's example table, after every logged step of bots playing whole
rounds, the server's batch (:meth:`TableServerFactory.views_for` and one
:class:`~shared.protocol.ViewEncoder`) is compared byte for byte with each terminal's view
built alone (:meth:`TableServerFactory.view_for`), which the hole-card tests of each game
scan.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import pytest
from fakes import FakeMachine
from hypothesis import given
from hypothesis import strategies as st
from twisted.internet.error import ConnectionDone
from twisted.internet.task import Clock
from twisted.python.failure import Failure

from game_server.config import load_config
from game_server.games import games
from game_server.games.api import Game
from game_server.net.floor import FloorConfig
from game_server.net.server import TableServerFactory
from game_server.rules.meters import MeterBank
from game_server.table.session import MemorySink, SealedShoes
from shared.protocol import EncodedJson, Json, ViewEncoder, json_text
from tests.net.test_shoe_in_views import _seeds, _Terminal

TERMINALS = {f"T{seat}": seat for seat in range(1, 8)}

EXAMPLES = [
    pytest.param(game, path, id=f"{game.name}-{path.stem}")
    for game in games()
    for path in game.examples
]


class _Comparer:
    """After every logged step: the batch's bytes against each view built alone."""

    def __init__(self, factory: TableServerFactory, terminals: Sequence[str]) -> None:
        self.factory = factory
        self.terminals = list(terminals)
        self.steps = 0
        self.reused = 0

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        self.steps += 1
        encoder = ViewEncoder()
        batch = self.factory.views_for(self.terminals)
        for terminal in self.terminals:
            view = batch[terminal]
            assert isinstance(view, dict), view
            alone = json_text(self.factory.view_for(terminal)).encode()
            assert encoder.encode(view) == alone, f"the view of {terminal} differs when shared"
            assert json.loads(alone)["terminal"] == terminal
        self.reused += encoder.reused


def _table(game: Game, path: Path, terminals: dict[str, int]) -> tuple[Any, Any, Clock]:
    config = load_config(path)
    seats = {t: s for t, s in terminals.items() if s <= config.rules.seats}
    shoes = SealedShoes(config, _seeds(config.table_id), bytes(32), "test")
    session = game.open_session(config, MemorySink(), shoes, seats, MeterBank())
    session.open()
    clock = Clock()
    machine = game.machine(session, clock, 1.0)
    factory = TableServerFactory(machine, FloorConfig(terminals=seats), clock)
    return machine, factory, clock


@pytest.mark.parametrize(("game", "path"), EXAMPLES)
def test_views_built_together_are_each_terminals_own_byte_for_byte(game: Game, path: Path) -> None:
    machine, factory, clock = _table(game, path, TERMINALS)
    seats = list(factory.floor.terminals)
    comparer = _Comparer(factory, seats)
    machine.add_listener(comparer)
    machine.open()
    for terminal in seats:
        machine.cash_in(terminal, 1_000_000, "test")
    players = [_Terminal(terminal, machine, factory) for terminal in seats]
    for _ in range(400):
        moved = [player.play() for player in players]
        if not any(moved):
            clock.advance(1)
        if machine.session.round_id >= 3 and comparer.steps > 40:
            break
    assert comparer.steps > 40


def test_a_blackjack_table_encodes_what_its_seats_share_once() -> None:
    """At a Blackjack table of seven, the dealer's cards, limits, chips, countdown, meters,
    table actions and shoe are encoded once per step, not once per terminal."""
    blackjack = next(g for g in games() if g.name == "blackjack")
    machine, factory, clock = _table(blackjack, blackjack.examples[0], TERMINALS)
    machine.open()
    for terminal in TERMINALS:
        machine.cash_in(terminal, 1_000_000, "test")
        machine.place_wagers(terminal, {"blackjack": 1_000})
    clock.advance(60)  # the betting countdown runs out: the round is dealt
    assert machine.session.round is not None and machine.session.round.dealer
    encoder = ViewEncoder()
    views = factory.views_for(list(TERMINALS))
    sent = [encoder.encode(views[t]) for t in TERMINALS]  # type: ignore[arg-type]
    shared = ("chips", "countdown", "dealer", "limits", "meters", "shoe", "table_actions")
    assert encoder.reused == len(shared) * (len(TERMINALS) - 1)
    hidden = json.loads(sent[0])["dealer"]["cards"][1]
    assert hidden == {"hidden": True}
    for terminal, data in zip(TERMINALS, sent, strict=True):
        assert data == json_text(factory.view_for(terminal)).encode()


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


@given(st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=6), max_size=5))
def test_the_encoder_writes_what_json_dumps_writes_shared_or_not(views: list[Any]) -> None:
    """Each view's bytes are ``json.dumps(view, sort_keys=True, separators=(",", ":"))``,
    whether its values are shared with another view (the same object) or not; a shared
    object is encoded once."""
    common: dict[str, Any] = {"shared": [1, {"b": True, "a": "é"}]}
    encoder = ViewEncoder()
    for view in views:
        view["common"] = common["shared"]
        data = encoder.encode(view)
        assert data == json.dumps(view, sort_keys=True, separators=(",", ":")).encode()
        assert Json().toString(data) == data
    assert encoder.reused >= max(0, len(views) - 1)


def test_an_encoded_value_is_sent_as_it_is_and_checked_for_size() -> None:
    assert Json().toString(EncodedJson(b'{"a":1}')) == b'{"a":1}'
    with pytest.raises(Exception, match="over the AMP limit"):
        Json().toString(EncodedJson(b'"' + b"x" * 70_000 + b'"'))


def test_a_view_holding_the_encoders_mark_is_still_encoded_exactly() -> None:
    """A shared part stands in a view as a string of control characters until its text
    replaces it; a view whose own strings hold those characters is encoded whole."""
    shared = {"cards": ["AS", "\x00\x010"]}
    views = [
        {"terminal": "T1", "dealer": shared, "note": "\x00\x010"},
        {"terminal": "T2", "dealer": shared, "note": "plain"},
        {"terminal": "T3", "dealer": shared, "x": ["\x00\x01"]},
    ]
    encoder = ViewEncoder()
    for view in views:
        assert encoder.encode(view) == json_text(view).encode()


def test_a_router_builds_each_tables_views_together() -> None:
    """At a server of two Blackjack tables the views of one table's terminals are built by
    that table's machine at once, each equal to the terminal's view built alone."""
    from game_server.net.service import default_floor, table_configs
    from game_server.table.router import TableRouter

    blackjack = next(g for g in games() if g.name == "blackjack")
    config = load_config(blackjack.examples[0])
    floor = default_floor(config, tables=2)
    clock = Clock()
    machines = {}
    for table in table_configs(config, 2):
        shoes = SealedShoes(table, _seeds(table.table_id), bytes(32), "test")
        seats = floor.seats_at(table.table_id)
        session = blackjack.open_session(table, MemorySink(), shoes, seats, MeterBank())
        session.open()
        machines[table.table_id] = blackjack.machine(session, clock, 1.0)
    router = TableRouter(machines, floor.tables)
    router.open()
    for terminal in floor.terminals:
        router.cash_in(terminal, 100_000, "test")
        router.place_wagers(terminal, {"blackjack": 1_000})
    clock.advance(60)
    second = [t for t, at in floor.tables.items() if at.endswith("-2")]
    views = router.views(second)
    assert list(views) == second
    assert views[second[0]]["dealer"] is views[second[1]]["dealer"]
    for terminal in second:
        assert json_text(views[terminal]) == json_text(router.view(terminal))


def test_a_pushed_view_is_the_box_call_remote_would_send() -> None:
    """``push_view`` writes the very bytes ``callRemote(ViewUpdate, view=...)`` writes (the
    wire format is unchanged), and nothing once the connection is lost."""
    from twisted.internet.testing import StringTransport

    from game_server.net.server import TerminalProtocol
    from shared.protocol import ViewUpdate

    factory = TableServerFactory(
        FakeMachine(), FloorConfig(terminals={"T1": 1}), Clock(), identify=lambda _t: None
    )
    view = {"terminal": "T1", "cards": ["AS", {"hidden": True}], "credits": 1_000}
    written = []
    for send in ("callRemote", "push_view"):
        protocol = TerminalProtocol(factory)
        protocol.makeConnection(StringTransport())
        if send == "callRemote":
            protocol.callRemote(ViewUpdate, view=view)
            protocol.callRemote(ViewUpdate, view=view)
        else:
            protocol.push_view(EncodedJson(json_text(view).encode()))
            protocol.push_view(ViewEncoder().encode(view))
        written.append(protocol.transport.value())
        protocol.setTimeout(None)
    assert written[0] == written[1] and b"ViewUpdate" in written[0]
    transport = protocol.transport
    protocol.connectionLost(Failure(ConnectionDone()))
    transport.clear()
    protocol.push_view(EncodedJson(b"{}"))
    assert transport.value() == b""
