"""Floor-wide recall and reports: ``etg recall list/show --store`` and ``etg report --store``
read the logs the store holds with the same code, and give the same answers, as on each
server's own file.

Two servers' logs are written by the real logged simulation (real rounds of Blackjack with
its progressive side wagers), shipped into a real PostgreSQL, then recalled both ways.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from floor_helpers import StoreUrls

from game_server.config import load_config
from game_server.eventlog import EventLogReader
from game_server.floor.store import FloorStore
from game_server.keys import init_keys, key_id, load_public_key
from game_server.rules.events import from_dict
from game_server.rules.meters import MeterContributed
from game_server.simlog import run_logged_sim
from game_server.table.ledger import Ledger
from tools.cli import main

CONFIG = (
    Path(__file__).resolve().parents[2]
    / "game_server/games/blackjack/configs/fully-automated-all-side-wagers.toml"
)


@dataclass(frozen=True)
class Shipped:
    server: str
    db: Path
    log_id: str


def ship(store: StoreUrls, db: Path, certs: Path, server: str) -> Shipped:
    """Register the server's key and put its whole log into the store."""
    public = load_public_key(certs)
    shipper = FloorStore.connect(store.register(public, server))
    try:
        with EventLogReader.open(db) as reader:
            log_id = reader.log_id
            shipper.claim(log_id, key_id(public))
            shipper.ship_state(log_id, reader.meta(), reader.applied_migrations())
            shipper.ingest(log_id, list(reader.iter_rows()), reader.checkpoints())
    finally:
        shipper.close()
    return Shipped(server, db, log_id)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Path, Path]]:
    """Two servers' logs (the same table id at both: a floor can hold that)."""
    base = tmp_path_factory.mktemp("floor-recall")
    made = []
    for n, server in enumerate(("BJ-A", "BJ-B"), start=1):
        certs = base / server / "certs"
        init_keys(certs)
        db = base / server / "table.db"
        run_logged_sim(load_config(CONFIG), db, certs, rounds=40, seats=3, seed=n)
        made.append((server, db, certs))
    return made


@pytest.fixture
def floor(store: StoreUrls, logs: list[tuple[str, Path, Path]]) -> list[Shipped]:
    return [ship(store, db, certs, server) for server, db, certs in logs]


