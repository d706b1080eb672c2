"""``etg verify``: prove a whole event log untouched and every round in it correctly played.

Entry point: :func:`verify_log` (pure of CLI concerns; :mod:`tools.verify_cli` prints it). The
report's types are :mod:`game_server.recall.verify_report`'s; the walk that checks every record
is :mod:`game_server.recall.verify_walk`'s, its shoe and card checks
:mod:`game_server.recall.verify_shoes`'.

An investigator doing game recall after a dispute (GLI-11 "game recall": every play step, the
credits at the start and end of each game; 58 Pa. Code 605a.5(d) meters) needs more than the
rows of one round: the rows must be the ones the table wrote, the cards must be the ones the
certified shoe held, and the settlements must be the ones the approved rules give. This
module checks, in one streaming pass over the log (docs/design.md "Event log", "RNG and shoe"):

``file``
    SQLite's full ``integrity_check``: every page, and every index compared with its table
    (recall queries read the indexes: an index rebuilt with one round relabelled to another
    terminal would hide that round from the terminal's recall while every row still
    verifies). Its time is reported (``integrity_seconds``).
``meta``
    the ``meta`` and ``migrations`` tables are the ones the newest checkpoint signed (its
    meta digest, :func:`~game_server.eventlog.chain.meta_digest`); a log whose checkpoints
    are all older than schema version 4 does not sign them (a warning).
``anchors``
    with an anchor stream (``etg verify DB --anchors PATH``, the checkpoints kept outside the
    file as they were made, :mod:`game_server.eventlog.anchors`): every anchored checkpoint
    of the log is in it unchanged, signed by the key, and covered by the chain (a log cut
    back to before one of them, or cut back and written again, fails, naming the
    checkpoint). Without one, a warning: a log cut back to one of its own checkpoints
    cannot be told from a log that ended there.
``triggers``
    every trigger that makes the tables append-only is present exactly as created (a missing
    one is a failure: the database no longer refuses UPDATE and DELETE).
``chain`` / ``checkpoints``
    :func:`~game_server.eventlog.verify_chain`: every row's hash recomputed, every Ed25519
    checkpoint signature checked against the chain (a problem whose reason names a checkpoint
    is filed under ``checkpoints``). Events after the last checkpoint are chained but not
    signed: a warning, because they could be cut off without trace.
``shoes``
    every ``shoe_revealed`` regenerates its shoe (HMAC_DRBG + Fisher-Yates,
    :class:`~game_server.rng.shoe.Shoe`) and ``SHA-256(order || salt)`` must equal the
    commitment logged before the first card; with the shoe-sealing key, the sealed seed of
    every shoe is opened too (the only way to check a shoe not yet revealed).
``cards``
    every card dealt (each game's :attr:`~game_server.games.api.Game.shoe_card_kinds`) and
    every hole card revealed is the card at its position of that order; what a game draws from
    the round deck's seed (Ultimate Texas Hold 'Em's Magic Card and Lucky Bonus position) is
    what its seed gives, once the seed is known (revealed, or unsealed with the sealing key:
    :meth:`~game_server.games.api.Game.seeded_draw_problem`).
``replay``
    every round replays through its game's engine, under the rules it was played under
    (:meth:`~game_server.games.api.Game.replay`); the first differing event is named.
``rounds``
    round ids go up by one per table, each round opens with ``round_started`` naming the
    hash of the config in force and a committed, unrevealed shoe, card positions strictly
    increase within a shoe, and each event's envelope names the terminal of its seat. At a
    table in stadium play (the hybrid tables: no seats, ``round_started`` lists seat 0 per
    terminal) a player's event must name in its envelope a terminal of ``round_started``: the
    player's own (three-position table), or the one that joined as that player number,
    numbers given in join order (no-hole-card table); the dealer's and the community's cards
    name none. Each game names the check of each of its records
    (:meth:`~game_server.games.api.Game.verify_checks`, from
    :data:`~game_server.games.api.VERIFY_CHECKS`); a
    record only another game's engine (or this game's at another type of table) produces is
    a failure.
``requests``
    every ``request_applied`` (a client's request id, logged with the first step its command
    logged: :mod:`game_server.table.requests`) is well formed, its envelope names the
    terminal that sent it (none for the operator), and the records it counts before it are
    of its own step (its table and time) with no other request record among them. A request
    id that takes effect a second time while a server still remembers it (a retry run
    again: a double effect) is a warning.
``ledger``
    every event folded through :class:`~game_server.table.ledger.Ledger` (the one definition
    of a balance); each balance the log states (``credits_in``/``credits_out``,
    ``round_started``, ``round_closed``) must equal the fold.
``conservation``
    at the end: credits in = credits out + the balances the log states + wagers in play +
    house result (docs/design.md "Core contracts").
``events``
    every body decodes as an event this build knows.
``linked``
    with the floor store (``etg verify DB --store URL``): every linked meter record of the
    log (605a.8) is the store's row of that meter and sequence number, every store change
    naming the log's tables is in the log, and the store's history of each of those meters
    follows by the rules' arithmetic (:mod:`game_server.floor.meter_audit`, which states
    the rule for a store change the log does not hold yet). Without the store, a log that
    has linked records gets a warning.

Every failure names the sequence number of the event at fault (``None`` only for a fault of
the file as a whole) and why. The result is deterministic: the same log and keys give the same
report (but for ``elapsed``).

How one fault is reported once, where it happens: a balance the log states that disagrees
with the fold is a failure at that event, and later balances are compared with the fold
plus that difference (so a wrong ``round_closed`` does not make every later balance wrong;
the ``round_started`` after it, if it states the true balance again, is named too). A
revealed seed that does not regenerate its commitment is one failure at the reveal; the
cards of that shoe are then checked against the sealed seed if the sealing key is given,
else reported as not checked. A body that is not an event of this build is one failure, and
the event is left out of the walk; anything that stops the walk (a logged config this build
refuses, an event that does not decode) is one failure, and the semantic checks stop there
(the chain is still checked to the end).

How it runs in one pass: :func:`verify_chain` pulls the row batches; each batch it asks for
is first read by :func:`~game_server.recall.rounds.walk` (which groups rounds, with their
config and shoe) and checked, so SQLite reads every row once. Bodies are parsed once with a
JSON scanner built once. On the reference machine the whole verification runs at about
60,000 events/s (``python -m tools.bench_verify``); about half of that time is
:func:`verify_chain` (one Ed25519 signature per round close costs about 150 us).

What it cannot find: events after the last checkpoint can be removed without trace (the
warning says so); a log whose checkpoints were all re-signed with another key verifies
under that other key, so the public key must come from the operator's key records, not
from beside the log.

Unusable input (not an event log, a newer schema, a damaged file, a key file that is not a
key) raises an :class:`~shared.errors.ETGError` before any check: the CLI exits 2 for those.
A valid key that did not sign the log is not unusable input: every checkpoint then fails.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from json.scanner import make_scanner
from typing import Any, Final

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from game_server.eventlog import (
    CHAIN_FORMAT,
    TRIGGERS,
    AnchorSource,
    Checkpoint,
    EventLogReader,
    EventRow,
    LogDamaged,
    RoundSpan,
    StoredEvent,
    check_anchors,
    meta_digest,
    verify_chain,
)
from game_server.eventlog.store import Dialect, EventSource
from game_server.recall.rounds import LoggedRound, walk
from game_server.recall.verify_report import (
    CHECKS,
    CheckSummary,
    Finding,
    Findings,
    MeterAudit,
    MeterAuditResult,
    UnverifiableLog,
    VerifyCounts,
    VerifyReport,
)
from game_server.recall.verify_walk import _Semantics
from game_server.rules.events import EVENT_TYPES

__all__ = [
    "CHECKS",
    "CheckSummary",
    "Finding",
    "UnverifiableLog",
    "VerifyCounts",
    "VerifyReport",
    "verify_log",
]

#: Rows read from SQLite at a time (and between two progress calls).
BATCH: Final = 10_000

#: Called with (highest seq read so far, highest seq of the log).
Progress = Callable[[int, int], None]


# ----------------------------------------------------------------------------- decoding


def _refuse_number(text: str) -> Any:
    raise ValueError(f"canonical JSON holds integers only; got the number {text}")


class _IntegerDecoder(json.JSONDecoder):
    def __init__(self) -> None:
        super().__init__(parse_float=_refuse_number, parse_constant=_refuse_number)


#: One JSON scanner built once (``shared.codec.loads`` builds a decoder per call, which
#: doubles the cost of reading a body); refuses floats like ``loads`` does.
_scan: Callable[[str, int], tuple[Any, int]] = make_scanner(_IntegerDecoder())  # type: ignore[arg-type]


def _versions() -> dict[str, int]:
    """kind -> schema version, for every registered event (an unknown kind or version is
    left out of the walk; other decoding faults stop it, see :meth:`_Pump._advance`)."""
    return {kind: cls.version for kind, cls in EVENT_TYPES.items()}


# ----------------------------------------------------------------------------- one pass


class _Pump:
    """Reads the rows once and hands every batch to the walk and to :func:`verify_chain`.

    ``verify_chain`` drives: it asks :meth:`batches` for the next batch; the walk (a
    generator) is advanced until it has read that far, pulling rows from SQLite through
    :meth:`_events`, which queues every batch it reads for the chain. So each row is read
    once, and the walk stays at most a batch or so ahead of the chain.
    """

    def __init__(
        self,
        reader: EventLogReader,
        semantics: _Semantics,
        findings: Findings,
        total: int,
        progress: Progress | None,
    ) -> None:
        self._rows = reader.row_batches(1, BATCH)
        self._queue: deque[list[EventRow]] = deque()
        self._semantics = semantics
        self._findings = findings
        self._total = total
        self._progress = progress
        self._damage: LogDamaged | None = None
        self._versions = _versions()
        self._last_fed = 0
        self._walk: Iterator[LoggedRound] | None = walk(self._events(), on_event=semantics.on_event)

    def _events(self) -> Iterator[StoredEvent]:
        """StoredEvents for the walk, bodies parsed once with a reused scanner; bodies that
        are not an event of this build are reported and left out."""
        versions = self._versions
        scan = _scan
        from_row = StoredEvent.from_row
        try:
            for rows in self._rows:
                self._queue.append(rows)
                for row in rows:
                    text = row[6]
                    try:
                        body, end = scan(text, 0)
                        if end != len(text) or versions[body["kind"]] != body["v"]:
                            raise ValueError
                    except (ValueError, StopIteration, KeyError, TypeError, RecursionError):
                        self._unreadable(row)
                        continue
                    event = from_row(row)
                    event.__dict__["body"] = body  # functools.cached_property's slot for .body
                    self._last_fed = row[0]
                    yield event
        except LogDamaged as exc:
            self._damage = exc

    def _unreadable(self, row: EventRow) -> None:
        seq, kind = row[0], row[5]
        self._findings.fail(
            seq,
            "events",
            f"event {seq} ({kind!r}) is not an event this build knows (a changed body, or a "
            "newer ETG wrote it); it was left out of the rounds, ledger and shoe checks",
        )

    def _advance(self) -> None:
        """Advance the walk by one round; on an error, stop the walk (and say so)."""
        assert self._walk is not None
        try:
            rnd = next(self._walk)
        except StopIteration:
            self._walk = None
            return
        except Exception as exc:  # any refusal of the log is a finding
            seq = self._last_fed
            self._walk = None
            self._semantics.stopped_at = seq
            self._findings.fail(
                seq,
                "events",
                f"the log cannot be read as rounds from seq {seq} on: {type(exc).__name__}: {exc}",
            )
            self._findings.warn(
                seq,
                "replay",
                f"rounds, shoes and balances after seq {seq} are not checked (only the chain "
                "and signatures are)",
            )
            return
        self._semantics.on_round(rnd)

    def batches(self) -> Iterator[list[EventRow]]:
        """The batches, in order, for ``verify_chain`` (it handles a LogDamaged raised here)."""
        queue = self._queue
        while True:
            while not queue and self._walk is not None:
                self._advance()
            if queue:
                rows = queue.popleft()
                if self._progress is not None:
                    self._progress(rows[-1][0], self._total)
                yield rows
                continue
            if self._walk is None:
                break
        for rows in self._rows:  # what the walk did not read (it stopped on an error)
            if self._progress is not None:
                self._progress(rows[-1][0], self._total)
            yield rows
        if self._damage is not None:
            self._semantics.stopped_at = self._semantics.stopped_at or self._last_fed
            raise self._damage


class _TeeSource:
    """The reader as :func:`verify_chain` sees it, with rows coming from the pump."""

    def __init__(self, reader: EventLogReader, pump: _Pump) -> None:
        self._reader = reader
        self._pump = pump
        #: The highest seq a stored checkpoint claims to cover (valid or not).
        self.last_checkpoint_seq = 0

    @property
    def log_id(self) -> str:
        return self._reader.log_id

    def snapshot(self) -> AbstractContextManager[None]:
        return self._reader.snapshot()

    def max_seq(self) -> int:
        return self._reader.max_seq()

    def row_batches(self, start_seq: int = 1, batch: int = BATCH) -> Iterator[list[EventRow]]:
        if start_seq != 1:  # pragma: no cover - verify_chain reads from the start
            raise ValueError("the pump streams the log from seq 1")
        return self._pump.batches()

    def iter_events(self, start_seq: int = 1, batch: int = BATCH) -> Iterator[StoredEvent]:
        return self._reader.iter_events(start_seq, batch)  # pragma: no cover

    def events_for_round(self, table_id: str, round_id: int) -> list[StoredEvent]:
        return self._reader.events_for_round(table_id, round_id)  # pragma: no cover

    def iter_checkpoints(self) -> Iterator[Checkpoint]:
        for checkpoint in self._reader.iter_checkpoints():
            self.last_checkpoint_seq = max(self.last_checkpoint_seq, checkpoint.seq)
            yield checkpoint

    def checkpoints(self) -> list[Checkpoint]:
        return self._reader.checkpoints()  # pragma: no cover

    @property
    def dialect(self) -> Dialect:
        return self._reader.dialect  # pragma: no cover

    def select(self, sql: str, params: Sequence[object]) -> list[Any]:
        return self._reader.select(sql, params)  # pragma: no cover

    def select_iter(self, sql: str, params: Sequence[object]) -> Generator[Any, None, None]:
        return self._reader.select_iter(sql, params)  # pragma: no cover

    def recent_rounds(
        self,
        terminal: str | None = None,
        table: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 10,
    ) -> list[RoundSpan]:
        return self._reader.recent_rounds(terminal, table, since, until, limit)  # pragma: no cover

    def triggers_present(self) -> dict[str, bool]:
        return self._reader.triggers_present()  # pragma: no cover

    def close(self) -> None:  # pragma: no cover - the caller owns the reader
        pass


# ----------------------------------------------------------------------------- entry point


def verify_log(
    reader: EventLogReader,
    public_key: Ed25519PublicKey,
    *,
    sealing_key: bytes | None = None,
    progress: Progress | None = None,
    anchors: AnchorSource | None = None,
    meters: MeterAudit | None = None,
    rows: MeterAudit | None = None,
) -> VerifyReport:
    """Verify a whole event log: file, triggers, chain, signatures, shoes, cards, rounds, money.

    Everything is read in one snapshot of the log (it may run while the table appends) and
    in one pass over the rows. Nothing is written: the reader is read-only.

    Args:
        reader: The log, opened with :meth:`EventLogReader.open`.
        public_key: The log-signing public key (``certs/log-signing.pub``).
        sealing_key: The 32-byte shoe-sealing key, to check shoes not yet revealed (and that
            each sealed seed is the revealed one). Without it, rounds of unrevealed shoes are
            reported as not checked (a warning).
        progress: Called after each batch with (highest seq read, highest seq of the log).
        anchors: The anchor stream: the checkpoints kept outside the log as they were made.
            Without it a log cut back to one of its own checkpoints cannot be detected (the
            report warns).
        meters: The check of the log's linked meter records against the floor store
            (``--store``); without it a log with such records gets a warning.
        rows: The comparison of the log with the floor store's copy of it, row by row
            (``--store``: :class:`game_server.floor.rows_audit.StoreRowsAudit`).

    Returns:
        The report; ``report.ok`` is the verdict.

    Raises:
        UnverifiableLog: the log's chain format is not the one this build verifies.
        LogDamaged: SQLite cannot read the log's tables at all.
        AnchorError: the anchor stream cannot be read, or a line of it is not a checkpoint.
        FloorError: the floor store given for the linked meters cannot be read.
    """
    start = time.perf_counter()
    meta = reader.meta()
    chain_format = meta.get("chain_format")
    if chain_format != CHAIN_FORMAT:
        raise UnverifiableLog(
            f"{reader.path} uses the chain format {chain_format!r}; this ETG verifies "
            f"{CHAIN_FORMAT!r}. Verify it with the ETG that wrote it."
        )
    findings = Findings()
    semantics = _Semantics(findings, sealing_key)
    anchored = None if anchors is None else anchors.anchors(reader.log_id)
    with reader.snapshot():
        integrity_seconds = _check_file(reader, findings)
        _check_meta(reader, findings)
        _check_anchored(reader, anchored, findings)
        total = reader.max_seq()
        pump = _Pump(reader, semantics, findings, total, progress)
        tee = _TeeSource(reader, pump)
        chain = verify_chain(_as_source(tee), public_key, anchors=anchored or ())
        last_seq = chain.last_seq
        semantics.finish(last_seq)
        linked = _check_linked(reader, meters, findings)
        _check_rows(reader, rows, findings)
    for problem in chain.problems:
        check = "checkpoints" if "checkpoint" in problem.reason else "chain"
        if problem.reason.startswith("anchor") or "anchored checkpoint" in problem.reason:
            check = "anchors"
        findings.fail(problem.seq, check, problem.reason)
    hidden = chain.problem_count - len(chain.problems)
    if hidden > 0:
        findings.failure_count["chain"] = findings.failure_count.get("chain", 0) + hidden
    # Events no checkpoint claims to cover (those covered by checkpoints that fail are
    # failures already).
    after = max(chain.last_proven_seq, tee.last_checkpoint_seq)
    if chain.unproven_events and chain.last_seq > after:
        findings.warn(
            after + 1,
            "checkpoints",
            f"{chain.last_seq - after} event(s) after seq {after} (seq {after + 1} to "
            f"{chain.last_seq}) are chained but not covered by any signed checkpoint: they "
            f"could be removed, or the log cut back to seq {after}, without trace. A log still "
            "being written, or whose server stopped without its shutdown checkpoint, ends "
            "like this; a cleanly closed log does not",
        )
    shoes = sum(len(t.shoes) for t in semantics.tables.values())
    counts = VerifyCounts(
        events=chain.events,
        last_seq=last_seq,
        tables=len(semantics.tables),
        rounds=semantics.rounds,
        rounds_replayed=semantics.rounds_replayed,
        shoes=shoes,
        shoes_checked=semantics.shoes_checked,
        cards_checked=semantics.cards_checked,
        checkpoints=chain.checkpoints,
        valid_checkpoints=chain.valid_checkpoints,
        last_proven_seq=chain.last_proven_seq,
        unproven_events=chain.unproven_events,
    )
    failures = findings.ordered(findings.failures)
    warnings = findings.ordered(findings.warnings)
    failure_count = sum(findings.failure_count.values())
    return VerifyReport(
        ok=failure_count == 0,
        first_failure=failures[0] if failures else None,
        failures=failures,
        failure_count=failure_count,
        warnings=warnings,
        counts=counts,
        checks=_summaries(findings, failures, warnings),
        elapsed=time.perf_counter() - start,
        key_id=chain.key_id,
        integrity_seconds=integrity_seconds,
        anchors=None if anchored is None else len(anchored),
        linked=linked,
    )


def _check_linked(
    reader: EventLogReader, meters: MeterAudit | None, findings: Findings
) -> MeterAuditResult | None:
    """The log's linked meter records against the floor store (inside the log's snapshot,
    so the store is read after it: a change the log holds is in the store by then)."""
    if meters is None:
        records = reader.events_of_kind("linked_meter_contributed", "linked_meter_awarded")
        findings.skip("linked", "not checked (no --store)")
        if records:
            findings.warn(
                records[0].seq,
                "linked",
                f"the log holds {len(records)} record(s) of meters linked across the floor "
                "(605a.8) that were not checked against the floor store that holds them: "
                "pass --store",
            )
        return None
    result = meters.audit(reader)
    for seq, reason in result.failures:
        findings.fail(seq, "linked", reason)
    for seq, reason in result.warnings:
        findings.warn(seq, "linked", reason)
    return result


def _check_rows(reader: EventLogReader, rows: MeterAudit | None, findings: Findings) -> None:
    """The log against the floor store's copy of it (``--store``), row by row."""
    if rows is None:
        findings.skip("store", "not checked (no --store)")
        return
    result = rows.audit(reader)
    for seq, reason in result.failures:
        findings.fail(seq, "store", reason)
    for seq, reason in result.warnings:
        findings.warn(seq, "store", reason)


