"""``etg console`` (the operator's console in a browser) and ``etg operator`` (its actions
for scripts).

``etg console --certs DIR --servers FILE`` serves the console (:mod:`game_server.console`);
``etg console user add|list|remove`` keeps its accounts; ``etg console audit FILE --key PUB``
proves its audit log with the console's audit public key (:func:`audit_key_of`). The
console draws recall pictures with the terminal's renderers, which only ``tools`` may
import: :func:`draw_picture` is handed to it.

``etg operator --certs DIR --server HOST:PORT ...`` does what the console's attendant and
supervisor do, over the same operator AMP connection, one command per call: ``credit``,
``cash-out``, ``open``, ``close``, ``out-of-service``, ``revoke``, ``reinstate`` and
``meters``. ``--person`` and ``--role`` name who runs the script (logged in the table's event
log with the action); without them the log says the operator certificate did it.

Exit status: 0 done; 1 the server refused (its sentence on stderr); 2 bad options or files.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any, NoReturn

import click

_ACCOUNTS = click.option(
    "--accounts",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="The console's accounts file (JSON, mode 0600).",
)


def draw_picture(logged: Any, timeline: Any, terminal: str | None, size: tuple[int, int]) -> bytes:
    """A recall picture as PNG bytes (:func:`tools.recall_pictures.write_pictures`, what
    ``etg recall show --png`` draws)."""
    from tools.recall_pictures import write_pictures

    with tempfile.TemporaryDirectory(prefix="etg-console-") as folder:
        path = Path(folder) / "round.png"
        write_pictures(logged, timeline, png=path, terminal=terminal, size=size)
        return path.read_bytes()


# ------------------------------------------------------------------------------ etg console


@click.group("console", invoke_without_command=True)
@click.option(
    "--certs",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="The certificates folder: ca.pem, operator.pem/.key, console.pem/.key, "
    "console-audit.key, log-signing.pub.  [default: the servers file's [console] certs]",
)
@click.option(
    "--servers",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="The servers file (TOML: each table server's address and log; the shifts).",
)
@click.option(
    "--store",
    default=None,
    metavar="URL",
    help="The floor store (PostgreSQL) to read the logs from: not in this build yet.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="The HTTPS port.")
@click.option(
    "--interface",
    default="127.0.0.1",
    show_default=True,
    help="The address to listen on (the floor's network address to serve other machines).",
)
@click.option(
    "--accounts",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The accounts file.  [default: console-accounts.json beside the servers file]",
)
@click.option(
    "--audit",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The audit log.  [default: console-audit.jsonl beside the servers file]",
)
@click.pass_context
def console(
    ctx: click.Context,
    certs: Path | None,
    servers: Path | None,
    store: str | None,
    port: int | None,
    interface: str,
    accounts: Path | None,
    audit: Path | None,
) -> None:
    """The operator's console: a web page over HTTPS (TLS 1.3) for attendants, supervisors
    and investigators, talking to each table server as the operator.

    Run it with --certs and --servers; the subcommands keep its accounts and prove its audit
    log.
    """
    if ctx.invoked_subcommand is not None:
        return
    if servers is None:
        raise click.UsageError("etg console needs --certs DIR and --servers FILE")
    from game_server.console.service import STORE_PENDING, run_console
    from game_server.console.settings import load_settings

    if store is not None:
        raise click.BadParameter(STORE_PENDING, param_hint="'--store'")
    settings = load_settings(servers)
    certs = certs or settings.certs
    if certs is None:
        raise click.UsageError(
            "etg console needs --certs DIR (or certs = DIR in the servers file's [console])"
        )
    if not certs.is_dir():
        raise click.BadParameter(f"{certs} is not a folder", param_hint="'--certs'")
    folder = servers.parent
    run_console(
        settings,
        certs,
        accounts or folder / "console-accounts.json",
        audit or folder / "console-audit.jsonl",
        port=port,
        interface=interface,
        pictures=draw_picture,
    )


@console.group("user")
def user() -> None:
    """The console's accounts: add, list, remove."""


