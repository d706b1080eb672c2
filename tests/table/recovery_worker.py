"""A table process for the ``kill -9`` test: recover from the log, then play scripted rounds.

Usage: ``python tests/table/recovery_worker.py DB CERTS ROUNDS SEED``

Opens (or creates) the log ``DB``, recovers the table from it, prints ``ready`` and a summary,
then plays with :func:`recovery_script.next_input` until the table's last round id is
``ROUNDS``, printing ``round N`` after each round closes; then closes the log cleanly and
prints ``done``. It may be killed at any moment; the next run resumes where it stopped.
"""

from __future__ import annotations

import sys
from pathlib import Path

from recovery_script import TERMINALS, next_input, script_strategy, small_shoe_config

from game_server.eventlog import EventLog, system_clock
from game_server.table.recovery import open_table_reporting
from game_server.table.session import simulation_seeds


def main(argv: list[str]) -> int:
    db, certs, rounds, seed = Path(argv[0]), Path(argv[1]), int(argv[2]), int(argv[3])
    config = small_shoe_config()
    session, report = open_table_reporting(
        config,
        db,
        certs,
        TERMINALS,
        clock=system_clock,
        seeds=simulation_seeds(seed, config.table_id),
    )
    print("ready", report.describe(), flush=True)
    strategy = script_strategy(config.rules)
    closed = session.round_id if session.round is None else session.round_id - 1
    while next_input(session, strategy, rounds) is not None:
        if session.round is None and session.round_id != closed:
            closed = session.round_id
            print("round", closed, flush=True)
    log = session.sink
    assert isinstance(log, EventLog)
    log.close()
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
