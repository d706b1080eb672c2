"""Linked meters (605a.8) checked against the floor store, for ``etg verify DB --store URL``:
the store's own history of each meter, and a table log's linked meter records against it.

The store (``0004-meters``, :mod:`game_server.floor.schema`) holds each linked meter's
history as ``meter_steps`` rows (the meter's sequence number ``seq``, what changed, the state
after), the claims of its awards (``meter_claims``: which table, round, step and places) and
the awards (``meter_awards``: the percentage). A table's log records each change it made
as :class:`~game_server.rules.meters.LinkedMeterContributed` or
:class:`~game_server.rules.meters.LinkedMeterAwarded` with the store's ``store_seq`` and its
step key. What is checked, all read as the investigator (SELECT only) in one snapshot of the
store taken after the log's:

**The store's history** (:func:`check_history`), for every meter the log names or whose
rows name one of its tables: ``seq`` runs 1, 2, 3, ... with no gap; row 1 opens the meter
at its seed and no other row does; every row's figures follow from the row before by the
rules' own arithmetic (a :class:`~game_server.rules.meters.Meter` folded with
:meth:`~game_server.rules.meters.Meter.contribution`,
:meth:`~game_server.rules.meters.Meter.award_shared` and its reseed): a contribution's
increment, secondary and kept, an award's share ``floor(percent of amount / winners)`` with
the leftover kept in the meter, a reseed from the reserve first and then the house, exactly
when an award left the meter below its reseed; the never-reset totals (wagered,
contributed, reserved, house funded, paid, hits) and the conservation invariant
``contributed + reserved + house_funded == amount + reserve + 1000 * paid``; an award's
percentage is its ``meter_awards`` row's, its winners the number of places its claims name.

**The log against the store** (:func:`check_log`): every linked record of the log has its
store row ``(meter, store_seq)``, and they agree on the table and round (the record's
envelope), the step key, and every figure (a contribution's place, wager, increment,
secondary, kept, amount and reserve; an award's award id, percent, share, winners and
amount, and the claim of the log's table, round and step names the same award and places).
Two records of the log naming one store change fail.

**The store against the log**, every store change naming one of the log's tables (a
contribution's row, an award's claim) must be a record of the log. A table server commits
the change in the store first and appends it to its log after; a crash in between leaves
a store change that the log does not hold yet. The table's recovery resumes that round and
asks again with the same step key (:class:`~game_server.floor.meters.TableMeters`), and the
store answers what it did the first time, which the log then records. So the rule is:

- a change for a round the log has not started yet (the log copy is behind the store), or
  for the log's last round while it is not closed (``round_closed``): a warning, the log
  may still record it;
- a change for a round the log closed (or a round before its last): a failure, filed at
  the round's ``round_closed``. The round is over, and the store holds a meter change its
  table never recorded: a wager fed the meter, or a claim took a share of an award, that no
  wallet of the log saw (a crash whose retry did not ask for the same step again, a row
  written by hand, or another log of the same table id).

Entry points: :class:`StoreMeterAudit` (what ``etg verify --store`` runs), :func:`read_meters`,
:func:`check_history`, :func:`check_log`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Final

from game_server.eventlog.reader import EventLogReader
from game_server.floor.store import FloorStore, redacted
from game_server.recall.rounds import decode
from game_server.recall.verify_report import MeterAuditResult
from game_server.rules.meters import (
    LinkedMeterAwarded,
    LinkedMeterContributed,
    Meter,
    MeterAwarded,
    MeterError,
    MeterReseeded,
    apply,
)
from game_server.rules.wagers.base import MeterSpec

#: The kinds of a log's linked meter records.
LINKED_KINDS: Final = ("linked_meter_contributed", "linked_meter_awarded")
#: The never-reset totals every ``meter_steps`` row carries, as the rules' Meter names them.
TOTALS: Final = ("amount", "reserve", "wagered", "contributed", "reserved", "house_funded")


@dataclass(frozen=True)
class StepRow:
    """One ``floor.meter_steps`` row (millicents but ``wager``, ``share``, ``paid``: cents)."""

    seq: int
    kind: str
    table_id: str | None
    round_id: int | None
    step: str | None
    place: str | None
    wager: int | None
    increment: int | None
    secondary: int | None
    kept: int | None
    award: int | None
    percent: int | None
    share: int | None
    winners: int | None
    from_reserve: int | None
    from_house: int | None
    amount: int
    reserve: int
    wagered: int
    contributed: int
    reserved: int
    house_funded: int
    paid: int
    hits: int


_STEP_SELECT: Final = ", ".join(f.name for f in fields(StepRow))


@dataclass(frozen=True)
class ClaimRow:
    """One ``floor.meter_claims`` row: a table's claim of an award for its places."""

    award: int
    position: int
    table_id: str
    round_id: int
    step: str
    places: tuple[str, ...]