@user.command("add")
@click.argument("name")
@click.option(
    "--role",
    type=click.Choice(["attendant", "supervisor", "investigator"]),
    required=True,
    help="What the person may do.",
)
@_ACCOUNTS
@click.option(
    "--password-stdin",
    is_flag=True,
    help="Read the password from the first line of standard input (for scripts).",
)
def user_add(name: str, role: str, accounts: Path, password_stdin: bool) -> None:
    """Add the person NAME. A supervisor is given a one-time code secret: enter it (or the
    otpauth URI, as a QR code) in an authenticator app; it is shown only now."""
    from game_server.console.accounts import AccountBook
    from game_server.console.roles import Role
    from game_server.console.totp import otpauth_uri, secret_from_text

    if password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    account = AccountBook(accounts).add(name, Role(role), password)
    click.echo(f"added {account.name} ({account.role.value}) to {accounts}")
    if account.totp is not None:
        click.echo(f"one-time code secret: {account.totp}")
        click.echo(f"authenticator URI:    {otpauth_uri(secret_from_text(account.totp), name)}")


@user.command("list")
@_ACCOUNTS
def user_list(accounts: Path) -> None:
    """Every person: name, role, whether they sign in with a code, when added."""
    from game_server.console.accounts import AccountBook

    for account in AccountBook(accounts):
        factor = "password and code" if account.totp else "password"
        click.echo(f"{account.name:<24} {account.role.value:<13} {factor:<18} {account.created}")


@user.command("remove")
@click.argument("name")
@_ACCOUNTS
def user_remove(name: str, accounts: Path) -> None:
    """Remove the person NAME (their open sessions end at their next request)."""
    from game_server.console.accounts import AccountBook

    account = AccountBook(accounts).remove(name)
    click.echo(f"removed {account.name} ({account.role.value})")


def audit_key_of(file: Path, key: Path | None, servers: Path | None) -> Path | None:
    """Where ``etg console audit`` takes the console's audit public key: ``--key`` (a file,
    or the folder holding console-audit.pub); else the certificates folder the servers file
    names (``--servers``, else ``servers.toml`` beside the audit log, whose default place
    is beside its servers file); else ``certs/console-audit.pub`` as ``etg verify`` does.
    None: none of these exists."""
    from game_server.console.settings import load_settings
    from game_server.keys import AUDIT_PUBLIC_FILE

    if key is not None:
        return key
    servers = servers or file.parent / "servers.toml"
    if servers.exists():
        named = load_settings(servers).certs
        if named is not None:
            return named / AUDIT_PUBLIC_FILE
    fallback = Path("certs") / AUDIT_PUBLIC_FILE
    return fallback if fallback.exists() else None


