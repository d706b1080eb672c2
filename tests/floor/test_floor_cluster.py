"""``etg floor``: a local cluster made, started, stopped and started again with its data; the
URLs it prints; registering keys; and the refusals (no PostgreSQL, root without an account
to run it as, a folder that account cannot reach, a folder that is not a floor)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from floor_helpers import REQUIRE, require_postgres

from game_server.floor import cluster
from game_server.floor.cluster import LocalFloor, find_binary, floor_down
from game_server.floor.errors import ClusterError
from game_server.floor.store import FloorStore
from game_server.keys import init_keys

ROOT = Path(__file__).resolve().parents[2]


def etg(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools", *args], cwd=ROOT, capture_output=True, text=True
    )


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder the cluster's account can reach (the system's temporary folder)."""
    require_postgres()
    base = Path(tempfile.mkdtemp(prefix="etg-floor-cli-"))
    base.chmod(0o755)
    yield base / "floor"
    if (base / "floor" / "floor.json").exists():
        floor_down(base / "floor")
    shutil.rmtree(base, ignore_errors=True)


def test_etg_floor_up_down_and_up_again_keeps_the_store(folder: Path, tmp_path: Path) -> None:
    """``up`` makes the cluster, its roles and schema and prints each login role's URL; a
    server registered stays registered across ``down`` and ``up`` and ships with the URL
    ``register`` printed; ``up`` twice and ``down`` twice are harmless."""
    made = etg("floor", "up", str(folder))
    assert made.returncode == 0, made.stderr
    assert (
        "schema version 5; migrations applied now: 0001-store, 0002-guards, 0003-roles, "
        "0004-meters, 0005-trust" in made.stdout
    )
    floor = LocalFloor.load(folder)
    for role in ("admin", "investigator"):
        assert floor.url(role) in made.stdout
    assert (folder / "floor.json").stat().st_mode & 0o777 == 0o600
    url = etg("floor", "url", str(folder), "--role", "investigator")
    assert url.stdout.strip() == floor.url("investigator")
    certs = init_keys(tmp_path / "certs")
    registered = etg(
        "floor", "register", "--store", floor.url("admin"), "--key", str(tmp_path / "certs"),
        "--server", "BJ-01",
    )  # fmt: skip
    assert registered.returncode == 0, registered.stderr
    assert registered.stderr.startswith("key ") and "BJ-01" in registered.stderr
    shipping = registered.stdout.strip()
    assert shipping.startswith("postgresql://etg_ship_bj_01:")
    FloorStore.connect(shipping).close()  # it logs in as the server's own role
    again = etg("floor", "up", str(folder))
    assert again.returncode == 0 and "migrations applied now" not in again.stdout
    assert etg("floor", "down", str(folder)).stdout.strip().endswith("stopped")
    assert etg("floor", "down", str(folder)).stdout.strip().endswith("was not running")
    assert etg("floor", "up", str(folder)).returncode == 0
    elsewhere = etg(
        "floor", "register", "--store", floor.url("admin"), "--key", str(certs.public_key),
        "--server", "BJ-02",
    )  # fmt: skip
    assert elsewhere.returncode == 2
    assert "is already registered, to the server BJ-01" in elsewhere.stderr
    shipper = etg(
        "floor", "register", "--store", shipping, "--key", str(certs.public_key),
        "--server", "BJ-03",
    )  # fmt: skip
    assert shipper.returncode == 2 and "permission denied" in shipper.stderr
    not_admin = etg("floor", "migrate", "--store", floor.url("admin"))
    assert not_admin.returncode == 2
    assert "applied by the database's superuser" in not_admin.stderr
    migrated = etg("floor", "migrate", "--store", floor.url("superuser", "etg_floor"))
    assert "migrations applied now: none (up to date)" in migrated.stdout
    logs = etg("floor", "logs", "--store", floor.url("investigator"))
    assert logs.stdout.strip() == "the store holds no log yet"
    moved = etg("floor", "up", str(folder), "--port", str(floor.port + 1))
    assert moved.returncode == 2 and f"listens on port {floor.port}" in moved.stderr