@dataclass(frozen=True)
class StoredMeter:
    """A linked meter as the store holds it: its specification, every step in ``seq``
    order, every claim, and each award's percentage."""

    meter_id: str
    spec: MeterSpec
    steps: tuple[StepRow, ...]
    claims: tuple[ClaimRow, ...]
    percents: Mapping[int, int]


@dataclass(frozen=True)
class MeterProblem:
    """Something wrong with a meter's history in the store: at its row ``store_seq``."""

    meter_id: str
    store_seq: int
    reason: str


def read_meters(
    store: FloorStore, meter_ids: Collection[str] | None, tables: Collection[str] = ()
) -> dict[str, StoredMeter]:
    """The linked meters of the store, in one read-only snapshot: those of ``meter_ids``
    and those with a step or a claim of one of ``tables`` (None: every meter). A meter id
    the store does not hold is left out.

    Raises:
        StoreUnavailable: the store cannot be reached or read.
        StoreRefused: the role may not read the meter tables.
    """
    with store.snapshot("reading the linked meters") as conn:
        if meter_ids is None:
            ids = [row[0] for row in conn.execute("SELECT meter_id FROM floor.meters")]
        else:
            named = conn.execute(
                "SELECT meter_id FROM floor.meter_steps WHERE table_id = ANY(%s) UNION "
                "SELECT meter_id FROM floor.meter_claims WHERE table_id = ANY(%s)",
                (list(tables), list(tables)),
            ).fetchall()
            ids = sorted({*meter_ids, *(row[0] for row in named)})
        specs = conn.execute(
            "SELECT meter_id, name, seed, reseed, increment_bp, secondary_bp "
            "FROM floor.meters WHERE meter_id = ANY(%s)",
            (ids,),
        ).fetchall()
        steps: dict[str, list[StepRow]] = {}
        for row in conn.execute(
            f"SELECT meter_id, {_STEP_SELECT} FROM floor.meter_steps WHERE meter_id = ANY(%s) "
            "ORDER BY meter_id, seq",
            (ids,),
        ):
            steps.setdefault(row[0], []).append(StepRow(*row[1:]))
        claims: dict[str, list[ClaimRow]] = {}
        for row in conn.execute(
            "SELECT meter_id, award, position, table_id, round_id, step, places "
            "FROM floor.meter_claims WHERE meter_id = ANY(%s) ORDER BY meter_id, award, position",
            (ids,),
        ):
            meter_id, award, position, table_id, round_id, step, places = row
            claims.setdefault(meter_id, []).append(
                ClaimRow(award, position, table_id, round_id, step, tuple(places))
            )
        percents: dict[str, dict[int, int]] = {}
        for meter_id, award, percent in conn.execute(
            "SELECT meter_id, award, percent FROM floor.meter_awards WHERE meter_id = ANY(%s)",
            (ids,),
        ):
            percents.setdefault(meter_id, {})[award] = percent
    return {
        meter_id: StoredMeter(
            meter_id,
            MeterSpec(name, seed, reseed, increment_bp, secondary_bp),
            tuple(steps.get(meter_id, ())),
            tuple(claims.get(meter_id, ())),
            percents.get(meter_id, {}),
        )
        for meter_id, name, seed, reseed, increment_bp, secondary_bp in specs
    }


