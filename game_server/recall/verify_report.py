"""What ``etg verify`` reports (:func:`game_server.recall.verify.verify_log`): the checks in
the order a report lists them, each failure or warning (:class:`Finding`), the summary of each
check, the counts and the report itself.

Entry points: :class:`VerifyReport`, :data:`CHECKS`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from shared.errors import ETGError

if TYPE_CHECKING:
    from game_server.eventlog import EventLogReader

#: The checks, in the order a report lists them, with a title for people.
CHECKS: Final[dict[str, str]] = {
    "file": "SQLite file and index integrity (integrity_check)",
    "meta": "meta and migrations tables signed",
    "anchors": "anchored checkpoints in the log",
    "triggers": "append-only triggers present",
    "chain": "hash chain of every event",
    "checkpoints": "signed checkpoints (Ed25519)",
    "shoes": "shoe commitments and reveals",
    "cards": "dealt cards are the shoe's cards",
    "replay": "rounds replay through the rules",
    "rounds": "round ids, config, shoe positions, terminals",
    "requests": "request ids logged with the step they took effect in",
    "ledger": "logged balances equal the ledger fold",
    "conservation": "money is conserved",
    "events": "every event decodes",
    "linked": "linked meters agree with the floor store",
    "store": "the floor store's copy is the log's, row by row",
}
_CHECK_ORDER: Final = {name: index for index, name in enumerate(CHECKS)}

#: At most this many failures (and as many warnings) are listed, the lowest seqs first; the
#: counts go on.
MAX_FAILURES: Final = 1_000


@dataclass
class MeterAuditResult:
    """What a :class:`MeterAudit` found: failures and warnings as (seq or None, reason),
    how many linked records of the log it checked and how many meters' histories."""

    failures: list[tuple[int | None, str]] = field(default_factory=list)
    warnings: list[tuple[int | None, str]] = field(default_factory=list)
    checked: int = 0
    meters: int = 0


class MeterAudit(Protocol):
    """Checks a log's linked meter records against the floor store that holds the meters
    (:class:`game_server.floor.meter_audit.StoreMeterAudit`)."""

    def audit(self, reader: EventLogReader) -> MeterAuditResult:
        """Check the log read by ``reader`` (inside its snapshot)."""
        ...


class UnverifiableLog(ETGError):
    """A log this build cannot verify at all (another chain format): unusable input."""


@dataclass(frozen=True)
class Finding:
    """One failure or warning.

    Attributes:
        seq: The sequence number of the event at fault; None for the file as a whole.
        check: The check that found it (a key of :data:`CHECKS`).
        reason: A sentence for a human.
    """

    seq: int | None
    check: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        """``{"seq": n | null, "check": ..., "reason": ...}``."""
        return {"seq": self.seq, "check": self.check, "reason": self.reason}


@dataclass(frozen=True)
class CheckSummary:
    """How one check went, for the summary table.

    Attributes:
        check: Its name (a key of :data:`CHECKS`).
        title: What it checks.
        status: ``"PASS"``, ``"FAIL"``, ``"WARN"`` (passed, with warnings) or ``"SKIP"`` (not
            checked: what it needs was not given).
        failures: How many failures it found.
        warnings: How many warnings it gave.
        first: Its failure (or, without one, its warning) with the lowest seq.
    """

    check: str
    title: str
    status: str
    failures: int
    warnings: int
    first: Finding | None


