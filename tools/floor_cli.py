"""``etg floor``: the floor store (PostgreSQL) the table servers ship their logs to.

Registered on the ``etg`` group by :mod:`tools.cli`; the work is in :mod:`game_server.floor`.

- ``etg floor up DIR [--port P] [--user NAME]``: make and start a local floor cluster in DIR
  with its roles and schema, and print the URL of each role;
- ``etg floor down DIR``: stop it;
- ``etg floor url DIR [--role R]``: print one role's URL (for ``--store "$(...)"``);
- ``etg floor register --store ADMIN_URL --key PUB --server NAME``: register a server's
  log-signing public key (a log is taken only if its checkpoints' key is registered);
- ``etg floor migrate --store ADMIN_URL``: apply the pending schema migrations to a store;
- ``etg floor logs --store URL [--json]``: every log the store holds, and how far.

Product errors are printed as ``etg: error: ...`` with exit status 2 (by the ``etg`` group).
"""

from __future__ import annotations

import json
from pathlib import Path

import click

#: The roles of the store (game_server.floor.schema.ROLES) and what each is for.
_ROLE_USE = {
    "shipper": "etg serve --store",
    "investigator": "etg verify --store, etg floor logs",
    "admin": "etg floor register, etg floor migrate",
}


@click.group("floor")
def floor() -> None:
    """The floor store: PostgreSQL as the floor's system of record (README "A casino
    floor")."""


@floor.command("up")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option("--port", type=click.IntRange(1, 65535), default=None, help="TCP port (first time).")
@click.option(
    "--user",
    default=None,
    help="When run as root: the unprivileged account PostgreSQL runs as (default postgres).",
)
def up(directory: Path, port: int | None, user: str | None) -> None:
    """Make (the first time) and start a local floor cluster in DIRECTORY: initdb, the roles,
    the database etg_floor and its schema; print each role's URL."""
    from game_server.floor.cluster import DATABASE, floor_up
    from game_server.floor.schema import SCHEMA_VERSION

    made, applied = floor_up(directory, port=port, user=user)
    done = f"; migrations applied now: {', '.join(applied)}" if applied else ""
    click.echo(
        f"floor store up in {made.directory}: PostgreSQL on 127.0.0.1:{made.port}, database "
        f"{DATABASE}, schema version {SCHEMA_VERSION}{done}"
    )
    for role in _ROLE_USE:
        click.echo(f"  {role:<12}  {made.url(role)}  ({_ROLE_USE[role]})")
    click.echo(f"stop it with: etg floor down {directory}")


@floor.command("down")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
def down(directory: Path) -> None:
    """Stop the local floor cluster in DIRECTORY (committed work is kept)."""
    from game_server.floor.cluster import floor_down

    if floor_down(directory):
        click.echo(f"floor store in {directory} stopped")
    else:
        click.echo(f"floor store in {directory} was not running")


@floor.command("url")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--role",
    type=click.Choice(sorted(_ROLE_USE)),
    default="shipper",
    show_default=True,
    help="Whose URL: the shipping servers', the investigators' or the floor admin's.",
)
def url(directory: Path, role: str) -> None:
    """Print the URL of ROLE on the local floor in DIRECTORY."""
    from game_server.floor.cluster import LocalFloor

    click.echo(LocalFloor.load(directory).url(role))


_STORE = click.option(
    "--store", "store_url", required=True, metavar="URL", help="The floor store's URL."
)


@floor.command("register")
@_STORE
@click.option(
    "--key",
    type=click.Path(path_type=Path),
    required=True,
    help="The server's log-signing public key: the .pub file, or its certs directory.",
)
@click.option("--server", required=True, help="The server's name on the floor, e.g. bank-03.")
def register(store_url: str, key: Path, server: str) -> None:
    """Register a table server's log-signing public key with the store (the floor admin)."""
    from game_server.floor.store import FloorStore
    from game_server.keys import load_public_key

    public = load_public_key(key)
    store = FloorStore.connect(store_url)
    try:
        ident = store.register_key(public, server)
    finally:
        store.close()
    click.echo(f"key {ident} registered for the server {server.strip()}")


@floor.command("migrate")
@_STORE
def migrate_command(store_url: str) -> None:
    """Apply the pending schema migrations to the store (the floor admin's URL; the roles
    etg_floor_admin, etg_shipper and etg_investigator must exist)."""
    import psycopg

    from game_server.floor.errors import StoreUnavailable
    from game_server.floor.schema import SCHEMA_VERSION, migrate
    from game_server.floor.store import redacted

    try:
        with psycopg.connect(store_url, autocommit=True, connect_timeout=10) as conn:
            applied = migrate(conn)
    except psycopg.Error as exc:
        raise StoreUnavailable(
            f"cannot migrate the floor store {redacted(store_url)}: {exc}"
        ) from None
    said = ", ".join(applied) if applied else "none (up to date)"
    click.echo(f"schema version {SCHEMA_VERSION}; migrations applied now: {said}")


@floor.command("logs")
@_STORE
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def logs(store_url: str, as_json: bool) -> None:
    """Every log the store holds: its server and key, its last event and checkpoint (an
    investigator's or the admin's URL)."""
    from game_server.floor.store import FloorStore

    store = FloorStore.connect(store_url)
    try:
        found = store.logs()
    finally:
        store.close()
    if as_json:
        click.echo(json.dumps(found, indent=2))
        return
    if not found:
        click.echo("the store holds no log yet")
        return
    for entry in found:
        click.echo(
            f"{entry['server']:<12} {entry['log_id']}  key {entry['key_id']}  "
            f"{entry['log_kind'] or '?':<10} seq {entry['last_seq']:>9,}  checkpoint "
            f"#{entry['last_checkpoint']} (seq {entry['last_checkpoint_seq']:,})  last event "
            f"{entry['last_event_time'] or '-'}"
        )
