"""End to end: a Caribbean Stud round in play at a real server shows no hidden card at any
exit (58 Pa. Code 639a.1: the dealer's four hole cards and each player's hand).

Before, the player's own terminal read the dealer's whole hand in its ``GetRecall`` during
the bet/fold decision, and the console's round-in-play fragment and ``etg recall show``
printed "dealer is dealt Q♥ face down". Here, while T1 decides (a long decision countdown),
every exit is read: T1's ``GetRecall``; ``etg recall show`` (text and JSON), ``list`` and
``receipt`` as separate processes on the live log; the console's pages for every role,
reading the live log; and the log's own rows read with Debian's ``sqlite3 -readonly``.
Once the round closed, its cards are known: none T1 may not see is in what T1 got, and none
the table does not show everyone (the hole cards, both players' hands) is in the others.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from game_table import greet, players, raw_view, short_table, wait_stadium_betting
from test_server_e2e import ROOT, server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "console"))
from console_harness import Console, MetersLink

from game_server.console.roles import Role
from game_server.eventlog import EventLogReader
from game_server.recall.query import fetch_round
from shared.cards import Card
from tools.amp_client import AmpClient

pytestmark = pytest.mark.slow

ANTE = 500
SQLITE3 = shutil.which("sqlite3")
#: What changes from one request to the next: the session's tokens.
_TOKENS = re.compile(r'(value="|data-csrf="|csrf=)[A-Za-z0-9_\-]{16,}')


def _hello(port: int, certs: Path, who: str) -> AmpClient:
    return greet(port, certs, who, "e2e-secrecy")


def _etg(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "tools", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _console_pages(table: dict[str, Path], table_id: str, round_id: int, work: Path) -> str:
    console = Console(table["certs"], table["db"], work, MetersLink("pit-1"))
    pages = []
    for role in Role:
        for path in (
            f"/table/pit-1/{table_id}",
            f"/table/pit-1/{table_id}/round",
            f"/round/pit-1/{table_id}/{round_id}",
            "/recall?terminal=T1",
            "/terminal/pit-1/T1",
        ):
            request = console.request("GET", path, role)
            pages.append(_TOKENS.sub(r"\1*", request.body))
    return "\n".join(pages)


def _log_rows(db: Path, round_id: int) -> str:
    if SQLITE3 is None:
        assert not os.environ.get("ETG_REQUIRE_SQLITE3"), "sqlite3 is not installed"
        command = [sys.executable, "-c", _PY_READER, str(db), str(round_id)]
    else:
        sql = f"select body from events where round_id = {round_id} order by seq"
        command = [SQLITE3, "-readonly", str(db), sql]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


_PY_READER = (
    "import sqlite3, sys; c = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True); "
    "print('\\n'.join(r[0] for r in c.execute('select body from events where round_id = ? "
    "order by seq', (int(sys.argv[2]),))))"
)


def _shown(cards: list[Card], text: str) -> list[str]:
    """Which of ``cards`` ``text`` shows, as JSON writes a card ("QH") or recall ("Q♥")."""
    return [str(c) for c in cards if f'"{c}"' in text or c.symbol in text]


def test_a_caribbean_round_in_play_shows_no_hidden_card_at_any_exit(tmp_path: Path) -> None:
    table = short_table(tmp_path, "caribbean.toml", timers=("betting_seconds",))
    config = table["config"]
    config.write_text(
        re.sub(r"^decision_seconds = \d+", "decision_seconds = 60", config.read_text(), flags=re.M)
    )
    read: dict[str, str] = {}
    with server(table) as (_process, port):
        operator, clients = players(port, table["certs"], ["T1", "T2"], 100_000, _hello)
        round_id = 0
        for name, client in clients.items():
            wait_stadium_betting(client)
            answer = client.call("PlaceWagers", request_id=f"{name}-1", wagers={"ante": ANTE})
            round_id = json.loads(answer["view"])["round"]
        t1 = clients["T1"]
        deadline = time.monotonic() + 30
        while not (view := raw_view(t1))["actions"]:
            assert time.monotonic() < deadline, "no decision"
            time.sleep(0.1)
        assert view["round"] == round_id
        assert view["dealer"]["cards"][1:] == [None] * 4
        table_id = view["table"]
        db = str(table["db"])
        read["GetRecall of T1"] = t1.call("GetRecall")["recall"]
        read["etg recall show"] = _etg("recall", "show", db, str(round_id))
        read["etg recall show --json"] = _etg("recall", "show", db, str(round_id), "--json")
        read["etg recall list"] = _etg("recall", "list", db, "--json")
        read["etg recall receipt"] = _etg("recall", "receipt", db, str(round_id))
        read["the console"] = _console_pages(table, table_id, round_id, tmp_path / "console")
        read["the log's rows"] = _log_rows(table["db"], round_id)
        assert raw_view(t1)["actions"], "the decision ended while the exits were read"
        for name, client in clients.items():
            client.call("Act", request_id=f"{name}-act", action="bet", hand=0, amount=0)
        deadline = time.monotonic() + 30
        while raw_view(t1)["phase"] != "complete":
            assert time.monotonic() < deadline, "the round did not finish"
            time.sleep(0.1)
        for client in (operator, *clients.values()):
            client.close()
    with EventLogReader.open(table["db"]) as reader:
        logged = fetch_round(reader, table_id, round_id)
    assert logged is not None and logged.closed is not None
    dealt = [item for item in logged.events if item.stored.kind == "caribbean_card_dealt"]
    hole = [i.event.card for i in dealt if i.event.seat == 0 and not i.event.face_up]
    hands = {
        terminal: [i.event.card for i in dealt if i.stored.terminal == terminal]
        for terminal in ("T1", "T2")
    }
    assert len(hole) == 4 and all(len(h) == 5 for h in hands.values())
    assert not _shown(hole + hands["T2"], read.pop("GetRecall of T1"))
    for exit_name, text in read.items():
        assert not _shown(hole + hands["T1"] + hands["T2"], text), exit_name
