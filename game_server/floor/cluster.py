"""A floor on one machine: a local PostgreSQL cluster in a folder, for development and tests.

Entry points: :func:`floor_up` (``etg floor up DIR``) and :func:`floor_down` (``etg floor down
DIR``); :meth:`LocalFloor.load` reads what ``up`` recorded. A production floor runs its own
PostgreSQL (replicated, backed up): give the servers its URL and the floor admin runs
``etg floor migrate``.

``floor_up`` makes, the first time, with ``initdb`` and ``pg_ctl`` from Debian's
``postgresql`` package (found on ``PATH`` or under ``/usr/lib/postgresql/<version>/bin``)::

    DIR/data/            the cluster (UTF-8, C locale, SCRAM passwords, TCP on 127.0.0.1
                         only, no Unix socket)
    DIR/postgresql.log   the server's log
    DIR/floor.json       the port, the cluster's OS user and the roles' random passwords
                         (mode 0600)

then starts the cluster (also on later calls, when it is not running), creates the three
roles (:func:`game_server.floor.schema.create_roles`) and the database ``etg_floor``, and
applies the pending migrations as the floor admin. Everything it does is idempotent.

PostgreSQL refuses to run as root. Run by root (as CI is), the cluster is made and run as an
unprivileged account through ``runuser``: ``--user NAME``, or ``postgres`` (which Debian's
package creates); ``DIR`` is then owned by that account, and it must be able to reach
``DIR`` (every folder above it must let it through).
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from psycopg import sql

from game_server.floor.errors import ClusterError
from game_server.floor.names import ROLES
from game_server.floor.schema import create_database as _create_database
from game_server.floor.schema import create_roles, migrate
from game_server.floor.store import FloorStore, server_url

#: The database of the floor store.
DATABASE: Final = "etg_floor"
#: The cluster's bootstrap superuser (used only to create roles and databases).
SUPERUSER: Final = "etg_superuser"
#: What ``floor_up`` records in ``DIR``.
FLOOR_FILE: Final = "floor.json"
DATA_DIR: Final = "data"
SERVER_LOG: Final = "postgresql.log"
#: The account a root caller runs the cluster as, by default (Debian's package creates it).
DEFAULT_USER: Final = "postgres"
#: Where Debian installs each PostgreSQL version's programs.
DEBIAN_BIN: Final = Path("/usr/lib/postgresql")
#: Seconds ``pg_ctl`` waits for the server to start or stop.
PG_CTL_WAIT: Final = 60
#: The marker of the settings ``floor_up`` appends to ``postgresql.conf``.
_MARK: Final = "# etg floor"


def find_binary(name: str) -> Path:
    """The PostgreSQL program ``name`` (``initdb``, ``pg_ctl``, ``postgres``).

    Raises:
        ClusterError: it is not installed (Debian: ``apt-get install postgresql``).
    """
    found = shutil.which(name)
    if found:
        return Path(found)
    versions = []
    with contextlib.suppress(OSError):
        for folder in DEBIAN_BIN.iterdir():
            if folder.name.isdigit() and (folder / "bin" / name).is_file():
                versions.append((int(folder.name), folder / "bin" / name))
    if versions:
        return max(versions)[1]
    raise ClusterError(
        f"PostgreSQL's {name} is not installed (looked on PATH and in {DEBIAN_BIN}/*/bin); "
        "install Debian's postgresql package: apt-get install postgresql (or make packages)"
    )


def postgres_installed() -> bool:
    """Whether ``initdb``, ``pg_ctl`` and ``postgres`` are all installed."""
    try:
        for name in ("initdb", "pg_ctl", "postgres"):
            find_binary(name)
    except ClusterError:
        return False
    return True


@dataclass(frozen=True)
class LocalFloor:
    """A local floor cluster, as ``floor_up`` recorded it in ``DIR/floor.json``.

    Attributes:
        directory: ``DIR``.
        port: The TCP port on 127.0.0.1.
        user: The OS account the cluster runs as (None: whoever runs ``etg floor``).
        passwords: Role name -> password (the superuser and the three roles).
    """

    directory: Path
    port: int
    user: str | None
    passwords: Mapping[str, str]

    @property
    def data(self) -> Path:
        """The cluster's data folder."""
        return self.directory / DATA_DIR

    def url(self, role: str = "admin", database: str = DATABASE) -> str:
        """The URL of ``database`` for a role by its short name (``admin``,
        ``investigator``, ``superuser``), password included.

        Raises:
            ClusterError: an unknown role name.
        """
        names = {**ROLES, "superuser": SUPERUSER}
        if role not in names:
            raise ClusterError(f"no role {role!r}; one of {', '.join(sorted(names))}")
        name = names[role]
        secret = quote(self.passwords[name], safe="")
        return f"postgresql://{name}:{secret}@127.0.0.1:{self.port}/{database}"

    def server_url(self, server: str, database: str = DATABASE) -> str:
        """The shipping URL of a server registered on this floor (``register_server``).

        Raises:
            ClusterError: no server of that name was registered here.
        """
        found = self.passwords.get(f"server:{server}")
        if found is None:
            raise ClusterError(
                f"no server {server!r} is registered on the floor in {self.directory}; "
                f"register it with etg floor register --floor {self.directory} --server "
                f"{server} --key CERTS"
            )
        role, _, password = found.partition(" ")
        return server_url(self.url("admin", database), role, password)

    @classmethod
    def load(cls, directory: str | os.PathLike[str]) -> LocalFloor:
        """What ``floor_up`` recorded in ``directory``.

        Raises:
            ClusterError: there is no floor there (or its file is damaged).
        """
        folder = Path(directory)
        path = folder / FLOOR_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(folder, int(data["port"]), data["user"], dict(data["passwords"]))
        except FileNotFoundError:
            raise ClusterError(
                f"there is no floor in {folder} (no {FLOOR_FILE}); make one with etg floor up "
                f"{folder}"
            ) from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ClusterError(f"{path} cannot be read ({exc}); it is damaged") from None

    def save(self) -> None:
        """Write ``floor.json`` (mode 0600)."""
        path = self.directory / FLOOR_FILE
        data = {"port": self.port, "user": self.user, "passwords": dict(self.passwords)}
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump(data, file, indent=2, sort_keys=True)
            file.write("\n")