# ----------------------------------------------------------------------------- the history


class _Stop(Exception):
    """The history cannot be followed past this row (its state is unknown after it)."""

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(reason)
        self.seq = seq
        self.reason = reason


def _agree(row: StepRow, what: str, expected: Mapping[str, int | None]) -> None:
    """Raise :class:`_Stop` naming the first field of ``row`` that differs from
    ``expected``."""
    for name, value in expected.items():
        stored = getattr(row, name)
        if stored != value:
            raise _Stop(
                row.seq, f"{name} is {stored}, but {what} by the rules' arithmetic gives {value}"
            )


def _totals(row: StepRow, meter: Meter) -> None:
    """The row's state is the folded meter's, and balances on its own."""
    own = replace(
        meter,
        **{name: getattr(row, name) for name in TOTALS},
        paid=row.paid,
        hits=row.hits,
    )
    if not own.balanced():
        raise _Stop(
            row.seq,
            f"it does not balance: contributed {row.contributed} + reserved {row.reserved} + "
            f"house funded {row.house_funded} != amount {row.amount} + reserve {row.reserve} "
            f"+ 1000 * paid {row.paid} (millicents)",
        )
    expected: dict[str, int | None] = {name: getattr(meter, name) for name in TOTALS}
    expected.update(paid=meter.paid, hits=meter.hits)
    _agree(row, "the row before it", expected)


def check_history(meter: StoredMeter) -> list[MeterProblem]:
    """Walk ``meter``'s steps in ``seq`` order with the rules' arithmetic (module docstring).

    The walk stops at the first row that does not follow (the meter's state after it is
    unknown), saying so; a history with no row at all is one problem.
    """
    problems: list[MeterProblem] = []
    if not meter.steps:
        return [MeterProblem(meter.meter_id, 0, "the store holds the meter but no step of it")]
    claimed: dict[int, int] = {}
    for claim in meter.claims:
        claimed[claim.award] = claimed.get(claim.award, 0) + len(claim.places)
    folded = Meter(meter.meter_id, meter.spec)
    reseed: tuple[int, MeterReseeded] | None = None  # (award, the reseed it needs)
    try:
        for expected_seq, row in enumerate(meter.steps, start=1):
            if row.seq != expected_seq:
                raise _Stop(
                    row.seq,
                    f"it follows seq {expected_seq - 1}: the meter's history has a gap (seq "
                    f"{expected_seq} to {row.seq - 1} missing)",
                )
            if reseed is not None and row.kind != "reseeded":
                raise _Stop(
                    row.seq,
                    f"award {reseed[0]} left the meter below its reseed, so this row must be "
                    f"its reseed, not a {row.kind} row",
                )
            folded, reseed = _follow(meter, folded, row, reseed, claimed)
            _totals(row, folded)
        if reseed is not None:
            raise _Stop(
                meter.steps[-1].seq,
                f"award {reseed[0]} left the meter below its reseed and no reseed row follows",
            )
    except _Stop as stop:
        problems.append(
            MeterProblem(
                meter.meter_id,
                stop.seq,
                f"the store's linked meter {meter.meter_id} at seq {stop.seq}: {stop.reason}"
                + ("; its later rows are not checked" if stop.seq < meter.steps[-1].seq else ""),
            )
        )
    return problems


