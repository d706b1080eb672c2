"""The pure parts of ``etg serve --workers`` (:mod:`game_server.net.workers`): the server
name read from a real ClientHello, the placement of tables on workers (tables sharing a
local meter together), each worker's floor and routes, and the refusal of a start that
would move a table away from the log holding its credits."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from linked_tables import BLAZING, linked_section
from net_helpers import Pki

from game_server.config import TableConfig, example_config_path, load_config
from game_server.net.floor import FloorConfig
from game_server.net.pki import Role
from game_server.net.service import default_floor, table_configs
from game_server.net.tls import client_tls_options
from game_server.net.workers import (
    Incomplete,
    WorkerPlace,
    WorkersError,
    check_logs,
    meter_groups,
    placement,
    refuse_worker_logs,
    routes,
    server_name,
    worker_floor,
    worker_path,
)


def client_hello(options: Any) -> bytes:
    """The first flight a client with ``options`` sends over Twisted's TLS (a ClientHello)."""
    from twisted.internet.protocol import Factory, Protocol
    from twisted.internet.testing import StringTransport
    from twisted.protocols.tls import TLSMemoryBIOFactory

    wrap: Any = TLSMemoryBIOFactory
    protocol = wrap(options, True, Factory.forProtocol(Protocol)).buildProtocol(None)
    transport = StringTransport()
    protocol.makeConnection(transport)
    return bytes(transport.value())


def test_a_terminal_names_its_own_id_in_its_client_hello(pki: Pki) -> None:
    """client_tls_options sends the certificate's id as the TLS server name, and the front
    reads it from the ClientHello's bytes."""
    files = pki.terminal("T2")
    hello = client_hello(client_tls_options(pki.ca, files.certificate, files.key))
    assert server_name(hello) == "T2"


def test_an_operator_tool_names_the_route_it_is_given(pki: Pki) -> None:
    """An operator tool names the table it means (route), not its own id."""
    files = pki.files.operator
    options = client_tls_options(pki.ca, files.certificate, files.key, route="BJ-01-2")
    assert server_name(client_hello(options)) == "BJ-01-2"


def test_a_client_hello_cut_short_asks_for_more_bytes(pki: Pki) -> None:
    """Every prefix of a ClientHello is Incomplete; the whole of it gives the name."""
    files = pki.terminal("T1")
    hello = client_hello(client_tls_options(pki.ca, files.certificate, files.key))
    for cut in (0, 1, 4, 5, 40, len(hello) - 1):
        with pytest.raises(Incomplete):
            server_name(hello[:cut])
    assert server_name(hello + b"trailing bytes of the next record") == "T1"


def test_bytes_that_are_not_a_client_hello_name_no_server() -> None:
    """Plain text, a TLS alert and a garbled ClientHello name no server (the first worker
    gets such a connection, and its handshake refuses it)."""
    assert server_name(b"GET / HTTP/1.1\r\n\r\n") is None
    assert server_name(bytes([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28])) is None
    garbled = bytes([0x16, 0x03, 0x01, 0x00, 0x08, 0x01, 0x00, 0x00, 0x04, 0x03, 0x03, 0x00, 0x00])
    assert server_name(garbled) is None


def example_tables(count: int) -> list[TableConfig]:
    return table_configs(load_config(example_config_path()), count)


def test_tables_without_shared_meters_are_spread_evenly() -> None:
    """Four tables of the example (no meter) over two workers: two each, alternating, the
    same placement every time."""
    configs = example_tables(4)
    assert meter_groups(configs) == [[c.table_id] for c in configs]
    shares = placement(configs, 2)
    assert shares == (("BJ-01-1", "BJ-01-3"), ("BJ-01-2", "BJ-01-4"))
    assert placement(configs, 2) == shares


def shared_meter_tables(
    tmp_path: Path, count: int, *, floor_wide: bool = False
) -> list[TableConfig]:
    """``count`` copies of the example with a Blazing 7's wager feeding one meter id (a
    server meter; ``floor_wide``: linked across the floor by ``[linked_meters]``)."""
    path = tmp_path / "shared-meter.toml"
    text = example_config_path().read_text() + BLAZING
    path.write_text(text + (linked_section() if floor_wide else ""))
    config = replace(load_config(path), table_id="PRG")
    return table_configs(config, count)


