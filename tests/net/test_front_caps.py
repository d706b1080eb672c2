"""The front of ``etg serve --workers`` holds its caps before the ClientHello per address
(:class:`~game_server.net.workers.Front`, on a real listening socket on loopback and a fake
clock; its workers are not started): an address over its cap is closed at accept, and its
refusals are logged once a minute."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any, cast

import pytest
from net_helpers import messages

from game_server.net.floor import NetLimits
from game_server.net.service import listen_first
from game_server.net.workers import Front

#: Two workers: the front holds twice each cap (here 2 from one address, 10 in all).
LIMITS = NetLimits(hello_seconds=600, unauthenticated_connections=5, unauthenticated_per_address=1)


class FakeClock:
    """The front's clock, set by the test."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def front() -> Iterator[tuple[Front, FakeClock]]:
    clock = FakeClock()
    listener = listen_first("127.0.0.1", 0)
    built = Front(
        listener,
        spec=cast(Any, None),  # only starting workers needs it
        shares=(("BJ-01-1",), ("BJ-01-2",)),
        routes={},
        limits=LIMITS,
        describe="BJ-01-1, BJ-01-2",
        clock=clock,
    )
    yield built, clock
    built._stop_all()


def connect(front: Front, source: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect(front.listener.getsockname())
    front._turn()  # accepts it
    return sock


def closed(sock: socket.socket) -> bool:
    """Whether the front closed ``sock`` (it is never sent a byte)."""
    sock.settimeout(0.2)
    try:
        return sock.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


def test_the_front_closes_an_address_over_its_cap_at_accept_and_logs_once_a_minute(
    front: tuple[Front, FakeClock], logged: list[dict[str, Any]]
) -> None:
    """Of 12 silent connections from 127.0.0.2, the front holds 2 (1 per worker) and
    closes the rest as it accepts them, while one from 127.0.0.1 is held; the refusals of
    127.0.0.2 are one line at once and one line a minute later with the count."""
    server, clock = front
    attacker = [connect(server, "127.0.0.2") for _ in range(12)]
    operator = connect(server, "127.0.0.1")
    assert [closed(sock) for sock in attacker] == [False] * 2 + [True] * 10
    assert not closed(operator)
    lines = [t for t in messages(logged) if "127.0.0.2" in t]
    assert len(lines) == 1
    assert lines[0].startswith("refusing a connection from 127.0.0.2:")
    assert lines[0].endswith(
        "127.0.0.2 already holds 2 connections that have not sent their ClientHello, the "
        "most [floor.limits] unauthenticated_per_address allows (2 workers together); "
        "further refusals of 127.0.0.2 are counted and logged once a minute"
    )
    clock.now = 61.0
    server._turn()
    lines = [t for t in messages(logged) if "127.0.0.2" in t]
    assert lines[1:] == [
        "refused 9 more connection(s) from 127.0.0.2 in the last 61 s (the last because "
        "127.0.0.2 already holds 2 connections that have not sent their ClientHello, the "
        "most [floor.limits] unauthenticated_per_address allows (2 workers together))"
    ]
    for sock in [*attacker, operator]:
        sock.close()
