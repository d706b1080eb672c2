"""``etg certs``: the table's TLS certificates (the CA, the server, terminals, the operator).

The ``certs`` group and its ``init`` command live in :mod:`tools.cli`; this module gives them
the TLS part (docs/design.md "Network": each terminal and operator tool has its own certificate):

- :func:`init_tls` creates the PKI with :func:`game_server.net.pki.init_pki`; ``etg certs
  init`` calls it (before the log-signing and shoe-sealing keys, so that a bad host name
  leaves the keys alone), with the options :data:`TERMINALS_OPTION` and
  :data:`HOSTNAME_OPTION`. :func:`check_init_free` refuses before anything is written when
  any file of either kind exists.
- :data:`add_terminal` is ``etg certs add-terminal DIRECTORY TERMINAL_ID``.
- :data:`add_console` is ``etg certs add-console DIRECTORY [--hostname NAME ...]``: the
  operator console's HTTPS certificate, and its audit key (``console-audit.key`` and
  ``.pub``, :func:`game_server.keys.init_audit_key`), which signs its audit log. Run again
  on a folder whose certificate exists, it makes only the audit key if that is missing.
- :data:`list_certs` is ``etg certs list DIRECTORY``: who each certificate names, its serial
  number (what the config revokes) and when it expires.

Product errors (:class:`game_server.net.pki.PkiError`) propagate to the ``etg`` group, which
prints them as one line and exits with status 2.

Importing this module loads only click; the work is imported when a command runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from game_server.net.pki import MAX_TERMINALS

#: ``--terminals N`` for ``etg certs init``.
TERMINALS_OPTION = click.option(
    "--terminals",
    type=click.IntRange(0, MAX_TERMINALS),
    default=2,
    show_default=True,
    help="Terminal certificates to issue (T1 to TN); add more later with add-terminal.",
)

#: ``--hostname NAME`` (repeatable) for ``etg certs init``.
HOSTNAME_OPTION = click.option(
    "--hostname",
    "hostnames",
    multiple=True,
    metavar="NAME",
    help="A DNS name or IP address terminals use to reach the server (repeatable); "
    "localhost, 127.0.0.1 and ::1 are always included.",
)

_DIRECTORY = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))


def check_init_free(directory: Path, terminals: int) -> None:
    """Refuse, before anything is written, if ``etg certs init`` would overwrite a file.

    Checks the key files of :func:`game_server.keys.init_keys` and every file
    :func:`game_server.net.pki.init_pki` would write.

    Args:
        directory: The certificate directory.
        terminals: How many terminal certificates ``init`` will issue.

    Raises:
        game_server.net.pki.PkiFileExists: the first file that already exists.
    """
    from game_server.keys import PUBLIC_KEY_FILE, SEALING_KEY_FILE, SIGNING_KEY_FILE
    from game_server.net.pki import PkiFileExists, PkiLayout

    layout = PkiLayout(Path(directory))
    paths = [layout.directory / name for name in (SIGNING_KEY_FILE, PUBLIC_KEY_FILE)]
    paths.append(layout.directory / SEALING_KEY_FILE)
    for pair in (layout.ca, layout.server, layout.operator):
        paths += pair
    for number in range(1, terminals + 1):
        paths += layout.terminal(f"T{number}")
    for path in paths:
        if path.exists() or path.is_symlink():
            raise PkiFileExists(
                f"{path} already exists; refusing to overwrite the table's keys and "
                "certificates (logs signed and terminals certified with them depend on "
                "them). Move it away first, or pass --force if you really mean to replace "
                "them all.",
                path,
            )


def init_tls(directory: Path, terminals: int, hostnames: Sequence[str], force: bool) -> list[Path]:
    """Create the table's CA and the certificates of the server, operator and terminals.

    Args:
        directory: The certificate directory (``certs/``).
        terminals: How many terminal certificates to issue (``T1`` to ``Tn``).
        hostnames: Names of the server besides localhost, 127.0.0.1 and ::1.
        force: Replace existing files (every certificate of the old CA stops working).

    Returns:
        Every file written, certificates before their keys.

    Raises:
        game_server.net.pki.PkiError: see :func:`game_server.net.pki.init_pki`.
    """
    from game_server.net.pki import init_pki

    made = init_pki(directory, terminals=terminals, hostnames=tuple(hostnames), force=force)
    return made.paths()


@click.command("add-terminal")
@_DIRECTORY
@click.argument("terminal_id", metavar="TERMINAL_ID")
def add_terminal(directory: Path, terminal_id: str) -> None:
    """Issue a certificate for one more terminal from the CA in DIRECTORY.

    TERMINAL_ID is 1 to 32 letters, digits, '_' or '-', such as T7. Copy
    terminals/TERMINAL_ID.pem, terminals/TERMINAL_ID.key and ca.pem to the terminal.
    """
    from game_server.net.pki import add_terminal as issue
    from game_server.net.pki import load_certificate

    made = issue(directory, terminal_id)
    serial = load_certificate(made.certificate).serial_number
    click.echo(f"wrote {made.certificate} (serial {serial:x})")
    click.echo(f"wrote {made.key}")


@click.command("add-console")
@_DIRECTORY
@HOSTNAME_OPTION
@click.option("--force", is_flag=True, help="Replace an existing console certificate.")
def add_console(directory: Path, hostnames: tuple[str, ...], force: bool) -> None:
    """Issue the operator console's HTTPS certificate (console.pem, console.key) from the CA
    in DIRECTORY, for the names browsers reach the console by (etg console), and make its
    audit key (console-audit.key, console-audit.pub) if it is missing: it signs the console's
    audit log. The audit key is never replaced, not even with --force."""
    from game_server.keys import AUDIT_KEY_FILE, init_audit_key, key_id, load_audit_key
    from game_server.net.pki import PkiLayout
    from game_server.net.pki import add_console as issue

    pair = PkiLayout(directory).console
    kept = not force and all(path.exists() for path in pair)
    if not kept or not _audit_key_missing(directory):
        made = issue(directory, hostnames=hostnames, force=force)
        click.echo(f"wrote {made.certificate}")
        click.echo(f"wrote {made.key}")
    else:
        click.echo(f"kept {pair.certificate} and {pair.key} (--force replaces them)")
    written = init_audit_key(directory)
    for path in written:
        click.echo(f"wrote {path}")
    if written:
        fingerprint = key_id(load_audit_key(directory / AUDIT_KEY_FILE))
        click.echo(
            f"the console's audit key is {fingerprint}: keep a copy of console-audit.pub off "
            "the console's machine to prove its audit log (etg console audit --key)"
        )


def _audit_key_missing(directory: Path) -> bool:
    from game_server.keys import AUDIT_KEY_FILE, AUDIT_PUBLIC_FILE

    return not all((directory / name).exists() for name in (AUDIT_KEY_FILE, AUDIT_PUBLIC_FILE))


@click.command("list")
@_DIRECTORY
def list_certs(directory: Path) -> None:
    """List the certificates in DIRECTORY: role, id, serial number (to revoke) and expiry."""
    from game_server.net.identity import peer_identity
    from game_server.net.pki import CertificateWithoutRole, PkiLayout, load_certificate

    layout = PkiLayout(directory)
    paths = [layout.ca.certificate, layout.server.certificate, layout.operator.certificate]
    paths += [layout.console.certificate]
    paths += [layout.terminal(tid).certificate for tid in layout.terminal_ids()]
    labels = {
        layout.ca.certificate: "ca",
        layout.server.certificate: "server",
        layout.console.certificate: "console",
    }
    for path in paths:
        if not path.exists():
            continue
        cert = load_certificate(path)
        try:
            identity = peer_identity(cert)
            who = f"{identity.role.value} {identity.id}"
        except CertificateWithoutRole:
            who = labels.get(path, cert.subject.rfc4514_string())
        expires = cert.not_valid_after_utc.date().isoformat()
        click.echo(f"{who:<24} serial {cert.serial_number:x}  expires {expires}  {path}")
