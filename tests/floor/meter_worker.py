"""A table server's linked-meter traffic in a process of its own (the meters tests run two
at once against one store): ``python meter_worker.py URL TABLE MODE COUNT START_AT``.

MODE ``contribute``: COUNT contributions of 100 + round cents, one per round, each retried
with the same step key while the store cannot be reached (for up to 60 s). MODE ``award``:
one claim of 100% of the meter at round COUNT, made at the wall-clock time START_AT.
Prints one JSON line per change the store returned.
"""

from __future__ import annotations

import json
import sys
import time

from game_server.floor.errors import StoreUnavailable
from game_server.floor.meters import LinkedMeterClient

METER = "floor:linked-7s"


def retried(call):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + 60
    while True:
        try:
            return call()
        except StoreUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def main() -> None:
    url, table, mode, count, start_at = sys.argv[1:6]
    client = LinkedMeterClient(url)
    retried(lambda: client.state(METER))  # connected before the start
    time.sleep(max(0.0, float(start_at) - time.time()))
    if mode == "contribute":
        for round_id in range(1, int(count) + 1):
            ev = retried(
                lambda r=round_id: client.contribute(
                    METER, table, r, f"c:{METER}:T1:1", "T1", 100 + r
                )
            )
            print(json.dumps(ev._asdict()), flush=True)
    else:
        ev = retried(
            lambda: client.award(METER, table, int(count), f"a:{METER}:100:T1:1", 100, ["T1"])
        )
        print(json.dumps(ev._asdict()), flush=True)
    client.close()


if __name__ == "__main__":
    main()