def _cluster_user(user: str | None) -> str | None:
    """The OS account to run PostgreSQL as: None (the caller) unless the caller is root."""
    if os.geteuid() != 0:
        if user is not None and user != pwd.getpwuid(os.geteuid()).pw_name:
            raise ClusterError(f"only root can run the cluster as another user ({user})")
        return None
    name = user or DEFAULT_USER
    try:
        account = pwd.getpwnam(name)
    except KeyError:
        raise ClusterError(
            f"PostgreSQL refuses to run as root and there is no account {name!r} to run it as; "
            "pass --user NAME of an unprivileged account (Debian's postgresql package creates "
            f"{DEFAULT_USER!r})"
        ) from None
    if account.pw_uid == 0:
        raise ClusterError(f"{name} is root; PostgreSQL needs an unprivileged account")
    return name


def _as(user: str | None, command: Sequence[str | os.PathLike[str]]) -> list[str]:
    """``command`` run as ``user`` (through ``runuser``, else ``setpriv``)."""
    argv = [os.fspath(part) for part in command]
    if user is None:
        return argv
    runuser = shutil.which("runuser")
    if runuser:
        return [runuser, "-u", user, "--", *argv]
    setpriv = shutil.which("setpriv")
    if setpriv:
        account = pwd.getpwnam(user)
        return [
            setpriv,
            f"--reuid={account.pw_uid}",
            f"--regid={account.pw_gid}",
            "--init-groups",
            *argv,
        ]
    raise ClusterError("neither runuser nor setpriv is installed to run PostgreSQL as " + user)


