"""The views of one step are built together, what they share built once (issue 22), and
each terminal still gets exactly the bytes of its own view built alone: nothing of another
seat (its cards, its credits, its actions) nor the dealer's hole card reaches it through a
shared part, and the wire format is unchanged (sorted keys, no spaces, ASCII, as
``json.dumps``) though compiled code writes it (:func:`~shared.protocol.json_bytes`).

For every registered game's example table, after every logged step of bots playing whole
rounds, the server's batch (:meth:`TableServerFactory.views_for`, each view encoded by
:func:`~shared.protocol.encode_view`) is compared byte for byte with each terminal's view
built alone (:meth:`TableServerFactory.view_for`) as ``json`` writes it, which the hole-card
tests of each game scan.
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
from shared.protocol import EncodedJson, Json, encode_view, json_bytes, json_text
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

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        self.steps += 1
        batch = self.factory.views_for(self.terminals)
        for terminal in self.terminals:
            view = batch[terminal]
            assert isinstance(view, dict), view
            alone = json_text(self.factory.view_for(terminal)).encode()
            assert encode_view(view) == alone, f"the view of {terminal} differs when shared"
            assert json.loads(alone)["terminal"] == terminal


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


def test_a_blackjack_table_builds_what_its_seats_share_once() -> None:
    """At a Blackjack table of seven, the dealer's cards, limits, chips, countdown, meters,
    table actions and shoe are built once per step and shared by every terminal's view, not
    built once per terminal; each view's bytes are still those of the view built alone."""
    blackjack = next(g for g in games() if g.name == "blackjack")
    machine, factory, clock = _table(blackjack, blackjack.examples[0], TERMINALS)
    machine.open()
    for terminal in TERMINALS:
        machine.cash_in(terminal, 1_000_000, "test")
        machine.place_wagers(terminal, {"blackjack": 1_000})
    clock.advance(60)  # the betting countdown runs out: the round is dealt
    assert machine.session.round is not None and machine.session.round.dealer
    views = factory.views_for(list(TERMINALS))
    first = views["T1"]
    assert isinstance(first, dict)
    shared = ("chips", "countdown", "dealer", "limits", "meters", "shoe", "table_actions")
    for terminal in TERMINALS:
        view = views[terminal]
        assert isinstance(view, dict)
        assert all(view[key] is first[key] for key in shared), terminal
    sent = [encode_view(views[t]) for t in TERMINALS]  # type: ignore[arg-type]
    hidden = json.loads(sent[0])["dealer"]["cards"][1]
    assert hidden == {"hidden": True}
    for terminal, data in zip(TERMINALS, sent, strict=True):
        assert data == json_text(factory.view_for(terminal)).encode()


#: Every JSON value the wire carries (no float: the reader refuses one), with text of any
#: character (control characters, DEL, beyond ASCII, lone surrogates), integers beyond 64
#: bits and tuples, so that every path of json_bytes is taken.
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.text()
    | st.text(st.characters(max_codepoint=0x80)),
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(
            st.text(st.characters(max_codepoint=0x90), max_size=6), children, max_size=4
        )
    ),
    max_leaves=20,
)


@given(st.lists(st.dictionaries(st.text(max_size=6), json_values, max_size=6), max_size=5))
def test_the_wire_encoding_is_what_json_dumps_writes(views: list[Any]) -> None:
    """Each value's bytes (:func:`json_bytes`, compiled where it can) are ``json.dumps(value,
    sort_keys=True, separators=(",", ":"))``, and a view is sent as they are."""
    for view in views:
        data = encode_view(view)
        assert data == json.dumps(view, sort_keys=True, separators=(",", ":")).encode()
        assert json_bytes(view) == data
        assert Json().toString(data) == data


@pytest.mark.parametrize(
    "value",
    [
        pytest.param({"name": "é"}, id="beyond-ascii"),
        pytest.param({"é": 1, "e": 2}, id="key-beyond-ascii"),
        pytest.param({"del": "\x7f"}, id="del"),
        pytest.param({"control": '\x00\x1f\b\f\n\r\t"\\'}, id="control"),
        pytest.param({"big": 2**64, "small": -(2**63) - 1}, id="beyond-64-bits"),
        pytest.param({"big": 2**64 - 1, "small": -(2**63)}, id="at-64-bits"),
        pytest.param({"lone": "\ud800"}, id="lone-surrogate"),
        pytest.param({1: "a", 2: "b"}, id="integer-keys"),
    ],
)
def test_where_the_compiled_encoder_would_differ_the_bytes_are_jsons(value: Any) -> None:
    """Where orjson's bytes would not be ``json``'s (text beyond ASCII or DEL, which
    ``json`` escapes; integers beyond 64 bits; a lone surrogate; integer keys) the bytes are
    ``json``'s all the same."""
    assert json_bytes(value) == json_text(value).encode()


def test_values_json_refuses_are_refused_on_the_wire() -> None:
    """A set, a dataclass, a datetime: the wire refuses them with ``json``'s error (a
    dataclass or a datetime is not written by orjson's own rules); nesting deeper than
    orjson writes is written as ``json`` writes it."""
    import dataclasses
    from datetime import UTC, datetime

    @dataclasses.dataclass
    class Point:
        x: int

    for value in ({1, 2}, Point(1), datetime(2026, 1, 1, tzinfo=UTC)):
        with pytest.raises(TypeError, match="not JSON serializable"):
            json_bytes({"value": value})
    deep: Any = "bottom"
    for _ in range(300):
        deep = [deep]
    assert json_bytes(deep) == json_text(deep).encode()


def test_an_encoded_value_is_sent_as_it_is_and_checked_for_size() -> None:
    assert Json().toString(EncodedJson(b'{"a":1}')) == b'{"a":1}'
    with pytest.raises(Exception, match="over the AMP limit"):
        Json().toString(EncodedJson(b'"' + b"x" * 70_000 + b'"'))


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
    wire format is unchanged), and nothing once the connection is lost. Either refuses a
    view that did not pass the redaction of face-down cards, before writing a byte."""
    from twisted.internet.testing import StringTransport

    from game_server.net.server import TerminalProtocol
    from game_server.table.secrecy import redact_view
    from shared.protocol import UnredactedView, ViewUpdate

    factory = TableServerFactory(
        FakeMachine(), FloorConfig(terminals={"T1": 1}), Clock(), identify=lambda _t: None
    )
    view = {"terminal": "T1", "cards": ["AS", {"hidden": True}], "credits": 1_000}
    written = []
    for send in ("callRemote", "push_view"):
        protocol = TerminalProtocol(factory)
        protocol.makeConnection(StringTransport())
        if send == "callRemote":
            protocol.callRemote(ViewUpdate, view=redact_view(view, None, "T1"))
            protocol.callRemote(ViewUpdate, view=redact_view(view, None, "T1"))
        else:
            protocol.push_view(redact_view(view, None, "T1"))
            protocol.push_view(redact_view(view, None, "T1"))
        written.append(protocol.transport.value())
        for unredacted in (view, EncodedJson(json_text(view).encode()), encode_view(view)):
            with pytest.raises(UnredactedView):
                if send == "callRemote":
                    protocol.callRemote(ViewUpdate, view=unredacted)
                else:
                    protocol.push_view(unredacted)  # type: ignore[arg-type]
        assert protocol.transport.value() == written[-1]
        protocol.setTimeout(None)
    assert written[0] == written[1] and b"ViewUpdate" in written[0]
    transport = protocol.transport
    protocol.connectionLost(Failure(ConnectionDone()))
    transport.clear()
    protocol.push_view(redact_view({}, None, "T1"))
    assert transport.value() == b""