def test_tables_sharing_a_local_meter_stay_in_one_worker(tmp_path: Path) -> None:
    """Two tables feeding the same server meter form one group, placed whole on one worker;
    two tables without meters go to the other."""
    configs = [*example_tables(2), *shared_meter_tables(tmp_path, 2)]
    assert ["PRG-1", "PRG-2"] in meter_groups(configs)
    shares = placement(configs, 2)
    assert ("PRG-1", "PRG-2") in shares
    assert {table for share in shares for table in share} == {c.table_id for c in configs}


def test_a_meter_linked_across_the_floor_does_not_bind_its_tables(tmp_path: Path) -> None:
    """A meter linked across the floor lives in the floor store: its tables may be apart."""
    configs = shared_meter_tables(tmp_path, 2, floor_wide=True)
    assert meter_groups(configs) == [["PRG-1"], ["PRG-2"]]


def test_more_workers_than_groups_is_refused_with_a_sentence(tmp_path: Path) -> None:
    """Three tables that share a meter cannot be split over two workers; one table cannot."""
    with pytest.raises(WorkersError, match="form 1 group"):
        placement(shared_meter_tables(tmp_path, 3), 2)
    with pytest.raises(WorkersError, match="--workers 1 or fewer"):
        placement(example_tables(1), 2)


def floor_of(tables: int) -> FloorConfig:
    return default_floor(load_config(example_config_path()), tables=tables)


def test_a_worker_sees_the_terminals_of_its_tables_and_routes_cover_the_floor() -> None:
    """Worker 2 of two tables seats T8..T14 only; every table and terminal routes to the
    worker serving it."""
    floor = floor_of(2)
    shares = placement(example_tables(2), 2)
    second = worker_floor(floor, shares[1])
    assert set(second.terminals) == {f"T{i}" for i in range(8, 15)}
    assert set(second.tables.values()) == {"BJ-01-2"}
    found = routes(floor, shares)
    assert found["BJ-01-1"] == found["T7"] == 0
    assert found["BJ-01-2"] == found["T8"] == 1


def test_a_worker_refuses_a_misrouted_terminal_and_an_operator_without_a_route() -> None:
    """A terminal of another worker's table is told where its table is served; an operator
    is served for a route naming one of the worker's tables or terminals, refused otherwise."""
    place = WorkerPlace(0, placement(example_tables(2), 2), floor_of(2))
    assert place.refusal(Role.TERMINAL, "T1", "T1") is None
    assert place.refusal(Role.TERMINAL, "T99", "T1") is None  # seated nowhere: Hello says so
    why = place.refusal(Role.TERMINAL, "T8", "T1")
    assert why is not None and "table BJ-01-2, served by worker 2" in why
    assert place.refusal(Role.OPERATOR, "operator", "BJ-01-1") is None
    assert place.refusal(Role.OPERATOR, "operator", "T3") is None
    why = place.refusal(Role.OPERATOR, "operator", "operator")
    assert why is not None and "worker 2 serves BJ-01-2" in why


def test_a_start_that_would_move_a_table_off_its_log_is_refused(tmp_path: Path) -> None:
    """The one-process log refuses workers, workers' logs refuse one process or another
    count; a fresh folder is accepted."""
    db = tmp_path / "table.db"
    shares = placement(example_tables(2), 2)
    check_logs(db, shares)  # nothing written yet
    refuse_worker_logs(db)
    worker_path(db, 0).write_bytes(b"")
    with pytest.raises(WorkersError, match="--workers 1"):
        refuse_worker_logs(db)
    worker_path(db, 2).write_bytes(b"")
    with pytest.raises(WorkersError, match="more workers than 2"):
        check_logs(db, shares)
    worker_path(db, 2).unlink()
    db.write_bytes(b"")
    with pytest.raises(WorkersError, match="one-process server"):
        check_logs(db, shares)
    assert worker_path(db, 1).name == "table.worker-2.db"
