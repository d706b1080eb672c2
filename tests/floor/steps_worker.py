"""Two tables' steps on one reactor, one of them waiting on the floor store:
``python steps_worker.py URL``.

Table A's step awards a linked meter whose share window is 1.5 s (the store's
``meter_settle`` waits it out); 0.1 s later table B's step (a plain one) and A's next step
(queued behind its first) are asked. Prints one JSON line: when each step answered (seconds
after A's award was asked) and the order of A's steps.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from twisted.internet import defer, reactor

from game_server.floor.meters import LinkedMeterClient
from game_server.rules.wagers.base import MeterSpec
from game_server.table.steps import StepGate

METER = "floor:steps-7s"
SPEC = MeterSpec("Steps 7s", seed=100_000, reseed=50_000, increment_bp=500, secondary_bp=125)
WINDOW_MS = 1500


def main() -> None:
    client = LinkedMeterClient(sys.argv[1])
    client.open(METER, SPEC, WINDOW_MS)  # outside a step: a plain call (start-up)
    table_a, table_b = StepGate(), StepGate()
    began = time.monotonic()
    answered: dict[str, float] = {}
    order: list[str] = []

    def at(name: str) -> Any:
        def note(result: Any) -> Any:
            answered[name] = round(time.monotonic() - began, 3)
            return result

        return note

    def award() -> int:
        ev = client.award(METER, "A", 1, f"a:{METER}:100:T1:1", 100, ["T1"])
        order.append("award")
        return int(ev.share)

    def after_award() -> None:
        order.append("next")

    first = defer.maybeDeferred(table_a.run, award).addCallback(at("a_award"))
    asked: list[defer.Deferred[Any]] = [first]

    def others() -> None:
        asked.append(defer.maybeDeferred(table_b.run, lambda: "view").addCallback(at("b_view")))
        asked.append(defer.maybeDeferred(table_a.run, after_award).addCallback(at("a_next")))

    reactor.callLater(0.1, others)

    def done(_: Any) -> None:
        print(json.dumps({"answered": answered, "order": order}), flush=True)
        client.close()
        reactor.stop()

    reactor.callLater(0.2, lambda: defer.gatherResults(asked).addBoth(done))
    reactor.run()


if __name__ == "__main__":
    main()
