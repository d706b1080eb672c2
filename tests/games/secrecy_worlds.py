"""Tables of every game played twice, the second time with face-down cards swapped, and
every exit of each read after every step (``test_secrecy_every_exit.py``).

A :class:`World` is one table of a game as the server runs it: its session writing a real
SQLite log, its machine on a fake clock, the server's factory (the views as they are sent),
terminals T1..T3 played by the terminal's own demo bot. Every input the bots give and every
tick of the clock is recorded, so that a second world replays exactly the same inputs.

:func:`exits` reads what leaves the server at one moment, by viewer: each terminal's view
as the wire carries it and its recall (``GetRecall``); for the public (every staff role,
the tools), the console's pages for every role, ``etg recall show/list/receipt``, the recall
pictures' views, the live demo's narration, and the log's own rows of the round in play.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from twisted.internet.task import Clock

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "console"))
from console_harness import Console, MetersLink

from game_server.config import TableConfig
from game_server.console.roles import Role
from game_server.eventlog import EventLog, EventLogReader
from game_server.games.api import Game
from game_server.net.floor import FloorConfig
from game_server.net.server import TableServerFactory
from game_server.recall.pictures import RecallPictureError, round_views
from game_server.recall.query import fetch_round
from game_server.recall.terminal import terminal_recall
from game_server.rng.shoe import ShoeSeed
from game_server.rules.meters import MeterBank
from game_server.table.session import SealedShoes, SeedSource
from shared.errors import ETGError
from terminal_client.app import Autoplay
from terminal_client.model import TerminalModel
from tools.live_demo import round_lines
from tools.recall_cli import recall

TERMINALS = {"T1": 1, "T2": 2, "T3": 3}
#: Whether the log's own rows of the round in play are an exit read (not when a test makes
#: the log hold every card in clear, as a log of an older build does).
LOG_ROWS = True
SERVER = "pit-1"
SEALING_KEY = bytes(range(32))


def seeds(table_id: str, seed: int) -> SeedSource:
    """Seed material and a salt of its own for each shoe, from ``seed``."""

    def make(number: int) -> tuple[ShoeSeed, bytes]:
        material = ShoeSeed.from_test_seed(seed * 1000 + number, table_id, number)
        return material, hashlib.sha256(b"salt" + material.entropy_input).digest()

    return make


class LogClock:
    """The log's clock: the same time for the same append in every world."""

    def __init__(self) -> None:
        self.now = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(milliseconds=10)
        return self.now


@dataclass(frozen=True)
class Input:
    """One thing that happened to the table: a terminal's intent (``op`` place_wagers,
    act or answer_insurance, with its arguments, and whether the table refused it) or the
    clock's tick (``op`` "tick")."""

    terminal: str | None
    op: str
    args: tuple[Any, ...] = ()
    refused: bool = False


class _Player:
    """A terminal played by its game's demo bot (:class:`~terminal_client.app.Autoplay`):
    its intents go straight to the machine, recorded."""

    def __init__(self, world: World, terminal: str) -> None:
        self.world, self.terminal = world, terminal
        self.model = TerminalModel()
        self.bot = Autoplay(self)
        self.sent: list[Input] = []

    def play(self) -> list[Input]:
        self.sent = []
        self.model.apply_view(self.world.factory.view_for(self.terminal))
        self.bot(self.model)
        return self.sent

    def _send(self, op: str, *args: Any) -> None:
        refused = self.world.apply(Input(self.terminal, op, args))
        self.sent.append(Input(self.terminal, op, args, refused))

    def place_wagers(self, wagers: Any, position: int | None = None) -> None:
        self._send("place_wagers", dict(wagers), position)

    def act(self, action: str, hand: int, amount: int = 0) -> None:
        self._send("act", action, hand, amount or None)

    def answer_insurance(self, choice: str, amount: int = 0) -> None:
        self._send("answer_insurance", choice, amount)


