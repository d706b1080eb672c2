"""Fault test: SIGKILL the real server at 20 random moments of scripted play.

A bot terminal plays through TLS while a timer kills the server process at a random moment
(fixed seed) between 0.3 and 7 seconds after start: before or during a betting window (3 s),
mid-round, during an append. Each time the server is
restarted on the same log and the bot reconnects and carries on. At the end the log
verifies, every round is completed or resumable, and no credit was lost or created:
credits in = credits out + wallets + wagers in play + house result ([server] "kill -9 of the
server at any moment").
"""

from __future__ import annotations

import json
import random
import signal
import sys
import threading
from pathlib import Path

from game_server.eventlog import EventLogReader
from game_server.keys import load_public_key
from game_server.recall.rounds import walk
from game_server.recall.verify import verify_log
from game_server.table.ledger import Ledger

sys.path.insert(0, str(Path(__file__).parent))
from test_server_e2e import hello, server
from test_server_e2e import table as table  # the fixture

from tools.amp_client import AmpError

KILLS = 20


def bot_steps(port: int, certs: Path, steps: int, tag: str) -> None:
    """Play up to ``steps`` commands: wager when betting, stand when it is our turn."""
    operator, _ = hello(port, certs, "operator")
    meters = json.loads(operator.call("ReadMeters")["meters"])
    if meters["wallets"].get("T1", 0) < 2_000:
        operator.call(
            "CashIn", request_id=f"in-{tag}", terminal="T1", amount=50_000, reference="fault test"
        )
    t1, answer = hello(port, certs, "T1")
    view = json.loads(answer["view"])
    for step in range(steps):
        try:
            if view["phase"] == "betting" and not any(s.get("seat") == 1 for s in view["seats"]):
                view = json.loads(
                    t1.call("PlaceWagers", request_id=f"{tag}-w{step}", wagers={"blackjack": 500})[
                        "view"
                    ]
                )
            elif view["actions"] and view["to_act"]:
                view = json.loads(
                    t1.call(
                        "Act",
                        request_id=f"{tag}-a{step}",
                        action="stand",
                        hand=view["to_act"]["hand"],
                        amount=0,
                    )["view"]
                )
            else:
                view = t1.wait_view(lambda v: True, timeout=10)
        except AmpError as exc:
            assert exc.code in ("ROUND_CLOSED", "NOT_YOUR_TURN", "BET_OUT_OF_LIMITS"), exc
            view = json.loads(t1.call("GetView")["view"])


def test_sigkill_at_twenty_random_moments_loses_nothing(table: dict[str, Path]) -> None:
    """After 20 SIGKILLs at random moments and restarts, the log verifies, rounds resume,
    and money is conserved."""
    rng = random.Random(20261129)
    for kill in range(KILLS):
        with server(table) as (process, port):
            timer = threading.Timer(rng.uniform(0.3, 7.0), process.send_signal, [signal.SIGKILL])
            timer.start()
            try:
                bot_steps(port, table["certs"], 1_000, f"k{kill}")
            except (ConnectionError, OSError, TimeoutError):
                pass  # the server was killed under the bot
            finally:
                timer.cancel()
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
            process.wait(timeout=10)
    with server(table) as (_process, port):
        operator, _ = hello(port, table["certs"], "operator")
        meters = json.loads(operator.call("ReadMeters")["meters"])
    with EventLogReader.open(table["db"]) as reader:
        report = verify_log(reader, load_public_key(table["certs"]))
        assert report.ok, report.first_failure
        ledger = Ledger()
        rounds = list(
            walk(reader.iter_events(), on_event=lambda e: ledger.apply(e.stored.terminal, e.event))
        )
    assert ledger.conserved()
    assert meters["credits_in"] == ledger.credits_in
    assert meters["wallets"] == dict(sorted(ledger.wallets.items()))
    assert all(r.complete for r in rounds[:-1])
    assert len(rounds) >= 5, "the bot played rounds through the kills"
    assert meters["games_played"] == sum(r.complete for r in rounds)
