"""``etg verify DB``: the investigator's proof that a log is untouched and its rounds correct.

Registered on the ``etg`` group by :mod:`tools.cli` (``main.add_command(verify)``); the work
is :func:`game_server.recall.verify.verify_log`, this module only opens the files, shows
progress and prints.

Exit status (docs/design.md "Event log"; GLI-11 game recall):

- 0: every check holds (warnings, e.g. events not yet covered by a signed checkpoint, allowed);
- 1: at least one check fails: the first failing sequence number and why are printed;
- 2: unusable input: no such file, not an ETG event log, a newer schema, a damaged file, a
  key file that is missing or not a key. Nothing is written to the log in any case (it is
  opened read-only).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

import click
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from game_server.eventlog import AnchorFile, AnchorSource, EventLogReader
from game_server.keys import load_public_key, load_sealing_key
from game_server.recall.verify import VerifyReport, verify_log
from game_server.recall.verify_report import MeterAudit
from shared.errors import ETGError

#: Exit status when every check holds, when one fails, and for unusable input.
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_UNUSABLE = 2

#: How many failures and warnings the human report lists (``--json`` lists them all).
SHOWN = 20


def _unusable(message: str, as_json: bool) -> NoReturn:
    lines = [line.strip() for line in message.splitlines() if line.strip()] or [message]
    for line in lines:
        click.echo(f"etg: error: {line}", err=True)
    if as_json:
        click.echo(json.dumps({"ok": False, "error": " ".join(lines)}))
    raise click.exceptions.Exit(EXIT_UNUSABLE)


@click.command("verify")
@click.argument("db", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--key",
    type=click.Path(path_type=Path),
    default=Path("certs/log-signing.pub"),
    show_default=True,
    help="The log-signing public key: the .pub file, or the certs directory holding it.",
)
@click.option(
    "--sealing-key",
    type=click.Path(path_type=Path),
    default=None,
    help="The shoe-sealing key (file or certs directory), to check the cards of shoes not "
    "yet revealed and that each sealed seed is the revealed one.",
)
@click.option(
    "--anchors",
    "anchors_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The anchor stream the server kept (etg serve --anchors): every checkpoint as it was "
    "made, outside the log. Without it a log cut back to one of its own checkpoints cannot be "
    "detected.",
)
@click.option(
    "--store",
    "store_url",
    default=None,
    metavar="URL",
    help="The floor store (an investigator's URL): the checkpoints it holds of this log are "
    "anchors, so a log cut back on its own machine fails (with --anchors too, both are used); "
    "the log's linked meter records must be the store's rows, the store's changes naming the "
    "log's tables must be in the log, and the store's history of those meters must follow by "
    "the rules' arithmetic.",
)
@click.option(
    "--evidence",
    is_flag=True,
    help="DB is a copy kept as evidence that no process writes to: open it immutable, so "
    "that not even SQLite's -wal/-shm companion files are created beside it.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def verify(
    db: Path,
    key: Path,
    sealing_key: Path | None,
    anchors_path: Path | None,
    store_url: str | None,
    evidence: bool,
    as_json: bool,
) -> None:
    """Verify the event log DB: file and indexes, meta, anchors, triggers, hash chain,
    signed checkpoints, shoe commitments, every dealt card, every round replayed through the
    rules, every balance; with --store, the log's linked meter records against the floor
    store's rows (both ways) and the store's history of those meters.

    Exits 0 when everything holds, 1 when a check fails (the first failing sequence number
    is named), 2 when the input cannot be verified (not a log, missing or bad key, an anchor
    stream or a floor store that cannot be read).
    """
    if anchors_path is not None and not anchors_path.exists():
        _unusable(f"there is no anchor stream at {anchors_path}; check the path", as_json)
    try:
        with EventLogReader.open(db, immutable=evidence) as reader:
            public_key = load_public_key(key)
            sealing = None if sealing_key is None else load_sealing_key(sealing_key)
            with (
                _anchors(anchors_path, store_url, public_key) as anchors,
                _meters(store_url) as meters,
                _rows(store_url) as rows,
            ):
                report = _run(reader, public_key, sealing, anchors, meters, rows, as_json)
    except ETGError as exc:
        _unusable(str(exc), as_json)
    if as_json:
        click.echo(json.dumps(report.to_json()))
    else:
        click.echo(format_report(report, db))
    raise click.exceptions.Exit(EXIT_OK if report.ok else EXIT_FAILED)


@contextmanager
def _anchors(
    path: Path | None, store_url: str | None, public_key: Ed25519PublicKey
) -> Iterator[AnchorSource | None]:
    """The anchor file, the floor store, both, or None (the store's connection is closed
    at the end). Of the store, only the checkpoints signed by the log's key are anchors;
    the others are named on stderr."""
    if store_url is None:
        yield None if path is None else AnchorFile(path)
        return
    from game_server.floor.anchors import JoinedAnchors, StoreAnchors

    def refused(sentence: str) -> None:
        click.echo(f"etg verify: {sentence}", err=True)

    store = StoreAnchors(store_url, public_key, refused)
    try:
        yield store if path is None else JoinedAnchors(AnchorFile(path), store)
    finally:
        store.close()


@contextmanager
def _rows(store_url: str | None) -> Iterator[MeterAudit | None]:
    """The comparison of the log with the floor store's copy, or None."""
    if store_url is None:
        yield None
        return
    from game_server.floor.rows_audit import StoreRowsAudit

    audit = StoreRowsAudit(store_url)
    try:
        yield audit
    finally:
        audit.close()


