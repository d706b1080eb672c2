"""Helpers of the terminal tests: full ``"v": 1`` views, and the real table server
(:class:`game_server.net.server.TableServerFactory`) over a recording fake machine, reached
through an in-memory endpoint with a fake clock (no sockets, no TLS: identities injected)."""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

from twisted.internet import task
from twisted.internet.defer import Deferred, fail, succeed
from twisted.internet.interfaces import IProtocolFactory
from twisted.test import iosim

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "net"))

from fakes import FakeMachine  # tests/net/fakes.py, found through sys.path

from game_server.net.floor import FloorConfig
from game_server.net.identity import Identity
from game_server.net.pki import Role
from game_server.net.server import TableServerFactory, TerminalProtocol
from terminal_client.model import ConnectionState, TerminalModel

T1 = Identity(Role.TERMINAL, "T1", 0x11)
T8 = Identity(Role.TERMINAL, "T8", 0x88)  # holds no seat
FLOOR = FloorConfig(terminals={"T1": 1})

_VIEW: dict[str, Any] = {
    "v": 1,
    "table": "BJ-1",
    "state": "open",
    "machine": "betting",
    "round": None,
    "phase": None,
    "terminal": "T1",
    "seat": 1,
    "credits": 100_000,
    "limits": {
        "blackjack": {"min": 500, "max": 50_000},
        "perfect-pairs": {"min": 100, "max": 2_500},
    },
    "chips": [100, 500, 2_500, 10_000],
    "countdown": None,
    "dealer": {"cards": [], "total": None, "hole_revealed": False},
    "seats": [],
    "to_act": None,
    "actions": [],
    "insurance": None,
    "settlements": [],
    "recent": [],
}


def sample_game(round_id: int = 7, **changes: Any) -> dict[str, Any]:
    """One recalled game as ``GetRecall`` sends it (game_server.recall.terminal.game_of):
    a split of eights, one hand won and one lost, Lucky Aces lost."""
    game: dict[str, Any] = {
        "table": "BJ-1",
        "round": round_id,
        "status": "complete",
        "start": "2026-11-29T15:00:00.000000Z",
        "end": "2026-11-29T15:01:00.000000Z",
        "seat": 1,
        "credits_start": 100_000,
        "credits_end": 100_500,
        "wagered": 1_100,
        "paid": 1_600,
        "wagers": {"blackjack": 1_000, "lucky_aces": 100},
        "hands": [{"hand": 0, "cards": ["8S", "TD"]}, {"hand": 1, "cards": ["8H", "9C"]}],
        "dealer": {"cards": ["6D", "KS", "4C"], "total": 20},
        "decisions": [
            "seat 1 splits, by the player",
            "seat 1 hand 1 stands, by the player",
            "seat 1 hand 2 stands, by the countdown (no action in time)",
        ],
        "results": [
            {
                "wager": "lucky_aces",
                "title": "Lucky Aces",
                "hand": 0,
                "stake": 100,
                "paid": 0,
                "outcome": "lost",
                "line": "No Ace",
            },
            {
                "wager": "blackjack",
                "title": "Blackjack",
                "hand": 0,
                "stake": 500,
                "paid": 0,
                "outcome": "lost",
                "line": "Lose",
            },
            {
                "wager": "blackjack",
                "title": "Blackjack",
                "hand": 1,
                "stake": 500,
                "paid": 1_000,
                "outcome": "won",
                "line": "Win",
            },
        ],
    }
    game.update(copy.deepcopy(changes))
    return game


def sample_view(**changes: Any) -> dict[str, Any]:
    """A complete view as the server sends it (betting, no round yet), with ``changes``."""
    view = copy.deepcopy(_VIEW)
    view.update(copy.deepcopy(changes))
    return view


def playing_view(**changes: Any) -> dict[str, Any]:
    """T1 at seat 1 with A-6 (soft 17) to act, the dealer showing a ten and a hidden card."""
    view = sample_view(
        round=7,
        phase="playing",
        machine="decision",
        credits=97_500,
        countdown={"for": "decision", "seconds_left": 12, "then": "stand"},
        dealer={"cards": ["TD", {"hidden": True}], "total": None, "hole_revealed": False},
        seats=[
            {
                "seat": 1,
                "mine": True,
                "wagers": {"blackjack": 2_500},
                "insurance_decided": True,
                "hands": [
                    {
                        "index": 0,
                        "cards": ["AS", "6H"],
                        "total": 17,
                        "soft": True,
                        "wagers": {"blackjack": 2_500},
                        "done": False,
                        "settled": False,
                    }
                ],
            },
            {
                "seat": 2,
                "mine": False,
                "wagers": {"blackjack": 500},
                "insurance_decided": True,
                "hands": [
                    {
                        "index": 0,
                        "cards": ["KC", "9C"],
                        "total": 19,
                        "soft": False,
                        "wagers": {"blackjack": 500},
                        "done": True,
                        "settled": False,
                    }
                ],
            },
        ],
        to_act={"seat": 1, "hand": 0},
        actions=["double", "hit", "stand"],
    )
    view.update(copy.deepcopy(changes))
    return view


