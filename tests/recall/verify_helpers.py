"""Helpers of the ``etg verify`` tests: small logs written by the live table's own session
(through :func:`game_server.simlog.run_logged_sim`), and what a tamperer does to a copy of one
with a raw sqlite3 connection (drop the triggers, edit rows, recompute the chain, put the triggers
back, re-sign checkpoints with a key of their own)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from game_server.config import example_config_path, load_config
from game_server.eventlog import GENESIS_HASH, TRIGGERS, Checkpoint, row_hash
from game_server.eventlog.chain import message_of
from game_server.keys import init_keys, key_id
from game_server.simlog import run_logged_sim
from shared.codec import canonical_json

#: Rounds and seats of the test logs: two shoes (6 decks, cut card at 234).
ROUNDS = 24
SEATS = 3
SEED = 7


def make_keys(directory: Path) -> Path:
    """A fresh certs directory (log-signing and shoe-sealing keys)."""
    init_keys(directory)
    return directory


def make_log(
    directory: Path,
    certs: Path,
    *,
    rounds: int = ROUNDS,
    seats: int = SEATS,
    seed: int = SEED,
    progress: Callable[[int], None] | None = None,
) -> Path:
    """A complete log written by the table session, every shoe revealed at the end; its
    checkpoints are also kept in ``directory/anchors.jsonl``."""
    db = directory / "table.db"
    config = load_config(example_config_path())
    run_logged_sim(
        config,
        db,
        certs,
        rounds=rounds,
        seats=seats,
        seed=seed,
        progress=progress,
        anchors=directory / "anchors.jsonl",
    )
    return db


def copy_log(src: Path, dst: Path) -> Path:
    """A copy of a closed log (WAL already folded into the file)."""
    shutil.copyfile(src, dst)
    return dst


def raw(path: Path) -> sqlite3.Connection:
    """A plain read-write connection, as someone with the file in hand opens it."""
    return sqlite3.connect(path, isolation_level=None)


def readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection (to look up seqs without touching the file)."""
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def drop_triggers(conn: sqlite3.Connection) -> None:
    """What a tamperer does first."""
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
        conn.execute(f"DROP TRIGGER {name}")


def restore_triggers(conn: sqlite3.Connection) -> None:
    """What a careful tamperer does last: the triggers exactly as the schema made them."""
    for sql in TRIGGERS.values():
        conn.execute(sql)


def seqs(conn: sqlite3.Connection, kind: str, round_id: int | None = None) -> list[int]:
    """The seqs of the events of ``kind`` (in ``round_id``), in order."""
    if round_id is None:
        rows = conn.execute("SELECT seq FROM events WHERE kind = ? ORDER BY seq", (kind,))
    else:
        rows = conn.execute(
            "SELECT seq FROM events WHERE kind = ? AND round_id = ? ORDER BY seq",
            (kind, round_id),
        )
    return [seq for (seq,) in rows]


def body(conn: sqlite3.Connection, seq: int) -> dict[str, Any]:
    """The event dict of row ``seq``."""
    (text,) = conn.execute("SELECT body FROM events WHERE seq = ?", (seq,)).fetchone()
    value: dict[str, Any] = json.loads(text)
    return value


def set_body(conn: sqlite3.Connection, seq: int, value: dict[str, Any]) -> None:
    """Overwrite row ``seq``'s body with the canonical JSON of ``value`` (triggers dropped)."""
    conn.execute(
        "UPDATE events SET body = ?, kind = ? WHERE seq = ?",
        (canonical_json(value).decode(), value["kind"], seq),
    )


def rehash_from(conn: sqlite3.Connection, seq: int) -> None:
    """Recompute the stored hash of every row from ``seq`` on, with the chain's own functions
    (anyone can: the chain has no secret; only the checkpoints' signatures do)."""
    prev = GENESIS_HASH
    if seq > 1:
        (prev,) = conn.execute("SELECT hash FROM events WHERE seq = ?", (seq - 1,)).fetchone()
    rows = conn.execute(
        "SELECT seq, time, table_id, round_id, terminal, kind, body, hash FROM events "
        "WHERE seq >= ? ORDER BY seq",
        (seq,),
    ).fetchall()
    for row in rows:
        prev = row_hash(prev, row)
        conn.execute("UPDATE events SET hash = ? WHERE seq = ?", (prev, row[0]))


def checkpoint_rows(conn: sqlite3.Connection) -> list[tuple[int, int]]:
    """``(number, seq)`` of every checkpoint, in order."""
    return list(conn.execute("SELECT number, seq FROM checkpoints ORDER BY number"))


def resign_checkpoints(conn: sqlite3.Connection, key: Ed25519PrivateKey) -> None:
    """Sign every checkpoint again with ``key`` (naming it), as a tamperer without the table's
    signing key can."""
    (log_id,) = conn.execute("SELECT value FROM meta WHERE key = 'log_id'").fetchone()
    rows = conn.execute(
        "SELECT number, seq, hash, time, reason, meta FROM checkpoints ORDER BY number"
    ).fetchall()
    kid = key_id(key)
    for number, seq, hash_, time, reason, meta in rows:
        checkpoint = Checkpoint(number, seq, hash_, time, reason, kid, "", log_id, meta)
        signature = key.sign(message_of(checkpoint)).hex()
        conn.execute(
            "UPDATE checkpoints SET key_id = ?, signature = ? WHERE number = ?",
            (kid, signature, number),
        )
