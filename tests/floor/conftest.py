"""Fixtures of the floor store tests: one real PostgreSQL cluster for the session (made by
``etg floor up``'s code in a temporary folder), a fresh migrated database per test, and a
table server's keys registered with it.

The tests need PostgreSQL's programs (Debian's ``postgresql`` package). Without them they
are skipped, unless ``ETG_REQUIRE_POSTGRES=1`` (set by ``.ci/run``, which installs the
package): then they fail, so that CI never passes by skipping them.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from floor_helpers import StoreUrls, require_postgres

from game_server.floor.cluster import (
    LocalFloor,
    create_store,
    drop_store,
    floor_down,
    floor_up,
)
from game_server.keys import KeyFiles, init_keys, key_id, load_public_key


@pytest.fixture(scope="session")
def pg_floor() -> Iterator[LocalFloor]:
    """A local floor cluster for the whole session (stopped and removed at the end)."""
    require_postgres()
    base = Path(tempfile.mkdtemp(prefix="etg-floor-test-"))
    base.chmod(0o755)  # the cluster's account (postgres, when root runs the tests) reaches it
    try:
        floor, _ = floor_up(base / "floor")
        yield floor
    finally:
        if (base / "floor" / "floor.json").exists():
            floor_down(base / "floor")
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def store(pg_floor: LocalFloor) -> Iterator[StoreUrls]:
    """A fresh, migrated store database of the session's cluster, for one test."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    create_store(pg_floor, name)
    yield StoreUrls.of(pg_floor, name)
    drop_store(pg_floor, name)


@pytest.fixture
def certs(tmp_path: Path) -> KeyFiles:
    """A server's keys (log-signing and shoe-sealing) in ``tmp_path/certs``."""
    return init_keys(tmp_path / "certs")


@pytest.fixture
def registered(store: StoreUrls, certs: KeyFiles) -> str:
    """The server BJ-01 registered with the store (its log-signing key and its own shipping
    role: ``store.shipper``); its key id."""
    public = load_public_key(certs.public_key)
    store.register(public, "BJ-01")
    return key_id(public)