def etg(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def _said(*args: str) -> str:
    """What the command wrote to stderr."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False).stderr


def listed(*args: str) -> list[dict[str, Any]]:
    return list(json.loads(etg("recall", "list", *args, "--json")))


FILTERS = [
    ("--last", "200"),
    ("--last", "7"),
    ("--last", "50", "--terminal", "T2"),
    ("--last", "50", "--wager", "lucky_aces"),
    ("--last", "50", "--min-payout", "1000"),
    ("--last", "50", "--wager", "blackjack", "--min-payout", "500", "--terminal", "T1"),
]


@pytest.mark.parametrize("filters", FILTERS)
def test_recall_list_from_the_store_is_the_union_of_the_files(
    store: StoreUrls, floor: list[Shipped], filters: tuple[str, ...]
) -> None:
    last = int(filters[1])
    expected = [
        {"server": shipped.server, **item}
        for shipped in floor
        for item in listed(str(shipped.db), *filters)
    ]
    expected.sort(key=lambda item: (item["end"], item["last_seq"]), reverse=True)
    got = listed("--store", store.investigator, *filters)
    assert got == expected[:last]
    assert got, "the filter must find rounds, or the comparison proves nothing"


def test_recall_list_since_until_and_server(store: StoreUrls, floor: list[Shipped]) -> None:
    every = [
        i for i in listed("--store", store.investigator, "--last", "500") if i["server"] == "BJ-B"
    ]
    middle = sorted(item["end"] for item in every)[len(every) // 2]
    since = ("--since", middle)
    from_file = [
        {"server": "BJ-B", **item} for item in listed(str(floor[1].db), "--last", "500", *since)
    ]
    got = listed("--store", store.investigator, "--last", "500", "--server", "BJ-B", *since)
    assert got == from_file
    assert 0 < len(got) < len(every)


def test_recall_list_text_names_the_server(store: StoreUrls, floor: list[Shipped]) -> None:
    lines = etg("recall", "list", "--store", store.investigator, "--last", "4").splitlines()
    assert lines[0].split()[:3] == ["server", "table", "round"]
    assert {line.split()[0] for line in lines[1:]} <= {"BJ-A", "BJ-B"}
    assert len(lines) == 5


def test_recall_show_from_the_store_is_the_files_timeline(
    store: StoreUrls, floor: list[Shipped]
) -> None:
    for shipped in floor:
        rounds = listed(str(shipped.db), "--last", "3")
        for item in rounds:
            on_file = etg(
                "recall", "show", str(shipped.db), str(item["round"]), "--table", item["table"]
            )
            from_store = etg(
                "recall",
                "show",
                "--store",
                store.investigator,
                "--server",
                shipped.server,
                str(item["round"]),
            )
            assert from_store == on_file
            assert f"server {shipped.server}, log {shipped.log_id}" in _said(
                "recall",
                "show",
                "--store",
                store.investigator,
                "--server",
                shipped.server,
                str(item["round"]),
            )
            assert "settled" in on_file or "wager" in on_file


def test_recall_show_of_a_round_both_servers_played_asks_which(
    store: StoreUrls, floor: list[Shipped]
) -> None:
    result = CliRunner().invoke(main, ["recall", "show", "--store", store.investigator, "5"])
    assert result.exit_code == 2
    assert "on BJ-A" in result.output and "on BJ-B" in result.output
    assert "--server" in result.output
    result = CliRunner().invoke(
        main, ["recall", "show", "--store", store.investigator, "--server", "BJ-A", "9999"]
    )
    assert result.exit_code == 2
    assert "there is no round 9999" in result.output


def test_recall_refuses_both_sources_or_none(store: StoreUrls, floor: list[Shipped]) -> None:
    for args in (
        ["recall", "list"],
        ["recall", "list", str(floor[0].db), "--store", store.investigator],
        ["recall", "list", str(floor[0].db), "--server", "BJ-A"],
    ):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2, args
        assert "--store" in result.output


def test_recall_from_a_store_that_is_not_there_says_so(floor: list[Shipped]) -> None:
    url = "postgresql://etg_investigator@127.0.0.1:1/etg_floor"
    result = CliRunner().invoke(main, ["recall", "list", "--store", url])
    assert result.exit_code == 2
    assert "cannot connect to the floor store" in result.output


def _fold(db: Path) -> tuple[Ledger, int]:
    """The file's whole ledger and meter contributions (millicents), folded here."""
    ledger = Ledger()
    contributed = 0
    with EventLogReader.open(db) as reader:
        for stored in reader.iter_events():
            event = from_dict(stored.body)
            ledger.apply(stored.terminal, event)
            if isinstance(event, MeterContributed):
                contributed += event.increment + event.secondary
    return ledger, contributed


def test_report_from_the_store_adds_up_to_each_logs_fold(
    store: StoreUrls, floor: list[Shipped]
) -> None:
    today = datetime.now(UTC).date()
    window = ("--since", (today - timedelta(days=1)).isoformat(), "--until", today.isoformat())
    text = etg("report", "--store", store.investigator, *window)
    rows = list(
        csv.DictReader(io.StringIO(etg("report", "--store", store.investigator, *window, "--csv")))
    )
    assert rows, text
    for shipped in floor:
        ledger, contributed = _fold(shipped.db)
        mine = [row for row in rows if row["server"] == shipped.server]
        coin_in = sum(int(r["coin_in_cents"]) for r in mine)
        assert coin_in == sum(m.wagered for m in ledger.meters.values()) > 0
        assert sum(int(r["coin_out_cents"]) for r in mine) == sum(
            m.paid for m in ledger.meters.values()
        )
        assert sum(int(r["cash_in_cents"]) for r in mine) == ledger.credits_in
        assert sum(int(r["progressive_paid_cents"]) for r in mine) == ledger.progressive_paid
        assert sum(int(r["progressive_contributed_millicents"]) for r in mine) == contributed > 0
        assert sum(int(r["games_played"]) for r in mine) == ledger.games_played == 40
    header = text.splitlines()[0].split()
    assert header[:3] == ["shift", "server", "table"]
    assert "hold" in header and "contributed" in header and "awards" in header


def test_report_refuses_a_backwards_window_and_a_bad_zone(store: StoreUrls) -> None:
    for extra, said in (
        (["--since", "2026-01-02", "--until", "2026-01-01"], "--until must be after --since"),
        (["--since", "2026-01-01", "--until", "2026-01-02", "--timezone", "Mars/Base"], "IANA"),
        (["--since", "2026-01-01", "--until", "2026-01-02", "--shifts", "14:00,06:00"], "order"),
    ):
        result = CliRunner().invoke(main, ["report", "--store", store.investigator, *extra])
        assert result.exit_code == 2
        assert said in result.output