def _run(user: str | None, command: Sequence[str | os.PathLike[str]], what: str) -> str:
    result = subprocess.run(
        _as(user, command), capture_output=True, text=True, check=False, timeout=PG_CTL_WAIT + 30
    )
    if result.returncode != 0:
        said = (result.stderr or result.stdout).strip().splitlines()
        raise ClusterError(f"{what} failed: {' '.join(said[-3:]) or f'exit {result.returncode}'}")
    return result.stdout


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _prepare_directory(directory: Path, user: str | None) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    if user is None:
        directory.chmod(0o700)
        return
    account = pwd.getpwnam(user)
    os.chown(directory, account.pw_uid, account.pw_gid)
    directory.chmod(0o700)
    reach = subprocess.run(_as(user, ["test", "-w", str(directory)]), check=False)
    if reach.returncode != 0:
        raise ClusterError(
            f"the account {user} that runs PostgreSQL cannot reach {directory}: a folder above "
            "it is closed to that account (e.g. mode 0700); choose a folder it can reach"
        )


def _initdb(floor: LocalFloor) -> None:
    secret = floor.directory / ".superuser-password"
    fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(floor.passwords[SUPERUSER] + "\n")
    if floor.user is not None:
        account = pwd.getpwnam(floor.user)
        os.chown(secret, account.pw_uid, account.pw_gid)
    try:
        _run(
            floor.user,
            [
                find_binary("initdb"),
                "--pgdata",
                floor.data,
                "--username",
                SUPERUSER,
                "--pwfile",
                secret,
                "--auth",
                "scram-sha-256",
                "--encoding",
                "UTF8",
                "--locale",
                "C",
            ],
            "initdb",
        )
    finally:
        secret.unlink(missing_ok=True)
    with (floor.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
        conf.write(
            f"\n{_MARK}\n"
            "listen_addresses = '127.0.0.1'\n"
            f"port = {floor.port}\n"
            "unix_socket_directories = ''\n"
            "log_line_prefix = '%m [%p] %q%u@%d '\n"
        )


def running(floor: LocalFloor) -> bool:
    """Whether the cluster's server runs (``pg_ctl status``)."""
    result = subprocess.run(
        _as(floor.user, [find_binary("pg_ctl"), "status", "--pgdata", floor.data]),
        capture_output=True,
        check=False,
    )
    return result.returncode == 0


def _start(floor: LocalFloor) -> None:
    if running(floor):
        return
    try:
        _run(
            floor.user,
            [
                find_binary("pg_ctl"),
                "start",
                "--pgdata",
                floor.data,
                "--log",
                floor.directory / SERVER_LOG,
                "--wait",
                "--timeout",
                str(PG_CTL_WAIT),
            ],
            "starting PostgreSQL",
        )
    except ClusterError as exc:
        raise ClusterError(f"{exc}; see {floor.directory / SERVER_LOG}") from None


def connect(floor: LocalFloor, role: str, database: str = DATABASE) -> psycopg.Connection[Any]:
    """An autocommit connection to ``database`` as ``role`` (a short name, see
    :meth:`LocalFloor.url`).

    Raises:
        ClusterError: the cluster does not answer.
    """
    try:
        return psycopg.connect(floor.url(role, database), autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise ClusterError(
            f"the floor cluster in {floor.directory} does not answer: {exc}"
        ) from None


def create_store(floor: LocalFloor, database: str = DATABASE) -> list[str]:
    """Create ``database`` (owned by the role nobody logs in as) if missing, and migrate it
    as the cluster's superuser.

    Returns:
        The migrations applied now.
    """
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", database):
        raise ClusterError(f"{database!r} is not a database name (lowercase letters, digits, _)")
    with connect(floor, "superuser", "postgres") as conn:
        _create_database(conn, database)
    with connect(floor, "superuser", database) as conn:
        return migrate(conn)


def register_server(
    floor: LocalFloor, public_key: Ed25519PublicKey, server: str, database: str = DATABASE
) -> str:
    """Register ``server`` with the local floor's store (as its admin), keep its shipping
    role's password in ``floor.json`` and return its shipping URL."""
    password = secrets.token_urlsafe(24)
    admin = FloorStore.connect(floor.url("admin", database))
    try:
        role = admin.register_server(public_key, server, password)
    finally:
        admin.close()
    passwords = {**floor.passwords, f"server:{server}": f"{role} {password}"}
    object.__setattr__(floor, "passwords", passwords)
    floor.save()
    return server_url(floor.url("admin", database), role, password)


def scratch_store(
    floor: LocalFloor, public_key: Ed25519PublicKey, server: str, prefix: str
) -> tuple[str, str]:
    """A new store database ``<prefix>_<random>`` on the local floor with ``public_key``
    registered for ``server`` (what ``etg loadtest --floor`` and ``etg bench floor`` ship
    to). Returns its name and the server's shipping URL; :func:`drop_store` removes it."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    create_store(floor, name)
    password = secrets.token_urlsafe(24)
    admin = FloorStore.connect(floor.url("admin", name))
    try:
        role = admin.register_server(public_key, server, password)
    finally:
        admin.close()
    return name, server_url(floor.url("admin", name), role, password)


def drop_store(floor: LocalFloor, name: str) -> None:
    """Remove the store database ``name`` (its sessions are ended first)."""
    with connect(floor, "superuser", "postgres") as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def floor_up(
    directory: str | os.PathLike[str], *, port: int | None = None, user: str | None = None
) -> tuple[LocalFloor, list[str]]:
    """Make (the first time) and start the local floor cluster in ``directory``, with its
    roles, its database and its schema up to date.

    Args:
        directory: ``DIR``; made if missing.
        port: The TCP port, the first time (default: a free one); later the recorded one.
        user: The OS account to run PostgreSQL as when called by root (default
            ``postgres``).

    Returns:
        The floor, and the migrations applied now.

    Raises:
        ClusterError: PostgreSQL is not installed, cannot run as the user, or did not start
            (the message says why and where its log is).
    """
    folder = Path(directory).absolute()
    if (folder / FLOOR_FILE).exists():
        floor = LocalFloor.load(folder)
        if port is not None and port != floor.port:
            raise ClusterError(
                f"the floor in {folder} listens on port {floor.port} (chosen when it was made)"
            )
    else:
        if (folder / DATA_DIR).exists():
            raise ClusterError(
                f"{folder / DATA_DIR} exists but {FLOOR_FILE} does not: not a floor made by "
                "etg floor up; choose an empty folder"
            )
        account = _cluster_user(user)
        _prepare_directory(folder, account)
        passwords = {name: secrets.token_urlsafe(24) for name in (SUPERUSER, *ROLES.values())}
        floor = LocalFloor(folder, port or _free_port(), account, passwords)
        _initdb(floor)
        floor.save()
    _start(floor)
    with connect(floor, "superuser", "postgres") as conn:
        create_roles(conn, floor.passwords)
    return floor, create_store(floor)


def floor_down(directory: str | os.PathLike[str]) -> bool:
    """Stop the local floor cluster in ``directory`` (a fast shutdown: sessions are ended,
    committed work is kept).

    Returns:
        Whether it was running.

    Raises:
        ClusterError: there is no floor there, or it did not stop.
    """
    floor = LocalFloor.load(directory)
    if not running(floor):
        return False
    _run(
        floor.user,
        [
            find_binary("pg_ctl"),
            "stop",
            "--pgdata",
            floor.data,
            "--mode",
            "fast",
            "--wait",
            "--timeout",
            str(PG_CTL_WAIT),
        ],
        "stopping PostgreSQL",
    )
    return True