def test_a_folder_holding_something_else_is_refused(folder: Path) -> None:
    (folder / "data").mkdir(parents=True)
    refused = etg("floor", "up", str(folder))
    assert refused.returncode == 2
    assert "not a floor made by etg floor up; choose an empty folder" in refused.stderr
    assert etg("floor", "down", str(folder)).stderr.startswith("etg: error: there is no floor")


def test_a_store_that_cannot_be_reached_is_one_clear_line() -> None:
    said = etg("floor", "logs", "--store", "postgresql://etg_investigator@127.0.0.1:1/etg_floor")
    assert said.returncode == 2
    assert said.stderr.startswith(
        "etg: error: cannot connect to the floor store "
        "postgresql://etg_investigator@127.0.0.1:1/etg_floor: connection failed"
    )


def test_without_postgresql_the_message_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(cluster, "DEBIAN_BIN", tmp_path / "none")
    with pytest.raises(ClusterError, match=r"initdb is not installed.*apt-get install postgresql"):
        find_binary("initdb")
    assert cluster.postgres_installed() is False


def test_the_tests_fail_rather_than_skip_when_ci_requires_postgresql(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ETG_REQUIRE_POSTGRES=1`` (set by .ci/run) turns the skip into a failure."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(cluster, "DEBIAN_BIN", tmp_path / "none")
    monkeypatch.setattr("floor_helpers.postgres_installed", cluster.postgres_installed)
    monkeypatch.delenv(REQUIRE, raising=False)
    with pytest.raises(pytest.skip.Exception, match="apt-get install postgresql"):
        require_postgres()
    monkeypatch.setenv(REQUIRE, "1")
    with pytest.raises(pytest.fail.Exception, match="ETG_REQUIRE_POSTGRES=1 says"):
        require_postgres()


def test_root_needs_an_unprivileged_account_to_run_postgresql(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PostgreSQL refuses root: as root, an account that does not exist or is root itself
    is refused with what to pass instead."""
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(ClusterError, match=r"no account 'no-such-account'.*--user NAME"):
        cluster._cluster_user("no-such-account")
    with pytest.raises(ClusterError, match="root is root; PostgreSQL needs an unprivileged"):
        cluster._cluster_user("root")


@pytest.mark.skipif(os.geteuid() != 0, reason="only root runs the cluster as another account")
def test_as_root_a_folder_the_account_cannot_reach_is_refused(tmp_path: Path) -> None:
    """(CI runs as root.) Under a folder closed to the cluster's account (mode 0700, as
    pytest's own temporary folders are), ``up`` says so before initdb."""
    require_postgres()
    try:
        pwd.getpwnam(cluster.DEFAULT_USER)
    except KeyError:
        pytest.fail(f"Debian's postgresql package creates the account {cluster.DEFAULT_USER}")
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    refused = etg("floor", "up", str(closed / "floor"))
    assert refused.returncode == 2
    assert "the account postgres that runs PostgreSQL cannot reach" in refused.stderr
    assert not (closed / "floor" / "data").exists()


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("postgresql://u:secret@h:5432/db with spaces", "is not a PostgreSQL URL"),
        ("postgresql://u@h:5432", "names no database"),
        ("postgresql://u@h:port/db", "has the port 'port'"),
    ],
)
def test_a_store_url_that_cannot_be_used_stops_the_server_before_its_log(
    tmp_path: Path, url: str, said: str
) -> None:
    """A typo in --store is one line and exit 2, the log is not created, and no password
    is echoed (a store that does not answer, by contrast, is only a warning)."""
    init_keys(tmp_path / "certs")
    result = subprocess.run(
        [sys.executable, "-m", "game_server", "--db", str(tmp_path / "t.db"), "--certs",
         str(tmp_path / "certs"), "--port", "0", "--store", url],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert said in result.stderr and "secret" not in result.stderr + result.stdout
    assert not (tmp_path / "t.db").exists()