def _check_meta(reader: EventLogReader, findings: Findings) -> None:
    signed = [cp for cp in reader.checkpoints() if cp.meta is not None]
    if not signed:
        findings.warn(
            None,
            "meta",
            "no checkpoint of this log signs its meta and migrations tables (it was written "
            "before schema version 4, or has no checkpoint yet): an edit of them cannot be "
            "detected",
        )
        return
    newest = signed[-1]
    state = reader.state
    now = meta_digest(reader.meta(), reader.applied_migrations())
    if newest.meta != now:
        findings.fail(
            newest.seq,
            "meta",
            f"the meta or migrations table differs from what checkpoint #{newest.number} (seq "
            f"{newest.seq}) signed: it was edited after the log was written (meta now: "
            f"{dict(state.meta)}; migrations: {[name for name, _ in state.migrations]})",
        )


def _check_anchored(
    reader: EventLogReader, anchored: list[Checkpoint] | None, findings: Findings
) -> None:
    if anchored is None:
        findings.warn(
            None,
            "anchors",
            "no anchor stream was given (--anchors): a log cut back to one of its own "
            "checkpoints (its last rounds and their checkpoints removed) cannot be told from "
            "a log that ended there. Verify against the anchor stream the server kept",
        )
        return
    if not anchored:
        findings.warn(
            None,
            "anchors",
            f"the anchor stream holds no checkpoint of this log ({reader.log_id}): it is not "
            "this log's stream, or the log was never anchored",
        )
        return
    for anchor, reason in check_anchors(anchored, reader.checkpoints()):
        findings.fail(anchor.seq, "anchors", reason)


