"""Verification of a whole log: recompute the hash chain and check every checkpoint.

Entry point: :func:`verify_chain`. It is pure recomputation over what an
:class:`~game_server.eventlog.store.EventSource` returns (nothing is trusted: not the stored
hashes, not the triggers), following the exact definitions in
:mod:`game_server.eventlog.chain`. ``etg verify`` adds the trigger check
(:meth:`~game_server.eventlog.reader.EventLogReader.triggers_present`), the shoe commitments
and the replay of rounds.

What it finds, and the sequence number it names (the problems are listed in sequence order;
``first_bad_seq`` is the first):

- a row changed after its hash was written (e.g. triggers dropped, then ``UPDATE``): its seq,
  "the stored hash does not match";
- rows changed and every later hash recomputed to match: the seq of the first checkpoint
  after the change, "checkpoint #n does not match the chain";
- a deleted row: the first missing seq;
- two rows swapped: the lower seq;
- a body that is not canonical JSON of an event, or whose kind differs from the kind column;
- a truncated log whose last checkpoint covers rows that are gone: the first missing seq;
- a page of the database file overwritten (SQLite cannot read it): the first seq that cannot
  be read (a file cut short is refused by SQLite as a whole:
  :meth:`~game_server.eventlog.reader.EventLogReader.open` raises ``LogDamaged``);
- a checkpoint signed by another key, with a bad signature, a gap in checkpoint numbers, or a
  checkpoint that goes backwards: the checkpoint's seq.

It reads the table, not the indexes that recall queries use: ``etg verify`` should also run
:meth:`~game_server.eventlog.reader.EventLogReader.integrity_check`, which compares every
index with the table.

What it cannot find on its own: events appended after the last checkpoint are chained but
not signed, so removing them (or removing them together with the checkpoints that covered
them) leaves a shorter log that verifies. The report gives that unproven tail
(``unproven_events``) and whether the log ends with a checkpoint; pass a checkpoint obtained
elsewhere (shipped to the central server, printed at round close) as an ``anchor`` to prove
the log reaches at least that far.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from typing import Final

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from game_server.eventlog.canonical import body_kind
from game_server.eventlog.chain import GENESIS_HASH, message_of
from game_server.eventlog.errors import LogDamaged
from game_server.eventlog.records import Checkpoint
from game_server.eventlog.store import EventSource
from game_server.keys import key_id

#: Rows verified between two progress calls.
DEFAULT_BATCH: Final = 20_000
#: At most this many problems are listed (the count goes on).
MAX_PROBLEMS: Final = 1_000

#: A progress callback: ``(events verified so far, events in the log)``.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ChainProblem:
    """One thing found wrong.

    Attributes:
        seq: The sequence number concerned.
        reason: A sentence for a human.
    """

    seq: int
    reason: str


@dataclass(frozen=True)
class ChainReport:
    """The outcome of :func:`verify_chain`.

    Attributes:
        ok: True when nothing was found wrong.
        events: Rows read and checked.
        last_seq: The highest sequence number read (0 for an empty log).
        head_hash: The recomputed hash after ``last_seq``.
        checkpoints: Checkpoints read.
        valid_checkpoints: Checkpoints whose signature, key and hash all check.
        last_proven_seq: The highest seq covered by a valid checkpoint (0 if none).
        unproven_events: Events after ``last_proven_seq``: chained but not (yet) signed.
        ends_with_checkpoint: The last event is covered by a valid checkpoint (a clean
            shutdown or round close was the last thing written).
        key_id: The fingerprint of the key the checkpoints were checked against.
        problem_count: How many problems were found (``problems`` lists at most 1,000).
        problems: The problems, in sequence order.
    """

    ok: bool
    events: int
    last_seq: int
    head_hash: str
    checkpoints: int
    valid_checkpoints: int
    last_proven_seq: int
    unproven_events: int
    ends_with_checkpoint: bool
    key_id: str
    problem_count: int
    problems: tuple[ChainProblem, ...] = field(default=())

    @property
    def first_bad_seq(self) -> int | None:
        """The lowest sequence number found at fault, or None when ``ok``."""
        return self.problems[0].seq if self.problems else None

    @property
    def reason(self) -> str | None:
        """The reason of the first problem, or None when ``ok``."""
        return self.problems[0].reason if self.problems else None


class _Problems:
    """Counts every problem and keeps the MAX_PROBLEMS with the lowest seqs."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, ChainProblem]] = []  # (-seq, -order, problem)
        self.count = 0

    def add(self, seq: int, reason: str) -> None:
        self.count += 1
        item = (-seq, -self.count, ChainProblem(seq, reason))
        if len(self._heap) < MAX_PROBLEMS:
            heapq.heappush(self._heap, item)
        elif item > self._heap[0]:
            heapq.heapreplace(self._heap, item)

    @property
    def items(self) -> list[ChainProblem]:
        """The kept problems by seq, in the order found within a seq."""
        return [p for _, _, p in sorted(self._heap, key=lambda i: (-i[0], -i[1]))]


