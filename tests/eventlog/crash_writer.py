"""A writer for the kill -9 test: appends numbered steps to a log until it is killed.

Usage: ``python tests/eventlog/crash_writer.py LOG KEY_DIR STEP_SIZE``. Each step has
``STEP_SIZE`` events whose bodies carry the step number, their index in the step and the
step's size; every fifth step also writes a round-close checkpoint. After each append
returns, the step number is printed (and flushed): a printed step was acknowledged as
durable. Step numbers continue from the last step already in the log.
"""

from __future__ import annotations

import sys

from game_server.eventlog import EventLog, EventLogReader, NewEvent, system_clock


def main(path: str, keys: str, size: int) -> None:
    log = EventLog.create_or_open(path, keys, system_clock)
    step = 1
    if log.head.seq:
        with EventLogReader.open(path) as reader:
            last = reader.event(log.head.seq)
            assert last is not None
            step = last.body["step"] + 1
    while True:
        events = [
            NewEvent(
                "T1",
                step,
                f"term-{i % 7}",
                {"kind": "crash_step", "v": 1, "step": step, "index": i, "count": size},
            )
            for i in range(size)
        ]
        log.append(events, checkpoint="round-close" if step % 5 == 0 else None)
        print(step, flush=True)
        step += 1


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
