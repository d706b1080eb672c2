"""Fixtures of the event log tests: keys in a temporary directory, a fake clock, a log
opener (helpers are in ``eventlog_helpers``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from eventlog_helpers import FakeClock

from game_server.eventlog import EventLog
from game_server.keys import KeyFiles, init_keys, load_public_key, load_signing_key


@pytest.fixture
def keys_dir(tmp_path: Path) -> Path:
    return tmp_path / "certs"


@pytest.fixture
def key_files(keys_dir: Path) -> KeyFiles:
    return init_keys(keys_dir)


@pytest.fixture
def signing_key(key_files: KeyFiles) -> Ed25519PrivateKey:
    return load_signing_key(key_files.signing_key)


@pytest.fixture
def public_key(key_files: KeyFiles) -> Ed25519PublicKey:
    return load_public_key(key_files.public_key)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "table-1.db"


@pytest.fixture
def open_log(
    db_path: Path, signing_key: Ed25519PrivateKey, clock: FakeClock
) -> Iterator[Callable[..., EventLog]]:
    """Opens the log at ``db_path`` (again and again); closes what is still open at the end."""
    opened: list[EventLog] = []

    def opener(path: Path | None = None, **kwargs: Any) -> EventLog:
        log = EventLog.create_or_open(path or db_path, signing_key, clock, **kwargs)
        opened.append(log)
        return log

    yield opener
    for log in opened:
        log.close(checkpoint=False)