@dataclass(frozen=True)
class VerifyCounts:
    """What was checked.

    Attributes:
        events: Events read (rows of the hash chain).
        last_seq: The highest sequence number read.
        tables: Tables seen.
        rounds: Rounds found in the log.
        rounds_replayed: Rounds replayed through the rules without a difference.
        shoes: Shoes committed.
        shoes_checked: Shoes whose order was regenerated and matched its commitment.
        cards_checked: Dealt or revealed cards compared with their shoe.
        checkpoints: Checkpoints stored.
        valid_checkpoints: Checkpoints whose signature verifies and that match the chain.
        last_proven_seq: The highest seq a valid checkpoint covers.
        unproven_events: Events after ``last_proven_seq``.
    """

    events: int = 0
    last_seq: int = 0
    tables: int = 0
    rounds: int = 0
    rounds_replayed: int = 0
    shoes: int = 0
    shoes_checked: int = 0
    cards_checked: int = 0
    checkpoints: int = 0
    valid_checkpoints: int = 0
    last_proven_seq: int = 0
    unproven_events: int = 0

    def to_json(self) -> dict[str, int]:
        """The counts as a dict of ints."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


@dataclass(frozen=True)
class VerifyReport:
    """The outcome of :func:`verify_log`.

    Attributes:
        ok: True when every check passed (warnings allowed).
        first_failure: The failure with the lowest seq (a fault of the whole file first).
        failures: The failures, lowest seq first (at most :data:`MAX_FAILURES`).
        failure_count: How many failures were found in all.
        warnings: What could not be proven, lowest seq first (at most :data:`MAX_FAILURES`).
        counts: What was checked.
        checks: One summary per check, in :data:`CHECKS` order.
        elapsed: Seconds the verification took.
        key_id: The fingerprint of the public key the checkpoints were checked against.
        integrity_seconds: Seconds SQLite's full ``integrity_check`` took (part of
            ``elapsed``).
        anchors: Anchored checkpoints of this log that were checked (None: no anchor stream
            was given).
        linked: What the check of the linked meters against the floor store covered (None:
            no store was given).
    """

    ok: bool
    first_failure: Finding | None
    failures: tuple[Finding, ...]
    failure_count: int
    warnings: tuple[Finding, ...]
    counts: VerifyCounts
    checks: tuple[CheckSummary, ...]
    elapsed: float
    key_id: str
    integrity_seconds: float = 0.0
    anchors: int | None = None
    linked: MeterAuditResult | None = None

    @property
    def events_per_second(self) -> float:
        """Events verified per second of :attr:`elapsed`."""
        return self.counts.events / self.elapsed if self.elapsed > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """The ``etg verify --json`` document (deterministic: no timing in it)."""
        return {
            "ok": self.ok,
            "first_failure": None if self.first_failure is None else self.first_failure.to_json(),
            "failures": [f.to_json() for f in self.failures],
            "failure_count": self.failure_count,
            "warnings": [w.to_json() for w in self.warnings],
            "counts": self.counts.to_json(),
            "key_id": self.key_id,
            "anchors": self.anchors,
            "linked_meters": None
            if self.linked is None
            else {"records": self.linked.checked, "meters": self.linked.meters},
        }


def _sort_key(finding: Finding) -> tuple[int, int]:
    """Lowest seq first (a fault of the whole file before any), then in :data:`CHECKS` order."""
    seq = -1 if finding.seq is None else finding.seq
    return (seq, _CHECK_ORDER.get(finding.check, len(_CHECK_ORDER)))


class Findings:
    """Failures and warnings, each kept to the MAX_FAILURES lowest seqs, with counts."""

    def __init__(self) -> None:
        self.failures: list[Finding] = []
        self.warnings: list[Finding] = []
        self.failure_count: dict[str, int] = {}
        self.warning_count: dict[str, int] = {}
        #: Checks that did not run, with why (``"not checked (no --store)"``).
        self.skipped: dict[str, str] = {}

    def skip(self, check: str, why: str) -> None:
        """``check`` did not run (reported as ``SKIP``, never as a pass)."""
        self.skipped[check] = why

    def fail(self, seq: int | None, check: str, reason: str) -> None:
        self.failure_count[check] = self.failure_count.get(check, 0) + 1
        self._keep(self.failures, Finding(seq, check, reason))

    def warn(self, seq: int | None, check: str, reason: str) -> None:
        self.warning_count[check] = self.warning_count.get(check, 0) + 1
        self._keep(self.warnings, Finding(seq, check, reason))

    @staticmethod
    def _keep(items: list[Finding], finding: Finding) -> None:
        items.append(finding)
        if len(items) >= 2 * MAX_FAILURES:
            items.sort(key=_sort_key)
            del items[MAX_FAILURES:]

    @staticmethod
    def ordered(items: list[Finding]) -> tuple[Finding, ...]:
        # sorted() is stable: within one seq and check, the order found is kept.
        return tuple(sorted(items, key=_sort_key)[:MAX_FAILURES])
