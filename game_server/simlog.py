"""``etg sim --log DB``: play simulated rounds through the live table's session and log them.

The rounds go through the session of the table's game exactly as the live table plays them
(sealed shoes, wallets, one transaction per step, a signed checkpoint at every round close),
so recall and verification work on a simulated log as on a real one: each game's bots play
(:meth:`~game_server.games.api.Game.logged_sim`); each terminal is cashed in at the start and
topped up when its credits run low (:data:`SIM_CREDITS`).

A simulation writes a NEW log, marked as a simulation's (``meta.log_kind``): its shoes come
from test seeds and its terminals are credited with play money, so it is never written into
a table server's log (nor a table server into it), and an existing log is refused with a
sentence (:func:`open_sim_log`).

Entry points: :func:`run_logged_sim`, :func:`logged_rounds`, :func:`open_sim_log`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from game_server import games
from game_server.config import TableConfig
from game_server.eventlog import (
    SIMULATION_LOG,
    AnchorFile,
    EventLog,
    EventLogError,
    EventLogReader,
    LogKindMismatch,
    schema,
    system_clock,
)
from game_server.eventlog.sqlite_store import kind_refusal
from game_server.keys import key_id, load_public_key, load_sealing_key, load_signing_key
from game_server.rules.events import from_dict
from game_server.table.session import SealedShoes, TableBook, simulation_seeds

__all__ = ["SIM_CREDITS", "SimLogExists", "logged_rounds", "open_sim_log", "run_logged_sim"]

#: Credits each simulated terminal starts with, and the top-up when it runs low.
SIM_CREDITS = 1_000_000


def open_sim_log(db: Path, signing_key: Ed25519PrivateKey, anchors: Path | None) -> EventLog:
    """Create the log of a simulation at ``db`` (kind ``"simulation"``), anchored to
    ``anchors`` when given.

    Raises:
        LogKindMismatch: ``db`` is a table server's log (nothing is written to it).
        SimLogExists: ``db`` already holds a simulation.
        EventLogError: ``db`` is not an event log, or cannot be created.
    """
    found = schema.inspect(db)
    if found.found is schema.Found.LOG:
        if found.log_kind != SIMULATION_LOG:
            raise LogKindMismatch(kind_refusal(db, found.log_kind))
        raise SimLogExists(
            f"{db} already holds a simulation; etg sim --log writes a new log (its rounds "
            "would start again at round 1). Give --log a new file."
        )
    return EventLog.create_or_open(
        db,
        signing_key,
        system_clock,
        kind=SIMULATION_LOG,
        anchors=None if anchors is None else AnchorFile(anchors),
    )


class SimLogExists(EventLogError):
    """``etg sim --log`` given a file that already holds a simulation's log."""


def run_logged_sim(
    config: TableConfig,
    db: Path,
    certs: Path,
    *,
    rounds: int,
    seats: int,
    seed: int,
    progress: Callable[[int], None] | None = None,
    anchors: Path | None = None,
) -> TableBook:
    """Play ``rounds`` rounds at ``seats`` seats (players, in stadium play) and write the
    complete event log to ``db``.

    The shoes come from test seeds derived from ``seed`` (a simulation, not production); they
    are sealed with the shoe-sealing key of ``certs`` and revealed when retired, and the last
    shoe is revealed at the end so that every card can be verified. Every checkpoint also
    goes to the anchor stream ``anchors`` when given.
    """
    signing_key = load_signing_key(certs)
    sealing_key = load_sealing_key(certs)
    shoes = SealedShoes(
        config, simulation_seeds(seed, config.table_id), sealing_key, key_id(load_public_key(certs))
    )
    game = games.game_for(config)
    with open_sim_log(db, signing_key, anchors) as log:
        return game.logged_sim(config, log, shoes, rounds=rounds, seats=seats, progress=progress)


def logged_rounds(db: Path) -> Iterator[list[Any]]:
    """The decoded events of each round of a log, round by round, in log order."""
    games.games()  # loading the games registers their event records
    with closing(EventLogReader.open(db)) as reader:
        current: list[Any] = []
        current_round: int | None = None
        for stored in reader.iter_events():
            if stored.round_id is None:
                continue
            if stored.round_id != current_round and current:
                yield current
                current = []
            current_round = stored.round_id
            current.append(from_dict(stored.body))
        if current:
            yield current