def _follow(
    meter: StoredMeter,
    folded: Meter,
    row: StepRow,
    reseed: tuple[int, MeterReseeded] | None,
    claimed: Mapping[int, int],
) -> tuple[Meter, tuple[int, MeterReseeded] | None]:
    """The meter after ``row`` (checked against the rules' plan), and the reseed the row's
    award needs next, if any."""
    try:
        if row.seq == 1 or row.kind == "opened":
            if row.seq != 1 or row.kind != "opened":
                raise _Stop(row.seq, f"a {row.kind} row: only seq 1 opens the meter, and it must")
            return Meter.open(meter.meter_id, meter.spec).meter, None
        if row.kind == "contributed":
            plan = folded.contribution(row.wager or 0, row.place or "")
            _agree(
                row,
                f"a wager of {row.wager} cents",
                {
                    "increment": plan.increment,
                    "secondary": plan.secondary,
                    "kept": plan.kept,
                    "amount": plan.amount,
                    "reserve": plan.reserve,
                },
            )
            return apply(folded, plan), None
        if row.kind == "awarded":
            return _award(meter, folded, row, claimed)
        if row.kind == "reseeded":
            if reseed is None:
                raise _Stop(row.seq, "a reseed that no award before it needs")
            award, planned = reseed
            _agree(
                row,
                f"the reseed after award {award}",
                {
                    "award": award,
                    "from_reserve": planned.from_reserve,
                    "from_house": planned.from_house,
                    "amount": planned.amount,
                    "reserve": planned.reserve,
                },
            )
            return apply(folded, planned), None
    except MeterError as exc:  # a wager, share or specification the rules refuse
        raise _Stop(row.seq, str(exc)) from None
    raise _Stop(row.seq, f"a row of kind {row.kind!r}")


def _award(
    meter: StoredMeter, folded: Meter, row: StepRow, claimed: Mapping[int, int]
) -> tuple[Meter, tuple[int, MeterReseeded] | None]:
    award = row.award if row.award is not None else 0
    percent = meter.percents.get(award)
    if percent is None:
        raise _Stop(row.seq, f"award {row.award} has no meter_awards row")
    if row.percent != percent:
        raise _Stop(row.seq, f"percent is {row.percent}, but award {award} is of {percent}%")
    winners = claimed.get(award, 0)
    if row.winners != winners:
        raise _Stop(
            row.seq,
            f"winners is {row.winners}, but the claims of award {award} name {winners} place(s)",
        )
    step = folded.award_shared(percent, [f"#{n}" for n in range(1, winners + 1)])
    paid, *after = step.events
    assert isinstance(paid, MeterAwarded)
    _agree(
        row,
        f"{percent}% of the meter shared by {winners} place(s)",
        {"share": paid.share, "amount": paid.amount},
    )
    planned = after[0] if after else None
    assert planned is None or isinstance(planned, MeterReseeded)
    return apply(folded, paid), None if planned is None else (award, planned)


# ----------------------------------------------------------------------------- the log


@dataclass(frozen=True)
class LoggedLink:
    """A linked meter record of the log, with its envelope."""

    seq: int
    table_id: str
    round_id: int | None
    event: LinkedMeterContributed | LinkedMeterAwarded


@dataclass(frozen=True)
class LogRounds:
    """Where each table of the log stands: its last round started, and whether the log
    closed that round (``round_closed``); every round before it is over."""

    tables: frozenset[str]
    last: Mapping[str, int]
    last_closed: frozenset[str]
    #: The log's seq of a round's ``round_closed`` (None when it has none): where a store
    #: change the closed round lacks is reported.
    closed_at: Callable[[str, int], int | None] = lambda table_id, round_id: None

    def status(self, table_id: str, round_id: int) -> str | None:
        """None when the log has closed the round (or started a later one); else why the
        log may not hold its changes yet."""
        last = self.last.get(table_id, 0)
        if round_id > last:
            return f"the log has not started round {round_id} (its last is {last})"
        if round_id == last and table_id not in self.last_closed:
            return f"round {round_id} is the log's last and is not closed"
        return None


