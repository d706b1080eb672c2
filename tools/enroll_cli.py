"""``etg certs request`` (on a new terminal) and ``etg certs sign`` (on the table server):
enrollment, so that a terminal's private key never leaves the machine that made it.

The work is :mod:`game_server.net.enroll`; this module parses options and prints. Both
commands print the request key's fingerprint: the operator compares the two before copying
the certificate back. Product errors propagate to the ``etg`` group (one line, exit 2).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import click


@click.command("request")
@click.argument("terminal_id", metavar="TERMINAL_ID")
@click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("certs"),
    show_default=True,
    help="The terminal's certificates folder: the key and the request are written there, "
    "and the signed certificate and ca.pem go there.",
)
def request(terminal_id: str, folder: Path) -> None:
    """On a new terminal: make its private key and a certificate request for TERMINAL_ID.

    The key (TERMINAL_ID.key, mode 0600) stays on this machine; take TERMINAL_ID.csr to the
    table server and sign it there with 'etg certs sign'. Then put the certificate it
    returns (TERMINAL_ID.pem) and the table's ca.pem into the same folder.
    """
    from game_server.net.enroll import request_certificate

    made = request_certificate(folder, terminal_id)
    click.echo(f"wrote {made.key} (the private key: it never leaves this machine)")
    click.echo(f"wrote {made.request} (take it to the table server: etg certs sign)")
    click.echo(f"key fingerprint {made.fingerprint}")


@click.command("sign")
@click.argument("request_file", metavar="REQUEST", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--certs",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("certs"),
    show_default=True,
    help="The table's certificates folder, with the CA made by 'etg certs init'.",
)
@click.option(
    "--floor",
    "floor_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The server's floor file: a terminal id that already has a certificate is signed "
    "again only when [floor.revoked] serials revokes that certificate.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the certificate here (to carry it to the terminal).",
)
def sign(request_file: Path, certs: Path, floor_path: Path | None, out: Path | None) -> None:
    """On the table server: issue a terminal's certificate for its REQUEST (made by 'etg
    certs request'), from the table's CA.

    An id that already has a certificate is refused unless that certificate is revoked by
    its serial in the floor file (give --floor); the revoked one is kept under
    terminals/replaced/. Compare the fingerprint printed here with the one the terminal
    printed, then copy the certificate and ca.pem to the terminal.
    """
    from game_server.net.enroll import sign_request
    from game_server.net.floor import load_floor
    from game_server.net.identity import RevocationList
    from game_server.net.pki import PkiFileUnreadable, PkiLayout

    revocations = RevocationList() if floor_path is None else load_floor(floor_path).revocations
    if out is not None and (out.exists() or out.is_symlink()):
        raise click.BadParameter(f"{out} already exists; not overwritten", param_hint="'--out'")
    if out is not None and not os.access(out.parent, os.W_OK):
        raise click.BadParameter(
            f"cannot write into {out.parent} (missing or not writable); nothing was signed",
            param_hint="'--out'",
        )
    signed = sign_request(certs, request_file, revocations)
    if signed.replaced is not None:
        click.echo(f"moved the revoked certificate of {signed.terminal_id} to {signed.replaced}")
    click.echo(f"signed {signed.terminal_id}: serial {signed.serial:x}")
    click.echo(f"key fingerprint {signed.fingerprint}")
    click.echo(f"wrote {signed.certificate}")
    if out is not None:
        try:
            shutil.copyfile(signed.certificate, out)
        except OSError as exc:
            raise PkiFileUnreadable(
                f"cannot write {out}: {exc.strerror or exc}; the certificate is in "
                f"{signed.certificate}",
                out,
            ) from None
        click.echo(f"wrote {out}")
    click.echo(
        f"copy {out or signed.certificate} and {PkiLayout(certs).ca.certificate} into the "
        f"terminal's certificates folder (as {signed.terminal_id}.pem and ca.pem)"
    )