def _check_signatures(
    checkpoints: Sequence[Checkpoint],
    public_key: Ed25519PublicKey,
    expected_key: str,
    problems: _Problems,
    first: int = 1,
) -> list[Checkpoint]:
    """Signature, key and numbering checks; returns the checkpoints that pass them."""
    good = []
    previous_seq = 0
    for index, cp in enumerate(checkpoints, start=first):
        where = f"checkpoint #{cp.number} (seq {cp.seq}, {cp.reason}, {cp.time})"
        if cp.number != index:
            problems.add(
                cp.seq,
                f"{where}: checkpoint number {index} is missing before it (checkpoints were "
                "deleted)"
                if cp.number > index
                else f"{where}: numbered out of order",
            )
        if cp.key_id != expected_key:
            problems.add(
                cp.seq,
                f"{where} is signed by key {cp.key_id}, not by the expected key {expected_key}",
            )
            continue
        try:
            public_key.verify(bytes.fromhex(cp.signature), message_of(cp))
        except (InvalidSignature, ValueError):
            problems.add(
                cp.seq,
                f"{where}: the signature does not verify with key {expected_key} (the checkpoint "
                "was altered or forged)",
            )
            continue
        if cp.seq < previous_seq:
            problems.add(cp.seq, f"{where} covers less than the checkpoint before it")
        previous_seq = max(previous_seq, cp.seq)
        good.append(cp)
    return good


def verify_chain(
    source: EventSource,
    public_key: Ed25519PublicKey,
    progress: Progress | None = None,
    *,
    anchors: Iterable[Checkpoint] = (),
    batch: int = DEFAULT_BATCH,
    start: Checkpoint | None = None,
) -> ChainReport:
    """Recompute the whole hash chain of a log and check every checkpoint against it.

    All reads happen in one snapshot of the log, so it can run while the server appends.

    Args:
        source: The log (an :class:`~game_server.eventlog.reader.EventLogReader`).
        public_key: The log-signing public key (``certs/log-signing.pub``).
        progress: Called after each batch with (events checked, events in the log).
        anchors: Checkpoints known from outside the file, which must verify and match too
            (they prove the log was not cut back to before them).
        batch: Rows per batch.
        start: A checkpoint already proven (the last anchored one, when a server starts):
            the walk begins after it, from its hash, once the stored hash at its seq is
            found equal to it; earlier rows and checkpoints are not read again.

    Returns:
        The report; ``report.ok`` is the verdict, ``report.first_bad_seq`` and
        ``report.reason`` the first problem.
    """
    problems = _Problems()
    expected_key = key_id(public_key)
    first = 1 if start is None else start.number
    with source.snapshot():
        total = _safe_max_seq(source, problems)
        stored_cps = [cp for cp in _read_checkpoints(source, problems) if cp.number >= first]
        stored_set = set(stored_cps)
        valid = _check_signatures(stored_cps, public_key, expected_key, problems, first)
        extra = [cp for cp in anchors if cp not in stored_set]
        if start is not None:
            extra = [cp for cp in extra if cp.seq >= start.seq]
        valid_anchors = _check_anchors(extra, public_key, expected_key, source, problems)
        by_seq: dict[int, list[Checkpoint]] = {}
        for cp in valid + valid_anchors:
            by_seq.setdefault(cp.seq, []).append(cp)
        walked = _walk(source, by_seq, problems, progress, total, batch, start)
    events, last_seq, head, matched, damaged = walked
    beyond = [cp for cp in valid + valid_anchors if cp.seq > last_seq]
    if beyond and not damaged:
        cp = min(beyond, key=lambda c: (c.seq, c.number))
        last = max(beyond, key=lambda c: (c.seq, c.number))
        what = "checkpoint" if cp in stored_set else "anchored checkpoint"
        problems.add(
            last_seq + 1,
            f"the log is truncated: {what} #{cp.number} ({cp.reason}, {cp.time}) covers "
            f"events up to seq {cp.seq}, but the log ends at seq {last_seq} "
            f"({len(beyond)} signed checkpoint(s) cover missing events, the last up to seq "
            f"{last.seq})",
        )
    last_proven = max((cp.seq for cp in matched), default=0)
    return ChainReport(
        ok=problems.count == 0,
        events=events,
        last_seq=last_seq,
        head_hash=head,
        checkpoints=len(stored_cps),
        valid_checkpoints=sum(1 for cp in matched if cp in stored_set),
        last_proven_seq=last_proven,
        unproven_events=max(0, last_seq - last_proven),
        ends_with_checkpoint=bool(matched) and last_proven == last_seq,
        key_id=expected_key,
        problem_count=problems.count,
        problems=tuple(problems.items),
    )