@contextmanager
def _meters(store_url: str | None) -> Iterator[MeterAudit | None]:
    """The check of the log's linked meters against the floor store, or None."""
    if store_url is None:
        yield None
        return
    from game_server.floor.meter_audit import StoreMeterAudit

    audit = StoreMeterAudit(store_url)
    try:
        yield audit
    finally:
        audit.close()


def _run(
    reader: EventLogReader,
    public_key: Ed25519PublicKey,
    sealing: bytes | None,
    anchors: AnchorSource | None,
    meters: MeterAudit | None,
    rows: MeterAudit | None,
    as_json: bool,
) -> VerifyReport:
    total = reader.max_seq()
    if as_json or not sys.stderr.isatty() or total == 0:
        return verify_log(
            reader,
            public_key,
            sealing_key=sealing,
            anchors=anchors,
            meters=meters,
            rows=rows,
        )
    with click.progressbar(length=total, label="Verifying", file=sys.stderr) as bar:
        done = 0

        def progress(seq: int, _total: int) -> None:
            nonlocal done
            bar.update(max(0, min(seq, total) - done))
            done = max(done, min(seq, total))

        return verify_log(
            reader,
            public_key,
            sealing_key=sealing,
            progress=progress,
            anchors=anchors,
            meters=meters,
            rows=rows,
        )


def format_report(report: VerifyReport, db: Path | str) -> str:
    """The human report: a verdict, one line per check, then the failures and warnings."""
    counts = report.counts
    verdict = "VERIFIED" if report.ok else "FAILED"
    lines = [
        f"{db}: {verdict}  ({counts.events:,} events, {counts.rounds_replayed:,} of "
        f"{counts.rounds:,} rounds replayed, {counts.shoes_checked} of {counts.shoes} shoes "
        f"and {counts.cards_checked:,} cards checked, {counts.valid_checkpoints:,} of "
        f"{counts.checkpoints:,} checkpoints valid; key {report.key_id}; "
        f"{report.elapsed:.2f} s, of which integrity_check {report.integrity_seconds:.2f} s)",
        "  anchors: "
        + (
            "none given: a cut-back tail cannot be detected (pass --anchors)"
            if report.anchors is None
            else f"{report.anchors:,} anchored checkpoint(s) of this log checked"
        ),
    ]
    if report.linked is not None:
        lines.append(
            f"  linked meters: {report.linked.checked:,} record(s) of this log checked against "
            f"the floor store, {report.linked.meters} meter history(ies) walked"
        )
    lines.append("")
    width = max(len(c.title) for c in report.checks)
    for check in report.checks:
        line = f"  {check.status:<4}  {check.title:<{width}}"
        if check.status == "SKIP":
            line += "  not checked (no --store)"
        if check.status != "PASS" and check.first is not None:
            where = "file" if check.first.seq is None else f"seq {check.first.seq}"
            more = check.failures or check.warnings
            extra = f" (+{more - 1} more)" if more > 1 else ""
            line += f"  first at {where}{extra}"
        lines.append(line.rstrip())
    if report.first_failure is not None:
        first = report.first_failure
        where = "the file" if first.seq is None else f"seq {first.seq}"
        lines += ["", f"First failure at {where} [{first.check}]: {first.reason}"]
    if report.failures:
        lines += ["", f"Failures ({report.failure_count:,}):"]
        lines += [_item(f.seq, f.check, f.reason) for f in report.failures[:SHOWN]]
        if report.failure_count > SHOWN:
            lines.append(f"  ... {report.failure_count - SHOWN:,} more (use --json)")
    if report.warnings:
        lines += ["", f"Warnings ({len(report.warnings):,}):"]
        lines += [_item(w.seq, w.check, w.reason) for w in report.warnings[:SHOWN]]
        if len(report.warnings) > SHOWN:
            lines.append(f"  ... {len(report.warnings) - SHOWN:,} more (use --json)")
    return "\n".join(lines)


def _item(seq: int | None, check: str, reason: str) -> str:
    where = "file" if seq is None else f"seq {seq}"
    return f"  {where:>10}  [{check}] {reason}"