def _as_source(tee: _TeeSource) -> EventSource:
    return tee


def _check_file(reader: EventLogReader, findings: Findings) -> float:
    """SQLite's full integrity check (indexes included) and the triggers; returns the
    seconds the integrity check took."""
    began = time.perf_counter()
    problems = reader.integrity_check(quick=False)
    took = time.perf_counter() - began
    if problems != ["ok"]:
        shown = "; ".join(problems[:5]) + (f" (and {len(problems) - 5} more)" * (len(problems) > 5))
        findings.fail(
            None,
            "file",
            f"SQLite's integrity_check finds the file or an index damaged: {shown} (recall "
            "queries read the indexes: rebuild them with REINDEX on a copy, after keeping this "
            "file as evidence)",
        )
    present = reader.triggers_present()
    missing = sorted(name for name in TRIGGERS if not present.get(name))
    added = sorted(name for name in present if name not in TRIGGERS)
    if missing:
        findings.fail(
            None,
            "triggers",
            f"trigger(s) missing or altered: {', '.join(missing)}; the database no longer "
            "refuses every UPDATE and DELETE (someone with the file dropped or changed them)",
        )
    if added:
        findings.fail(
            None,
            "triggers",
            f"trigger(s) that the schema does not define: {', '.join(added)} (added by hand)",
        )
    return took


def _summaries(
    findings: Findings, failures: tuple[Finding, ...], warnings: tuple[Finding, ...]
) -> tuple[CheckSummary, ...]:
    out = []
    for check, title in CHECKS.items():
        failed = findings.failure_count.get(check, 0)
        warned = findings.warning_count.get(check, 0)
        first = next((f for f in failures if f.check == check), None)
        if first is None:
            first = next((w for w in warnings if w.check == check), None)
        status = "FAIL" if failed else "WARN" if warned else "PASS"
        if status == "PASS" and check in findings.skipped:
            status = "SKIP"
        out.append(CheckSummary(check, title, status, failed, warned, first))
    return tuple(out)