def _safe_max_seq(source: EventSource, problems: _Problems) -> int:
    try:
        return source.max_seq()
    except LogDamaged as exc:
        problems.add(1, f"the highest sequence number cannot be read: {exc}")
        return 0


def _read_checkpoints(source: EventSource, problems: _Problems) -> list[Checkpoint]:
    found: list[Checkpoint] = []
    try:
        for cp in source.iter_checkpoints():
            found.append(cp)
    except LogDamaged as exc:
        after = found[-1].seq + 1 if found else 1
        problems.add(
            after,
            f"checkpoints after #{len(found)} cannot be read, so events from seq {after} on "
            f"are not proven: {exc}",
        )
    return found


def _check_anchors(
    anchors: Sequence[Checkpoint],
    public_key: Ed25519PublicKey,
    expected_key: str,
    source: EventSource,
    problems: _Problems,
) -> list[Checkpoint]:
    good = []
    for cp in anchors:
        where = f"anchor checkpoint #{cp.number} (seq {cp.seq})"
        if cp.log_id != source.log_id:
            problems.add(cp.seq, f"{where} belongs to log {cp.log_id}, not {source.log_id}")
            continue
        if cp.key_id != expected_key:
            problems.add(cp.seq, f"{where} is signed by key {cp.key_id}, not {expected_key}")
            continue
        try:
            public_key.verify(bytes.fromhex(cp.signature), message_of(cp))
        except (InvalidSignature, ValueError):
            problems.add(cp.seq, f"{where}: the signature does not verify")
            continue
        good.append(cp)
    return good


def _stored_hash(source: EventSource, seq: int) -> str | None:
    """The stored hash of event ``seq``, or None if there is no such event."""
    try:
        for rows in source.row_batches(seq, 1):
            for row in rows:
                return row[7] if row[0] == seq else None
    except LogDamaged:
        return None
    return None


def _resync(stored: object, fallback: bytes) -> bytes:
    """The stored hash as bytes if it is 64 hex digits, else ``fallback``."""
    if isinstance(stored, str) and len(stored) == 64:
        try:
            return bytes.fromhex(stored)
        except ValueError:
            pass
    return fallback


def _genesis_checkpoints(
    by_seq: dict[int, list[Checkpoint]], problems: _Problems
) -> list[Checkpoint]:
    """The checkpoints at seq 0 that carry the genesis hash (the others are problems)."""
    matched: list[Checkpoint] = []
    for cp in by_seq.get(0, ()):
        if cp.hash == GENESIS_HASH:
            matched.append(cp)
        else:
            problems.add(0, f"checkpoint #{cp.number} at seq 0 does not carry the genesis hash")
    return matched


def _begin_at(
    source: EventSource,
    start: Checkpoint | None,
    problems: _Problems,
    matched: list[Checkpoint],
) -> tuple[bytes, int] | int:
    """Where the walk begins: the hash before it and the first seq to read (the genesis, or
    the anchored checkpoint ``start``, added to ``matched``); or, when the log does not match
    ``start``, the last seq read (the problem added)."""
    if start is None or start.seq <= 0:
        return bytes(32), 1
    at = _stored_hash(source, start.seq)
    if at != start.hash:
        problems.add(
            start.seq,
            f"the log does not match checkpoint #{start.number} ({start.reason}, "
            f"{start.time}) at seq {start.seq}: "
            + ("the event is missing" if at is None else "its stored hash differs"),
        )
        return start.seq - 1 if at is None else start.seq
    matched.append(start)
    return bytes.fromhex(start.hash), start.seq + 1


