"""What the games' end-to-end tests share (test_caribbean_e2e, test_fourcard_e2e,
test_uth_e2e, test_spanish21_e2e): a table of a shipped Rules Submission with short
countdowns and its certificates, a terminal's or the operator's greeting over mutual TLS,
the view, the stadium tables' betting window, and the log's verification.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterable
from contextlib import closing
from pathlib import Path
from typing import Any

from game_server.config import example_path
from game_server.eventlog import EventLogReader
from game_server.keys import init_keys, load_public_key, load_sealing_key
from game_server.net.pki import init_pki
from game_server.recall.verify import verify_log
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient

#: The countdowns a stadium table's example shortens.
STADIUM_TIMERS = ("betting_seconds", "decision_seconds")


def short_table(
    tmp_path: Path, example: str, timers: Iterable[str] = STADIUM_TIMERS
) -> dict[str, Path]:
    """The shipped example ``example`` with each of ``timers`` at 3 seconds, the PKI of two
    terminals and the operator, and where the log goes: ``certs``, ``config``, ``db``."""
    certs = tmp_path / "certs"
    init_pki(certs, terminals=2)
    init_keys(certs)
    text = example_path(example).read_text()
    for timer in timers:
        text = re.sub(rf"^{timer} = \d+", f"{timer} = 3", text, flags=re.M)
    config = tmp_path / "table.toml"
    config.write_text(text)
    return {"certs": certs, "config": config, "db": tmp_path / "table.db"}


def greet(port: int, certs: Path, who: str, software: str) -> AmpClient:
    """``who`` connected over mutual TLS with its certificate, its Hello answered."""
    client = AmpClient(port, certs, who)
    client.call("Hello", version=PROTOCOL_VERSION, software=software)
    return client


def raw_view(client: AmpClient) -> dict[str, Any]:
    """The terminal's view (GetView), as sent."""
    view: dict[str, Any] = json.loads(client.call("GetView")["view"])
    return view


def wait_stadium_betting(client: AmpClient) -> dict[str, Any]:
    """The view once a stadium table's betting window is open (15 seconds at most)."""
    for _ in range(150):
        view = raw_view(client)
        if view["machine"] == "betting" and view["phase"] == "betting":
            return view
        time.sleep(0.1)
    raise AssertionError("no betting window")


def verified(table: dict[str, Path]) -> Any:
    """``etg verify``'s report on the table's log."""
    with closing(EventLogReader.open(table["db"])) as reader:
        return verify_log(
            reader, load_public_key(table["certs"]), sealing_key=load_sealing_key(table["certs"])
        )


def check_log(table: dict[str, Path], rounds: int) -> None:
    """The log verifies and at least ``rounds`` rounds replayed."""
    report = verified(table)
    assert report.ok, report.first_failure
    assert report.counts.rounds_replayed >= rounds


def players(
    port: int,
    certs: Path,
    names: Iterable[str],
    amount: int,
    hello: Callable[[int, Path, str], AmpClient],
) -> tuple[AmpClient, dict[str, AmpClient]]:
    """The operator, having cashed ``amount`` in for each of ``names`` (reference "e2e"),
    and each of those terminals connected (each greeted by ``hello``)."""
    operator = hello(port, certs, "operator")
    names = list(names)
    for name in names:
        operator.call(
            "CashIn", request_id=f"in-{name}", terminal=name, amount=amount, reference="e2e"
        )
    return operator, {name: hello(port, certs, name) for name in names}