@console.command("audit")
@click.argument("file", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option(
    "--key",
    type=click.Path(exists=True, path_type=Path),
    default=None,
    help="The console's audit public key: console-audit.pub, or the folder holding it (best: "
    "a copy kept off the console's machine).  [default: from the servers file's certs, "
    "else certs/console-audit.pub]",
)
@click.option(
    "--servers",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="The servers file whose [console] certs holds the key.  [default: servers.toml "
    "beside FILE]",
)
@click.option("--last", type=click.IntRange(min=0), default=0, help="Also print the last N lines.")
def audit_command(file: Path, key: Path | None, servers: Path | None, last: int) -> None:
    """Prove the console's audit log FILE line by line with its signatures, and against its
    signed head FILE.head (exit 1 if it does not prove, or if it is not signed)."""
    from game_server.console.audit import verify_audit
    from game_server.keys import key_id, load_audit_public_key

    where = audit_key_of(file, key, servers)
    public = None if where is None else load_audit_public_key(where)
    found = verify_audit(file, public)
    if last:
        lines = file.read_text(encoding="utf-8").splitlines()[-last:]
        for text in lines:
            click.echo(text)
    if found.problem is not None:
        click.echo(f"{file}: {found.verdict()}", err=True)
        raise click.exceptions.Exit(1)
    if not found.proven:
        click.echo(f"{file}: {found.verdict()}", err=True)
        raise click.exceptions.Exit(1)
    proven_with = "" if public is None else f" (proven with {where}, key {key_id(public)})"
    click.echo(f"{file}: {found.verdict()}{proven_with}")
    if found.lines:
        click.echo(f"last line {found.lines}: {found.head}")


# ----------------------------------------------------------------------------- etg operator


class _Operator:
    """One connection of ``etg operator`` and who runs it."""

    def __init__(
        self,
        certs: Path | None,
        server: str | None,
        hostname: str | None,
        who: dict[str, str],
        route: str | None = None,
    ) -> None:
        self.certs = certs
        self.server = server
        self.hostname = hostname
        self.who = who
        self.route = route

    def _address(self) -> tuple[Path, str, int, str]:
        if self.certs is None or self.server is None:
            raise click.UsageError("etg operator needs --certs DIR and --server HOST:PORT")
        host, _, port = self.server.rpartition(":")
        if not host or not port.isdigit():
            raise click.BadParameter(f"{self.server!r} is not HOST:PORT", param_hint="'--server'")
        host = host.strip("[]")
        return self.certs, host, int(port), self.hostname or host

    def call(self, command: str, **arguments: Any) -> dict[str, Any]:
        from shared.protocol import PROTOCOL_VERSION
        from tools.amp_client import AmpClient, AmpError

        certs, host, port, hostname = self._address()
        # A server of several workers (etg serve --workers) hands the connection to the one
        # serving the terminal or table the command names, or --route's.
        route = self.route or arguments.get("terminal") or arguments.get("table")
        if route is not None and not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", route):
            route = None  # not a name: the server's answer says what is wrong with it
        try:
            client = AmpClient(port, certs, "operator", host=host, hostname=hostname, route=route)
        except OSError as exc:
            _refused(f"cannot reach {host}:{port}: {exc}", status=2)
        try:
            client.call("Hello", version=PROTOCOL_VERSION, software="etg operator")
            if command != "ReadMeters":
                arguments = {"request_id": uuid.uuid4().hex, **arguments, **self.who}
            return client.call(command, **arguments)
        except AmpError as exc:
            _refused(f"{exc.code}: {exc.description}")
        except (OSError, ConnectionError) as exc:
            _refused(f"the connection to {host}:{port} failed: {exc}", status=2)
        finally:
            client.close()


def _refused(text: str, status: int = 1) -> NoReturn:
    click.echo(f"etg operator: {text}", err=True)
    raise click.exceptions.Exit(status)


def _logged(answer: dict[str, Any]) -> str:
    return "" if answer.get("logged") == "1" else " (the server did not log who asked)"


@click.group("operator")
@click.option(
    "--certs",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="The certificates folder: ca.pem and operator.pem/.key.  [required]",
)
@click.option("--server", default=None, metavar="HOST:PORT", help="The table server.  [required]")
@click.option(
    "--hostname", default=None, help="The name in the server's certificate (default: HOST)."
)
@click.option(
    "--route",
    default=None,
    metavar="TABLE",
    help="With etg serve --workers: the table (or terminal) whose worker to reach; a command "
    "naming a terminal or --table reaches its worker without it.",
)
@click.option("--person", default=None, help="Who runs this (logged with the action).")
@click.option(
    "--role",
    type=click.Choice(["attendant", "supervisor"]),
    default=None,
    help="Their role (with --person).",
)
@click.pass_context
def operator(
    ctx: click.Context,
    certs: Path | None,
    server: str | None,
    hostname: str | None,
    route: str | None,
    person: str | None,
    role: str | None,
) -> None:
    """The operator's actions on a table server, for scripts (the console's, without a
    browser): credits, cash outs, the table's state, terminals' access, meters."""
    if (person is None) != (role is None):
        raise click.UsageError("--person and --role are given together")
    who = {} if person is None or role is None else {"person": person, "role": role}
    # --certs and --server are checked when a command connects, not by click: a
    # subcommand's --help must work without them.
    ctx.obj = _Operator(certs, server, hostname, who, route)


def _cents(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    from shared.errors import MoneyError
    from shared.money import parse_money

    if value is None:
        return None
    try:
        return parse_money(value)
    except MoneyError as exc:
        raise click.BadParameter(str(exc)) from None


_REFERENCE = click.option(
    "--reference", required=True, help="The slip, voucher or ticket the money moves against."
)
_REASON = click.option("--reason", required=True, help="Why (logged with the action).")
_TABLE = click.option("--table", default=None, help="One table of a server that hosts several.")


@operator.command("credit")
@click.argument("terminal")
@click.argument("amount", callback=_cents)
@_REFERENCE
@click.pass_obj
def credit(link: _Operator, terminal: str, amount: int, reference: str) -> None:
    """Credit TERMINAL with AMOUNT dollars (a cash in), e.g. 100.00."""
    from shared.money import format_money

    answer = link.call("CashIn", terminal=terminal, amount=amount, reference=reference)
    balance = format_money(int(answer["balance"]))
    click.echo(f"{terminal}: credited {format_money(amount)}, credits {balance}{_logged(answer)}")


@operator.command("cash-out")
@click.argument("terminal")
@click.argument("amount", callback=_cents, required=False)
@_REFERENCE
@click.pass_obj
def cash_out(link: _Operator, terminal: str, amount: int | None, reference: str) -> None:
    """Pay TERMINAL's credits out: AMOUNT (dollars), or all of them without it."""
    from shared.money import format_money

    answer = link.call("CashOut", terminal=terminal, amount=amount or 0, reference=reference)
    paid, balance = (format_money(int(answer[k])) for k in ("paid", "balance"))
    click.echo(f"{terminal}: paid {paid}, credits {balance}{_logged(answer)}")


def _state_command(state: str, summary: str) -> click.Command:
    @click.command(state, help=summary)
    @_REASON
    @_TABLE
    @click.pass_obj
    def command(link: _Operator, reason: str, table: str | None) -> None:
        arguments: dict[str, Any] = {"state": state, "reason": reason}
        if table is not None:
            arguments["table"] = table
        answer = link.call("SetTableState", **arguments)
        click.echo(f"{table or 'the tables'}: {answer['state']}{_logged(answer)}")

    return command


operator.add_command(_state_command("open", "Open the table (after a fault: reopen it)."))
operator.add_command(_state_command("close", "Close the table (a round in play finishes)."))
operator.add_command(
    _state_command("out-of-service", "Take the table out of service (a round in play finishes).")
)


def _access_command(access: str, summary: str) -> click.Command:
    @click.command("revoke" if access == "revoke" else "reinstate", help=summary)
    @click.argument("terminal")
    @_REASON
    @click.pass_obj
    def command(link: _Operator, terminal: str, reason: str) -> None:
        answer = link.call("SetTerminalAccess", terminal=terminal, access=access, reason=reason)
        revoked = ", ".join(json.loads(answer["revoked"])) or "none"
        click.echo(f"{terminal}: {access}d; revoked at the server: {revoked}{_logged(answer)}")

    return command


operator.add_command(
    _access_command("revoke", "Revoke TERMINAL: drop it and refuse it, across restarts.")
)
operator.add_command(_access_command("reinstate", "Reinstate a TERMINAL revoked by the operator."))


@operator.command("meters")
@click.option("--json", "as_json", is_flag=True, help="Print the server's answer as JSON.")
@click.pass_obj
def meters(link: _Operator, as_json: bool) -> None:
    """The server's never-reset meters (605a.5(d)), wallets and floor."""
    from shared.money import format_money

    answer = json.loads(link.call("ReadMeters")["meters"])
    if as_json:
        click.echo(json.dumps(answer, indent=2, sort_keys=True))
        return
    tables = answer.get("tables") or {answer.get("table", "?"): answer}
    for table, figures in sorted(tables.items()):
        wagers = figures.get("wagers", {}).values()
        click.echo(
            f"{table}: {figures.get('state', '?')}; games {figures.get('games_played', 0)}, "
            f"coin in {format_money(sum(w['wagered'] for w in wagers))}, "
            f"coin out {format_money(sum(w['paid'] for w in wagers))}, "
            f"cash in {format_money(figures.get('credits_in', 0))}, "
            f"cash out {format_money(figures.get('credits_out', 0))}"
        )
        for terminal, cents in sorted(figures.get("wallets", {}).items()):
            click.echo(f"  {terminal}: {format_money(cents)}")
