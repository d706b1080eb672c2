"""Linked progressive meters across servers (605a.8): the table server's side.

A meter linked across the floor lives in the floor store (``0004-meters``,
:mod:`game_server.floor.schema`): every contribution and every award is one transaction of
the store, under the meter's row lock, idempotent by ``(table, round, step)``. This module
is the client (:class:`LinkedMeterClient`) and the table's view of its meters
(:class:`TableMeters`): a :class:`~game_server.rules.meters.MeterBank` to the game's session,
which keeps the server's own meters as before and sends the floor-linked ones to the store,
so a game reaches a linked meter exactly as it reaches a local one.

What the table's log records: :class:`~game_server.rules.meters.LinkedMeterContributed` and
:class:`~game_server.rules.meters.LinkedMeterAwarded`, each with the store's meter sequence
number and its step key; the wallets fold the award as any meter award
(:class:`~game_server.table.ledger.Ledger`).

When the store cannot be reached, the call raises
:class:`~game_server.floor.errors.StoreUnavailable` with a sentence and the meter is marked
unavailable (:meth:`LinkedMeterClient.unavailable`) until a call succeeds again: nothing is
computed or paid from the last amount seen (the amount and every payout are the store's,
computed under its lock). A retry of the same step after a failure (the store killed
mid-transaction: the transaction is lost whole, or committed whole) gets what the store did,
once.

Entry points: :class:`LinkedMeterClient`, :class:`TableMeters`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar, cast

import psycopg
from twisted.python.threadpool import ThreadPool

from game_server.floor.errors import StoreRefused, StoreUnavailable
from game_server.floor.names import REFUSED_METER
from game_server.floor.store import TCP_USER_TIMEOUT_MS, check_url, redacted
from game_server.rules.meters import (
    LinkedMeterAwarded,
    LinkedMeterContributed,
    Meter,
    MeterActionError,
    MeterBank,
    MeterEvent,
    MeterStep,
)
from game_server.rules.wagers.base import MeterSpec
from game_server.table.steps import in_step, off_reactor

#: Seconds to wait for the store to accept a connection (a linked wager waits this long at
#: most before it is refused).
CONNECT_TIMEOUT: Final = 2
#: Milliseconds one meter statement may take in the store (an award waits out its share
#: window inside ``meter_settle``, at most 10 s, so this is above that).
STATEMENT_TIMEOUT_MS: Final = 15_000
#: Milliseconds in which winners of the same meter and percentage on the floor share it.
SHARE_WINDOW_MS: Final = 200
#: Seconds a linked meter's amount as last read is shown before it is read again.
SHOWN_FOR: Final = 1.0

_R = TypeVar("_R")


@dataclass(frozen=True)
class FloorMeter:
    """A linked meter as the store holds it (what a terminal shows)."""

    meter_id: str
    seq: int
    amount: int
    reserve: int
    wagered: int
    paid: int
    hits: int

    @property
    def amount_cents(self) -> int:
        return self.amount // 1000


class LinkedMeterClient:
    """One table's connection to the floor store for the linked meters (the shipping role).

    Each statement runs in the client's own worker thread (:func:`off_reactor`): inside a
    table's step (:mod:`game_server.table.steps`) the reactor serves the server's other
    tables while the store answers (an award waits out its share window; a store that does
    not answer, :data:`CONNECT_TIMEOUT`); the step goes on when it has. Outside a step (at
    start-up, a tool) it is a plain call. One table calls it at a time (its steps are in
    order).

    Args:
        url: The store's URL (the shipping role's).
        connect: Opens a connection (tests put a failing one here).
    """

    def __init__(
        self,
        url: str,
        connect: Callable[[str], psycopg.Connection[Any]] | None = None,
    ) -> None:
        self.url = check_url(url)
        self.shown = redacted(url)
        self._connect = connect or _connect
        self._conn: psycopg.Connection[Any] | None = None
        self._down: dict[str, str] = {}
        self._pool = ThreadPool(1, 1, "etg-linked-meters")
        #: Seconds each successful contribution took (the latency figure).
        self.latencies: list[float] = []

    def unavailable(self, meter_id: str) -> str | None:
        """Why ``meter_id`` cannot be used now (the last failure's sentence), or None."""
        return self._down.get(meter_id)

    def close(self) -> None:
        """Stop the worker thread (after its statement) and close the connection."""
        if self._pool.started:
            self._pool.stop()
        self._disconnect()

    def _disconnect(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _execute(self, query: str, params: tuple[Any, ...]) -> list[Any]:
        """One statement (in the worker thread inside a step); a failure drops the
        connection, the next statement connects again."""
        try:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = self._connect(self.url)
            return self._conn.execute(query.encode(), params).fetchall()
        except psycopg.Error as exc:
            if getattr(exc, "sqlstate", None) != REFUSED_METER:
                self._disconnect()
            raise

    def _call(self, meter_id: str, what: str, query: str, params: tuple[Any, ...]) -> Any:
        try:
            rows = off_reactor(self._pool, self._execute, query, params)
        except psycopg.Error as exc:
            diag = getattr(exc, "diag", None)
            text = (diag.message_primary if diag is not None else None) or str(exc)
            text = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
            text = text.removeprefix("etg-floor: ")
            if getattr(exc, "sqlstate", None) == REFUSED_METER:
                raise StoreRefused(text) from None
            sentence = (
                f"the linked meter {meter_id} is unavailable: the floor store {self.shown} "
                f"failed while {what} ({text})"
            )
            self._down[meter_id] = sentence
            raise StoreUnavailable(sentence) from None
        self._down.pop(meter_id, None)
        return rows

    def open(self, meter_id: str, spec: MeterSpec, share_window_ms: int = SHARE_WINDOW_MS) -> None:
        """Open ``meter_id`` on the floor at its seed, or link to it (same specification).

        Raises:
            StoreRefused: the floor holds it with another specification, or it is a
                Must-Hit-By meter (those are not linked across servers in this build).
            StoreUnavailable: the store cannot be reached.
        """
        if spec.must_hit_by is not None:
            raise StoreRefused(
                f"meter {meter_id} is a Must-Hit-By mystery meter: its hidden trigger is drawn "
                "by one table's certified RNG, so it is not linked across servers"
            )
        self._call(
            meter_id,
            "opening it",
            "SELECT seq FROM floor.meter_open(%s, %s, %s, %s, %s, %s, %s)",
            (
                meter_id,
                spec.name,
                spec.seed,
                spec.reseed,
                spec.increment_bp,
                spec.secondary_bp,
                share_window_ms,
            ),
        )

    def state(self, meter_id: str) -> FloorMeter:
        """The meter now (one read of the store)."""
        rows = self._call(
            meter_id,
            "reading it",
            "SELECT seq, amount, reserve, wagered, paid, hits FROM floor.meter_state(%s)",
            (meter_id,),
        )
        if not rows:
            raise StoreRefused(f"the floor has no linked meter {meter_id}")
        return FloorMeter(meter_id, *rows[0])

    def contribute(
        self, meter_id: str, table: str, round_id: int, step: str, place: str, wager: int
    ) -> LinkedMeterContributed:
        """Feed the meter from a wager of ``wager`` cents; one transaction of the store."""
        began = time.perf_counter()
        rows = self._call(
            meter_id,
            f"feeding it from round {round_id} of table {table}",
            "SELECT seq, increment, secondary, kept, amount, reserve "
            "FROM floor.meter_contribute(%s, %s, %s, %s, %s, %s)",
            (meter_id, table, round_id, step, place, wager),
        )
        self.latencies.append(time.perf_counter() - began)
        seq, increment, secondary, kept, amount, reserve = rows[0]
        return LinkedMeterContributed(
            meter_id, place, wager, increment, secondary, kept, amount, reserve, seq, step
        )

    def award(
        self,
        meter_id: str,
        table: str,
        round_id: int,
        step: str,
        percent: int,
        places: Sequence[str],
        *,
        shared: bool = True,
    ) -> LinkedMeterAwarded:
        """Claim ``percent`` of the meter for ``places`` and settle it: the store shares it
        equally with every place on the floor that claims the same percentage of it within
        its share window (this call waits the window out); ``shared=False``: a payout paid
        in full to ``places`` (one award of its own, no window)."""
        what = f"awarding it to round {round_id} of table {table}"
        self._call(
            meter_id,
            what,
            "SELECT award, wait_ms FROM floor.meter_claim(%s, %s, %s, %s, %s, %s, %s)",
            (meter_id, table, round_id, step, percent, list(places), shared),
        )
        rows = self._call(
            meter_id,
            what,
            "SELECT seq, award, percent, share, winners, places, amount "
            "FROM floor.meter_settle(%s, %s, %s, %s)",
            (meter_id, table, round_id, step),
        )
        seq, award, percent_, share, winners, claimed, amount = rows[0]
        return LinkedMeterAwarded(
            meter_id, percent_, award, tuple(claimed), share, winners, amount, seq, step
        )


def _connect(url: str) -> psycopg.Connection[Any]:
    return psycopg.connect(
        url,
        connect_timeout=CONNECT_TIMEOUT,
        autocommit=True,
        application_name="etg-meters",
        tcp_user_timeout=TCP_USER_TIMEOUT_MS,
        options=f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
    )


class TableMeters(MeterBank):
    """One table's meters as its game's session sees them: the server's own meters (the
    shared :class:`~game_server.rules.meters.MeterBank`) and the floor-linked ones, which
    go to the store.

    The step keys of the store's idempotency are made here: within round ``round_of()`` of
    the table, the n-th contribution of a place to a meter is ``c:<meter>:<place>:<n>`` and
    an award ``a:<meter>:<percent>:<first place>:<n>``. A round that is replayed after a
    crash asks again with the same keys, so the store does nothing twice; so does a step
    the store failed under (the counts of the round start again: each kind of change is
    made in one step of a round).

    What a terminal shows of a linked meter (:meth:`meter`, :meth:`snapshot`) is the
    store's amount as last read, read again when older than :data:`SHOWN_FOR` seconds; no
    payout is computed from it (the store computes every payout under its lock).

    Args:
        local: The server's bank of its own meters.
        client: The store's meter client.
        linked: The meter ids that live in the store (named in the Rules Submission's
            ``[linked_meters]``).
        table: The table id.
        round_of: The table's current round id (the session's ``round_id``).
        share_window_ms: The Rules Submission's share window.
    """

    def __init__(
        self,
        local: MeterBank,
        client: LinkedMeterClient,
        linked: frozenset[str],
        table: str,
        round_of: Callable[[], int],
        share_window_ms: int = SHARE_WINDOW_MS,
    ) -> None:
        super().__init__()
        self._local = local
        self._client = client
        self._linked = linked
        self._table = table
        self._round_of = round_of
        self._window = share_window_ms
        self._specs: dict[str, MeterSpec] = {}
        self._opened: set[str] = set()
        self._shown: dict[str, tuple[float, Meter]] = {}
        self._round = -1
        self._counts: dict[str, int] = {}

    def _key(self, base: str) -> str:
        round_id = self._round_of()
        if round_id != self._round:
            self._round, self._counts = round_id, {}
        n = self._counts[base] = self._counts.get(base, 0) + 1
        return f"{base}:{n}"

    def _store(self, meter_id: str, call: Callable[[], _R]) -> _R:
        """Run ``call`` against the store, the meter opened there first (once per run: the
        store may have been down when the table opened it, or be a new one); a failure
        starts the round's step keys again (the session's step is retried whole)."""
        try:
            if meter_id not in self._opened:
                self._client.open(meter_id, self._specs[meter_id], self._window)
                self._opened.add(meter_id)
            return call()
        except StoreUnavailable:
            self._round = -1
            raise

    def _mirror(self, meter_id: str, held: FloorMeter | None = None) -> Meter:
        """The meter as the store holds it (read now unless given), as a rules Meter."""
        if held is None:
            held = self._store(meter_id, lambda: self._client.state(meter_id))
        meter = Meter(
            meter_id,
            self._specs[meter_id],
            amount=held.amount,
            reserve=held.reserve,
            wagered=held.wagered,
            paid=held.paid,
            hits=held.hits,
            opened=True,
        )
        self._shown[meter_id] = (time.monotonic(), meter)
        return meter

    def __contains__(self, meter_id: object) -> bool:
        return meter_id in self._specs or meter_id in self._local

    def ids(self) -> tuple[str, ...]:
        return tuple(sorted({*self._local.ids(), *self._specs}))

    def unavailable(self, meter_id: str) -> str | None:
        """Why the linked meter ``meter_id`` cannot be used now, or None (a local meter
        always can)."""
        if meter_id not in self._linked:
            return None
        return self._client.unavailable(meter_id)

    def meter(self, meter_id: str) -> Meter:
        """The meter; a linked one as last read from the store (read again when older than
        :data:`SHOWN_FOR` seconds, inside a table's step; outside one, as last read).

        Raises:
            StoreUnavailable: a linked meter the store cannot give now.
        """
        if meter_id not in self._linked:
            return self._local.meter(meter_id)
        shown = self._shown.get(meter_id)
        down = self._client.unavailable(meter_id)
        if down is not None:
            raise StoreUnavailable(down)
        if shown is not None and (time.monotonic() - shown[0] < SHOWN_FOR or not in_step()):
            return shown[1]
        if not in_step():  # the reactor does not wait on the store to show a meter
            raise StoreUnavailable(
                f"the linked meter {meter_id} has not been read from the floor store "
                f"{self._client.shown} yet"
            )
        return self._mirror(meter_id)

    def commit(self, step: MeterStep) -> MeterStep:
        if step.meter.id in self._linked:
            raise StoreRefused(
                f"meter {step.meter.id} is linked across the floor: it changes only in the "
                "floor store (a Must-Hit-By meter is not linked across servers)"
            )
        return self._local.commit(step)

    def link(self, meter_id: str, spec: MeterSpec) -> MeterStep:
        """Link the table to ``meter_id``; a linked one is opened in the store (or, while
        the store cannot be reached, when it next can: the meter is unavailable until
        then). No events: the table's log holds only the linked meter's changes."""
        if meter_id not in self._linked:
            return self._local.link(meter_id, spec)
        self._specs[meter_id] = spec
        try:
            return MeterStep(self._mirror(meter_id), ())
        except StoreUnavailable:
            return MeterStep(Meter(meter_id, spec), ())

    def contribute(self, meter_id: str, wager: int, place: str) -> MeterStep:
        if meter_id not in self._linked:
            return self._local.contribute(meter_id, wager, place)
        step = self._key(f"c:{meter_id}:{place}")
        ev = self._store(
            meter_id,
            lambda: self._client.contribute(
                meter_id, self._table, self._round_of(), step, place, wager
            ),
        )
        spec = self._specs[meter_id]
        after = Meter(meter_id, spec, ev.amount, ev.reserve, opened=True)
        shown = self._shown.get(meter_id)
        if shown is None:
            self._shown.pop(meter_id, None)
        else:  # the store's answer is the meter now: shown without another read
            was = shown[1]
            self._shown[meter_id] = (
                time.monotonic(),
                dataclasses.replace(
                    was, amount=ev.amount, reserve=ev.reserve, wagered=was.wagered + wager
                ),
            )
        # The session logs a step's events; a linked one's never folds into a local bank.
        return MeterStep(after, cast(tuple[MeterEvent, ...], (ev,)))

    def award(self, meter_id: str, percent: int, place: str) -> MeterStep:
        """Pay ``percent`` of the meter in full to ``place`` (a payout the wager's section
        does not share: on the floor, an award of its own)."""
        if meter_id not in self._linked:
            return self._local.award(meter_id, percent, place)
        return self._award(meter_id, percent, [place], shared=False)

    def award_shared(self, meter_id: str, percent: int, places: Sequence[str]) -> MeterStep:
        """Split ``percent`` of the meter equally among ``places`` and, for a linked meter,
        every other place on the floor that wins it within the share window.

        Raises:
            MeterActionError: no places (an award needs a winner), or a place twice.
        """
        if meter_id not in self._linked:
            return self._local.award_shared(meter_id, percent, places)
        return self._award(meter_id, percent, places, shared=True)

    def _award(
        self, meter_id: str, percent: int, places: Sequence[str], *, shared: bool
    ) -> MeterStep:
        if not places:
            raise MeterActionError(f"meter {meter_id!r}: an award needs at least one winner")
        if len(set(places)) != len(places):
            raise MeterActionError(
                f"meter {meter_id!r}: winners {list(places)} name a place twice; each winning "
                "wager shares once (633b.10(j))"
            )
        step = self._key(f"a:{meter_id}:{percent}:{places[0]}")
        ev = self._store(
            meter_id,
            lambda: self._client.award(
                meter_id, self._table, self._round_of(), step, percent, places, shared=shared
            ),
        )
        spec = self._specs[meter_id]
        after = Meter(meter_id, spec, ev.amount, opened=True)
        self._shown.pop(meter_id, None)
        return MeterStep(after, cast(tuple[MeterEvent, ...], (ev,)), (ev.share,) * len(places))

    def snapshot(self) -> dict[str, dict[str, Any]]:
        """The server's meters, and each linked one as the store holds it (or, while the
        store cannot be reached, ``unavailable`` with the reason: a terminal shows no
        amount then)."""
        found = self._local.snapshot()
        for meter_id in sorted(self._specs):
            try:
                found[meter_id] = {**self.meter(meter_id).snapshot(), "linked": "floor"}
            except StoreUnavailable as exc:
                found[meter_id] = {
                    "name": self._specs[meter_id].name,
                    "linked": "floor",
                    "unavailable": str(exc),
                }
        return found

    def refuse_if_unavailable(self, meter_ids: Sequence[str]) -> None:
        """Ask the store for each linked meter of ``meter_ids`` and raise the sentence of
        the first that cannot be used (a linked wager is refused; the base game goes on).

        Raises:
            StoreUnavailable: one of them is.
        """
        for meter_id in meter_ids:
            if meter_id in self._linked:
                try:
                    self._mirror(meter_id)
                except StoreUnavailable as exc:
                    raise StoreUnavailable(
                        f"{exc}; its wager is refused until it is back"
                    ) from None