def _out_of_sequence(seq: int, expect: int, problems: _Problems) -> bool:
    """A row whose seq is not the one expected: a gap (deleted rows; True) or a row out of
    order (False), added to the problems."""
    if seq > expect:
        last = f"s {expect} to {seq - 1} are" if seq - 1 > expect else f" {expect} is"
        problems.add(expect, f"event{last} missing (deleted rows)")
        return True
    problems.add(seq, f"event {seq} appears out of order")
    return False


def _changed(seq: int) -> str:
    """What a row whose stored hash does not match is reported as."""
    return (
        f"event {seq}: the stored hash does not match its content and the hash before it "
        "(this row was changed, or the hash of the row before it was; or rows were swapped "
        "or inserted)"
    )


def _not_canonical(seq: int, kind: str) -> str:
    """What a row whose body is not its kind's canonical JSON is reported as."""
    return f"event {seq}: the body is not the canonical JSON of an event of kind {kind!r}"


def _match_checkpoints(
    seq: int,
    computed: str,
    cps: list[Checkpoint],
    matched: list[Checkpoint],
    problems: _Problems,
) -> None:
    """The checkpoints signed at ``seq`` against the chain's hash there (``computed``)."""
    for cp in cps:
        if cp.hash == computed:
            matched.append(cp)
        else:
            problems.add(
                seq,
                f"checkpoint #{cp.number} ({cp.reason}, {cp.time}) does not match the chain "
                f"at seq {seq}: events up to {seq} were changed after it was signed",
            )


def _walk(
    source: EventSource,
    by_seq: dict[int, list[Checkpoint]],
    problems: _Problems,
    progress: Progress | None,
    total: int,
    batch: int,
    start: Checkpoint | None = None,
) -> tuple[int, int, str, list[Checkpoint], bool]:
    """Stream every row (after ``start``), recompute its hash, check its body, and match
    checkpoints.

    Returns:
        (rows read, last seq read, recomputed head hash, checkpoints that matched, whether
        reading stopped at a damaged page).
    """
    sha256 = hashlib.sha256
    enc = encode_basestring
    check_body = body_kind
    quoted: dict[str, str] = {}
    matched = _genesis_checkpoints(by_seq, problems)
    events = 0
    after_gap = False
    begun = _begin_at(source, start, problems, matched)
    if isinstance(begun, int):
        return 0, begun, bytes(32).hex(), matched, False
    prev, expect = begun
    try:
        for rows in source.row_batches(expect, batch):
            for row in rows:
                seq, time, table_id, round_id, terminal, kind, body, stored = row
                try:
                    if seq != expect:
                        after_gap = _out_of_sequence(seq, expect, problems) or after_gap
                    kq = quoted.get(kind)
                    if kq is None:
                        kq = quoted[kind] = enc(kind)
                    tq = quoted.get(table_id)
                    if tq is None:
                        tq = quoted[table_id] = enc(table_id)
                    if terminal is None:
                        mq = "null"
                    else:
                        mq = quoted.get(terminal) or quoted.setdefault(terminal, enc(terminal))
                    rnd = "null" if round_id is None else round_id
                    entry = (
                        f'{{"body":{body},"kind":{kq},"round":{rnd},"seq":{seq},"table":{tq},'
                        f'"terminal":{mq},"time":{enc(time)}}}'
                    )
                    digest = sha256(prev + entry.encode()).digest()
                    computed = digest.hex()
                    if computed != stored:
                        if not after_gap:
                            problems.add(seq, _changed(seq))
                        # Carry on from the stored hash, so that one changed row is
                        # reported once and what follows is still checked.
                        prev = _resync(stored, digest)
                    else:
                        prev = digest
                    after_gap = False
                    if check_body(body) != kind:
                        problems.add(seq, _not_canonical(seq, kind))
                    cps = by_seq.get(seq)
                    if cps:
                        _match_checkpoints(seq, computed, cps, matched, problems)
                except (TypeError, ValueError, AttributeError, UnicodeError) as exc:
                    # Only a table rebuilt without STRICT can hold values of other types.
                    problems.add(
                        seq if isinstance(seq, int) else expect,
                        f"event {seq!r} has values of the wrong types ({exc})",
                    )
                    prev = _resync(stored, prev)
                events += 1
                expect = (seq if isinstance(seq, int) else expect) + 1
            if progress is not None:
                progress(events, total)
    except LogDamaged as exc:
        problems.add(expect, f"events from seq {expect} on cannot be read: {exc}")
        return events, expect - 1, prev.hex(), matched, True
    return events, expect - 1, prev.hex(), matched, False