def read_log(reader: EventLogReader) -> tuple[list[LoggedLink], LogRounds]:
    """The log's linked meter records and where its tables' rounds stand (a few indexed
    queries: the linked records, the tables, each table's last round)."""
    links = []
    for stored in reader.events_of_kind(*LINKED_KINDS):
        ev = decode(stored)
        assert isinstance(ev, LinkedMeterContributed | LinkedMeterAwarded)
        links.append(LoggedLink(stored.seq, stored.table_id, stored.round_id, ev))
    tables = {stored.table_id for stored in reader.events_of_kind("table_opened")}
    last = {
        str(table_id): int(round_id)
        for table_id, round_id in reader.select(
            "SELECT table_id, max(round_id) FROM events WHERE kind = 'round_started' "
            "GROUP BY table_id",
            (),
        )
        if round_id is not None
    }

    def closed_at(table_id: str, round_id: int) -> int | None:
        rows = reader.select(
            "SELECT min(seq) FROM events WHERE table_id = ? AND round_id = ? "
            "AND kind = 'round_closed'",
            (table_id, round_id),
        )
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    closed = {table_id for table_id, round_id in last.items() if closed_at(table_id, round_id)}
    return links, LogRounds(frozenset(tables), last, frozenset(closed), closed_at)


def _differ(stored: Mapping[str, Any], logged: Mapping[str, Any]) -> str | None:
    """The first field of ``logged`` that ``stored`` does not hold, as a sentence."""
    for name, value in logged.items():
        if stored[name] != value:
            return f"the log records {name} {value!r} but the store's row says {stored[name]!r}"
    return None


def check_log(
    links: Iterable[LoggedLink], rounds: LogRounds, meters: Mapping[str, StoredMeter]
) -> MeterAuditResult:
    """The log's linked records against the store's rows, both ways (module docstring)."""
    result = MeterAuditResult()
    by_seq = {m: {row.seq: row for row in meter.steps} for m, meter in meters.items()}
    claims = {
        (m, c.table_id, c.round_id, c.step): c for m, meter in meters.items() for c in meter.claims
    }
    seen_steps: dict[tuple[str, int], int] = {}
    seen_claims: dict[tuple[str, str, int, str], int] = {}
    for link in links:
        result.checked += 1
        ev = link.event
        where = f"linked meter {ev.meter} store seq {ev.store_seq}"
        if ev.meter not in meters:
            result.failures.append(
                (link.seq, f"{where}: the floor store holds no linked meter {ev.meter}")
            )
            continue
        row = by_seq[ev.meter].get(ev.store_seq)
        if row is None:
            result.failures.append(
                (link.seq, f"{where}: the store has no such row (the change is missing)")
            )
            continue
        if isinstance(ev, LinkedMeterContributed):
            again = seen_steps.setdefault((ev.meter, ev.store_seq), link.seq)
            wrong = _differ(
                vars(row),
                {
                    "kind": "contributed",
                    "table_id": link.table_id,
                    "round_id": link.round_id,
                    "step": ev.step,
                    "place": ev.place,
                    "wager": ev.wager,
                    "increment": ev.increment,
                    "secondary": ev.secondary,
                    "kept": ev.kept,
                    "amount": ev.amount,
                    "reserve": ev.reserve,
                },
            )
        else:
            key = (ev.meter, link.table_id, link.round_id or 0, ev.step)
            again = seen_claims.setdefault(key, link.seq)
            wrong = _differ(
                vars(row),
                {
                    "kind": "awarded",
                    "award": ev.award,
                    "percent": ev.percent,
                    "share": ev.share,
                    "winners": ev.winners,
                    "amount": ev.amount,
                },
            ) or _claim_differs(meters[ev.meter], claims.get(key), link)
        if wrong is not None:
            result.failures.append((link.seq, f"{where}: {wrong}"))
        elif again != link.seq:
            result.failures.append(
                (link.seq, f"{where}: the log records this change again (first at seq {again})")
            )
    _unlogged(meters, rounds, seen_steps, seen_claims, result)
    return result