class World:
    """One table of ``game`` under ``config`` (see the module docstring)."""

    def __init__(self, game: Game, config: TableConfig, folder: Path, keys: Path, seed: int):
        folder.mkdir(parents=True)
        self.game, self.config, self.folder, self.keys = game, config, folder, keys
        self.db = folder / "table.db"
        # Every world's log starts as a copy of the same empty log (one log id for all, as
        # receipts and recall name it), made once and closed before any copy.
        template = keys / "empty.db"
        if not template.exists():
            EventLog.create_or_open(template, keys, LogClock()).close(checkpoint=False)
        shutil.copyfile(template, self.db)
        self.clock = Clock()
        self.log = EventLog.create_or_open(self.db, keys, LogClock())
        shoes = SealedShoes(config, seeds(config.table_id, seed), SEALING_KEY, "test")
        self.session = game.open_session(config, self.log, shoes, TERMINALS, MeterBank())
        self.session.open()
        self.machine = game.machine(self.session, self.clock, 1.0)
        self.factory = TableServerFactory(
            self.machine, FloorConfig(terminals=TERMINALS), self.clock
        )
        self.machine.open()
        for terminal in TERMINALS:
            self.machine.cash_in(terminal, 1_000_000, "test")
        self.players = [_Player(self, terminal) for terminal in TERMINALS]
        self._console: Console | None = None

    def close(self) -> None:
        self.log.close(checkpoint=False)

    # ------------------------------------------------------------------- playing

    def apply(self, step: Input) -> bool:
        """Do ``step``; True when the table refused it (as a real terminal sees a refusal)."""
        if step.op == "tick":
            self.clock.advance(step.args[0])
            return False
        machine = self.machine
        try:
            if step.op == "place_wagers":
                wagers, position = step.args
                machine.place_wagers(step.terminal, wagers, position)
            elif step.op == "act":
                action, hand, amount = step.args
                machine.act(
                    step.terminal, machine.parse_action(step.terminal, action), hand, amount
                )
            else:
                choice, amount = step.args
                machine.answer_insurance(step.terminal, choice, amount)
        except ETGError:
            return True
        return False

    def play(self) -> list[Input]:
        """One step of the bots: every terminal acts on its view; when none does, the clock
        ticks a second (a countdown runs, the betting window closes). Returns what happened."""
        done: list[Input] = []
        for player in self.players:
            done += player.play()
        if not done:
            self.apply(Input(None, "tick", (1.0,)))
            done.append(Input(None, "tick", (1.0,)))
        return done

    @property
    def round_id(self) -> int:
        return int(self.session.round_id)

    @property
    def in_play(self) -> bool:
        return self.session.round is not None

    # ------------------------------------------------------------------ the exits

    def console(self) -> Console:
        if self._console is None:
            self._console = Console(self.keys, self.db, self.folder, MetersLink(SERVER))
        link = self._console.link
        link.state = type(link.state)(True, self._meters(), None)
        self._console.app.floor = []
        return self._console

    def _meters(self) -> dict[str, Any]:
        meters = self.machine.meters()
        return {
            "tables": {self.config.table_id: meters},
            "floor": {
                "terminals": dict(TERMINALS),
                "tables": dict.fromkeys(TERMINALS, self.config.table_id),
                "revoked": [],
                "online": sorted(TERMINALS),
                "set_by": {},
            },
        }


#: What changes from one request to the next whatever the round: the session's tokens.
_TOKENS = re.compile(r'(csrf"? value="|name="csrf" value="|data-csrf="|csrf=)[^"&]*')


def _page(console: Console, path: str, role: Role) -> str:
    request = console.request("GET", path, role)
    return _TOKENS.sub(r"\1*", f"{request.status} {request.body}")


def _cli(*args: str) -> str:
    result = CliRunner().invoke(recall, list(args))
    return f"{result.exit_code} {result.output}"


@dataclass
class Exits:
    """What left the server at one moment: by viewer (a terminal's id, or ``"public"``),
    each exit's output."""

    by_viewer: dict[str, dict[str, str]] = field(default_factory=dict)

    def add(self, viewer: str, exit_name: str, output: Any) -> None:
        text = output if isinstance(output, str) else json.dumps(output, sort_keys=True)
        self.by_viewer.setdefault(viewer, {})[exit_name] = text


def exits(world: World, round_id: int) -> Exits:
    """Every exit's output now, for every viewer (the module docstring)."""
    found = Exits()
    table = world.config.table_id
    for terminal in TERMINALS:
        view = world.factory.redacted(terminal, world.factory.view_for(terminal))
        found.add(terminal, "view", bytes(view).decode())
    with EventLogReader.open(world.db) as reader:
        for terminal in TERMINALS:
            found.add(terminal, "GetRecall", terminal_recall(reader, terminal))
        rows = [(s.kind, s.terminal, s.body_json) for s in reader.events_for_round(table, round_id)]
        if LOG_ROWS:
            found.add("public", "log rows", rows)
        logged = fetch_round(reader, table, round_id)
        found.add(
            "public", "narration", round_lines(list(reader.events_for_round(table, round_id)))
        )
        for terminal in TERMINALS:
            try:
                pictured: Any = round_views(logged, terminal) if logged is not None else None
            except RecallPictureError as exc:
                pictured = str(exc)
            found.add("public", f"picture views {terminal}", pictured)
    db = str(world.db)
    for args in (
        ("show", db, str(round_id)),
        ("show", db, str(round_id), "--json"),
        ("list", db, "--json"),
        ("receipt", db, str(round_id)),
    ):
        found.add("public", "etg recall " + " ".join(a for a in args if a != db), _cli(*args))
    console = world.console()
    for role in Role:
        for path in (
            "/",
            f"/table/{SERVER}/{table}",
            f"/table/{SERVER}/{table}/round",
            f"/terminal/{SERVER}/T1",
            f"/round/{SERVER}/{table}/{round_id}",
            "/recall?terminal=T1",
            f"/shoes/{SERVER}/{table}",
        ):
            found.add("public", f"console {role.value} {path}", _page(console, path, role))
    return found


@contextlib.contextmanager
def opened(world_factory: Callable[[], World]) -> Iterator[World]:
    world = world_factory()
    try:
        yield world
    finally:
        world.close()
