"""Issue 13, item 1, against the real server process: idle TLS connections with a valid
certificate cannot exhaust the server's descriptors (the attack is in
``descriptor_attack.py``, which also prints the figures by hand).

Before the fix, 300 such connections against a server limited to 200 descriptors took every
descriptor, the seated terminal could not connect, and the sockets stayed open after the
Hello deadline (the server waited for close_notify answers that never came).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from descriptor_attack import attack, make_table

from game_server.net.floor import NetLimits
from game_server.net.server import CLOSE_GRACE_SECONDS

CONNECTIONS = 300
NOFILE = 200
HELLO_SECONDS = 3.0


@pytest.mark.slow
def test_idle_tls_connections_cannot_exhaust_the_servers_descriptors(tmp_path: Path) -> None:
    """300 idle connections with T3's valid certificate (no seat) against a server limited
    to 200 descriptors: the server holds at most connections_per_identity of them and
    refuses the rest at once (logged), T1 says Hello and gets its view meanwhile, and once
    the Hello deadline and the close grace have passed the descriptors are back."""
    table = make_table(tmp_path, HELLO_SECONDS)
    result = attack(
        table,
        connections=CONNECTIONS,
        nofile=NOFILE,
        after_seconds=HELLO_SECONDS + CLOSE_GRACE_SECONDS + 2,
    )
    print(result.describe())
    assert result.terminal_served, result.describe()
    per_identity = NetLimits().connections_per_identity
    assert result.under_attack <= result.baseline + per_identity + 2, result.describe()
    assert result.after <= result.baseline + 1, result.describe()
    output = "".join(result.server_output)
    assert "refusing a connection from 127.0.0.1" in output
    assert "T3 already holds 4 connections" in output
    assert "no Hello within 3 s of connecting" in output
