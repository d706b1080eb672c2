"""The floor store holds a round in play's face-down cards sealed, as the log does, and its
recall shows them only once the round closed (:mod:`game_server.table.secrecy`).

The log of ``tests/recall/recall_logs.py`` (two Blackjack tables; BJ-02's last round dealt
and not finished, its hole card face down) is shipped to a real PostgreSQL; an investigator
reading the store sees neither the hole card of the round in play in its rows nor in
``etg recall show --store``, and sees each closed round's hole card as the file's recall
does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner
from floor_helpers import StoreUrls, log_rows, store_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "recall"))
from recall_logs import build_log

from game_server.eventlog import EventLogReader
from game_server.floor.store import FloorStore
from game_server.keys import KeyFiles, key_id, load_public_key
from game_server.recall.query import fetch_round
from tools.cli import main


def _ship(store: StoreUrls, db: Path, certs: Path) -> str:
    public = load_public_key(certs)
    shipper = FloorStore.connect(store.register(public, "BJ-SRV"))
    try:
        with EventLogReader.open(db) as reader:
            log_id = reader.log_id
            shipper.claim(log_id, key_id(public))
            shipper.ship_state(log_id, reader.meta(), reader.applied_migrations())
            shipper.ingest(log_id, list(reader.iter_rows()), reader.checkpoints())
    finally:
        shipper.close()
    return log_id


def _show(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(main, ["recall", "show", *args, "--json"])
    assert result.exit_code == 0, result.output
    shown: dict[str, object] = json.loads(result.stdout)
    return shown


def test_the_store_holds_a_round_in_plays_hole_card_sealed_and_recalls_it_once_closed(
    store: StoreUrls, certs: KeyFiles, tmp_path: Path
) -> None:
    db = tmp_path / "table.db"
    build_log(db, certs.signing_key.parent, rounds=6)
    log_id = _ship(store, db, certs.signing_key.parent)
    file_rows = log_rows(db)[1]
    rows, _ = store_rows(store.investigator, log_id)
    assert [tuple(r) for r in rows] == [tuple(r) for r in file_rows]  # the log's own rows
    with EventLogReader.open(db) as reader:
        in_play = max(
            r
            for t, r in {(s.table_id, s.round_id) for s in reader.iter_events()}
            if t == "BJ-02" and r is not None
        )
        logged = fetch_round(reader, "BJ-02", in_play)
        closed = fetch_round(reader, "BJ-02", in_play - 1)
    assert logged is not None and logged.closed is None
    assert closed is not None and closed.closed is not None
    sealed = [
        json.loads(r[6])
        for r in rows
        if r[3] == in_play and r[2] == "BJ-02" and r[5] == "card_dealt"
    ]
    hole = [body for body in sealed if not body["face_up"]]
    assert hole and all(body["card"] is None for body in hole)
    args = ["--store", store.investigator, "--server", "BJ-SRV", "--table", "BJ-02"]
    shown = _show(*args, str(in_play))
    faces = [e for e in shown["timeline"] if e["kind"] == "card_dealt" and not e["face_up"]]
    assert [e["card"] for e in faces] == [None]
    before = _show(*args, str(in_play - 1))
    on_file = _show(str(db), str(in_play - 1), "--table", "BJ-02")
    holes = [e for e in before["timeline"] if e["kind"] == "card_dealt" and not e["face_up"]]
    assert holes and all(isinstance(e["card"], str) for e in holes)
    assert before["timeline"] == on_file["timeline"]