def _claim_differs(meter: StoredMeter, claim: ClaimRow | None, link: LoggedLink) -> str | None:
    ev = link.event
    assert isinstance(ev, LinkedMeterAwarded)
    if claim is None:
        others = [
            f"table {c.table_id} round {c.round_id} step {c.step}"
            for c in meter.claims
            if c.award == ev.award
        ]
        return (
            f"the store holds no claim of table {link.table_id} round {link.round_id} step "
            f"{ev.step}; award {ev.award}'s claims are by "
            + ("; ".join(others) if others else "no one")
        )
    if claim.award != ev.award:
        return f"the log records award {ev.award} but the store's claim is of award {claim.award}"
    if claim.places != ev.places:
        return (
            f"the log records places {list(ev.places)} but the store's claim names "
            f"{list(claim.places)}"
        )
    return None


def _unlogged(
    meters: Mapping[str, StoredMeter],
    rounds: LogRounds,
    seen_steps: Mapping[tuple[str, int], int],
    seen_claims: Mapping[tuple[str, str, int, str], int],
    result: MeterAuditResult,
) -> None:
    """Every change of the store naming one of the log's tables is one of its records."""
    for meter_id, meter in meters.items():
        found: list[tuple[str, int, str]] = []
        for row in meter.steps:
            if (
                row.kind == "contributed"
                and row.table_id in rounds.tables
                and (meter_id, row.seq) not in seen_steps
            ):
                found.append(
                    (row.table_id, row.round_id or 0, f"contribution at store seq {row.seq}")
                )
        for c in meter.claims:
            if c.table_id in rounds.tables and (
                (meter_id, c.table_id, c.round_id, c.step) not in seen_claims
            ):
                found.append((c.table_id, c.round_id, f"claim of award {c.award}"))
        for table_id, round_id, what in found:
            text = (
                f"the store's linked meter {meter_id} holds a {what} by table {table_id} "
                f"round {round_id} that this log does not record"
            )
            behind = rounds.status(table_id, round_id)
            if behind is None:
                result.failures.append(
                    (
                        rounds.closed_at(table_id, round_id),
                        f"{text}, and the log closed that round: a meter change that no "
                        "wallet of the log saw (a crash whose retry did not ask for the same "
                        "step again, a row written by hand, or another log of the same table)",
                    )
                )
            else:
                result.warnings.append(
                    (None, f"{text} yet: {behind}; the table may still record it")
                )


class StoreMeterAudit:
    """What ``etg verify DB --store URL`` runs on the log's linked meters: reads the store
    (an investigator's URL) on the first :meth:`audit`, after the log's snapshot."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._store: FloorStore | None = None

    def __repr__(self) -> str:
        return f"StoreMeterAudit({redacted(self._url)!r})"

    def audit(self, reader: EventLogReader) -> MeterAuditResult:
        """Check the log's linked meter records and the store's histories of their meters.

        Raises:
            FloorError: the store cannot be reached or read (unusable input).
        """
        links, rounds = read_log(reader)
        if self._store is None or self._store.broken:
            self._store = FloorStore.connect(self._url)
        named = {link.event.meter for link in links}
        meters = read_meters(self._store, named, rounds.tables)
        result = check_log(links, rounds, meters)
        relies: dict[str, list[tuple[int, int]]] = {}  # meter -> (store seq, log seq)
        for link in links:
            relies.setdefault(link.event.meter, []).append((link.event.store_seq, link.seq))
        for meter in meters.values():
            result.meters += 1
            for problem in check_history(meter):
                # Filed at the first record of the log that relies on the bad row.
                held = relies.get(problem.meter_id, [])
                relying = [seq for at, seq in held if at >= problem.store_seq]
                result.failures.append((min(relying, default=None), problem.reason))
        return result

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
