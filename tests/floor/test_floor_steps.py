"""A table's step that waits on the floor store does not stop the server's other tables.

A linked meter's award waits out its share window in the store (605a.8); the table server's
reactor must go on serving every other table meanwhile, while the table itself answers
nothing before the store did (its next input waits for the step). The worker runs the real
reactor and the real meter client against a real PostgreSQL (:mod:`steps_worker`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from floor_helpers import StoreUrls

WORKER = Path(__file__).with_name("steps_worker.py")


def test_an_award_waiting_on_the_store_leaves_other_tables_answering(store: StoreUrls) -> None:
    done = subprocess.run(
        [sys.executable, str(WORKER), store.shipper],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result = json.loads(done.stdout.splitlines()[-1])
    answered, order = result["answered"], result["order"]
    # The award waited out the 1.5 s share window in the store...
    assert answered["a_award"] >= 1.4, result
    # ...while the other table, asked at 0.1 s, answered at once (not after the award).
    assert answered["b_view"] < 0.9, result
    # The table's own next step waited for its award: in order, never before the store.
    assert order == ["award", "next"], result
    assert answered["a_next"] >= answered["a_award"], result