class ViewMachine(FakeMachine):
    """The recording fake machine, answering full views whose credits it keeps: a wager
    takes its stake from :attr:`credits`. Set :attr:`next_view` to answer that instead."""

    def __init__(self) -> None:
        super().__init__()
        self.credits = 100_000
        self.next_view: dict[str, Any] | None = None

    def place_wagers(self, terminal: str, wagers: Any, position: int | None = None) -> None:
        super().place_wagers(terminal, wagers, position)
        self.credits -= sum(wagers.values())

    def view(self, terminal: str) -> dict[str, Any]:
        super().view(terminal)
        if self.next_view is not None:
            return self.next_view
        return sample_view(terminal=terminal, credits=self.credits)


class MemoryTable:
    """The real server factory on a :class:`ViewMachine` and a fake clock, and an endpoint
    that connects a client to it in memory as ``identity``.

    Attributes:
        connects: How many times a client connected (or tried to).
        pumps: One pump per connection, newest last.
        refuse_next: An exception the next connection attempt fails with (once).
    """

    def __init__(self, identity: Identity = T1, floor: FloorConfig = FLOOR) -> None:
        self.machine = ViewMachine()
        self.clock = task.Clock()
        self.identity = identity
        self.identities: dict[TerminalProtocol, Identity] = {}
        #: What ``GetRecall`` answers (set to an exception to have it raise that).
        self.recall: dict[str, Any] | Exception = {
            "v": 1,
            "terminal": identity.id,
            "games": [sample_game(8 - i) for i in range(3)],
        }
        self.factory = TableServerFactory(
            self.machine, floor, self.clock, self._identify, recall=self._recall
        )
        self.connects = 0
        self.pumps: list[iosim.IOPump] = []
        self.refuse_next: Exception | None = None

    def _recall(self, terminal: str) -> dict[str, Any]:
        if isinstance(self.recall, Exception):
            raise self.recall
        return self.recall

    def _identify(self, transport: Any) -> Identity:
        return self.identities[transport.protocol]

    def connect(self, factory: IProtocolFactory) -> Deferred[Any]:
        """``IStreamClientEndpoint.connect``: a client protocol joined to a new server one."""
        self.connects += 1
        refused, self.refuse_next = self.refuse_next, None
        if refused is not None:
            return fail(refused)
        client = factory.buildProtocol(None)
        server = self.factory.buildProtocol(None)
        self.identities[server] = self.identity
        client_io = iosim.FakeTransport(client, isServer=False)
        server_io = iosim.FakeTransport(server, isServer=True)
        self.pumps.append(
            iosim.connect(server, server_io, client, client_io, greet=False, clock=self.clock)
        )
        return succeed(client)

    @property
    def pump(self) -> iosim.IOPump:
        """The newest connection's pump."""
        return self.pumps[-1]

    def flush(self) -> None:
        """Deliver everything on every connection (and the clock's due calls)."""
        for pump in self.pumps:
            pump.flush()

    def drop(self, reason: Exception | None = None) -> None:
        """The network fails: what the server wrote is lost and the connection closes (the
        client is told ``reason``, by default that the connection was done)."""
        self.pump.serverIO.getOutBuffer()
        if reason is not None:
            self.pump.clientIO.disconnectReason = reason
        self.pump.serverIO.loseConnection()
        self.pump.flush()

    def place_wagers_calls(self) -> list[tuple[Any, ...]]:
        """The place_wagers calls the machine got."""
        return [call for call in self.machine.calls if call[0] == "place_wagers"]


def wire_model(*views: dict[str, Any]) -> TerminalModel:
    """A connected model that took ``views`` in order, each through JSON as it comes off
    the wire (a view it cannot read fails here, with the model's reason)."""
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    for view in views:
        model.apply_view(json.loads(json.dumps(view)))
        assert model.view is not None, model.last_error
    return model


class AnyClient:
    """An intent sender that takes every intent and sends nothing (a screen under test)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: True
