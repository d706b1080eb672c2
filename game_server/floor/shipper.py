"""Shipping one table server's event log to the floor store, in order, at least once.

Entry point: :class:`Shipper`. ``etg serve --store URL`` starts one beside its log
(:func:`game_server.floor.serving.start_shipping`); it runs in its own thread with its own
read-only connection to the SQLite log and its own connection to the store, so shipping never
blocks play: the reactor only reads :meth:`Shipper.meters` and :meth:`Shipper.watch`, which
do no I/O.

How it ships:

1. On (re)connecting, it claims the log for the server's key, ships the log's ``meta`` and
   ``migrations`` tables, reads where the store's copy of the log ends, and checks the local
   log against it (a log that ends before the store's copy, or holds another event at its
   last seq, was cut back or replaced: refused).
2. Then, until it is caught up: the next batch of events after the store's end, with every
   checkpoint they cover, goes to the store in ONE transaction
   (:meth:`~game_server.floor.store.FloorStore.ingest`, which checks the chain and the
   signatures), and then the durable local cursor (``<db>.shipped``, written to a new file,
   synced and renamed) records how far the store has it: at most once a second, and when
   the shipper stops.

A crash between the commit and the cursor leaves the cursor behind: the next run ships those
rows again and the store skips them (identical rows are stored once). A cursor ahead of the
store (a store restored from a backup) is noticed, said, and the rows are shipped again from
the store's end. So nothing is lost or doubled whichever side is killed.

**The lag** is the age of the oldest event not yet in the store (0 when caught up), and each
shipped event's time from being logged to being committed in the store is kept (the last
:data:`LAG_SAMPLES`) for its median, 99th percentile and maximum. A lag past ``lag_limit``
seconds, or a refusal by the store, is an operator alarm: :meth:`Shipper.watch` returns it as
a log line once, its end once, and a status line every ``status_every`` seconds; and
:meth:`Shipper.meters` (the operator's ``ReadMeters``, under ``store_shipping``) holds it
until it clears.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import takewhile
from pathlib import Path
from typing import Any, Final

from game_server.eventlog.errors import EventLogError
from game_server.eventlog.reader import EventLogReader
from game_server.eventlog.records import Checkpoint, EventRow, parse_time
from game_server.floor.errors import FloorError, StoreRefused, StoreUnavailable
from game_server.floor.store import FloorStore, redacted

#: Events per store transaction.
DEFAULT_BATCH: Final = 2_000
#: Seconds between two looks at the log when caught up.
DEFAULT_POLL: Final = 0.1
#: Seconds of lag after which the operator is alarmed.
DEFAULT_LAG_LIMIT: Final = 60.0
#: Seconds between two status lines.
DEFAULT_STATUS_EVERY: Final = 60.0
#: Seconds between two durable writes of the cursor while shipping.
DEFAULT_CURSOR_EVERY: Final = 1.0
#: Seconds to wait before trying again after the store refused the log.
REFUSED_RETRY: Final = 30.0
#: The longest wait between two connection attempts.
MAX_BACKOFF: Final = 10.0
#: Per-event lags kept for the percentiles.
LAG_SAMPLES: Final = 100_000

#: A line for the server's log: (level "info" / "warn" / "error", text).
Note = tuple[str, str]


def cursor_path(db: str | os.PathLike[str]) -> Path:
    """Where the shipper of the log ``db`` keeps its cursor: ``<db>.shipped``."""
    return Path(f"{os.fspath(db)}.shipped")


class Cursor:
    """The durable local cursor: how far each store (by its id) holds the log.

    A JSON file ``{"log_id": ..., "last_store": store_id, "stores": {store_id: {"seq": n,
    "checkpoint": k}}}``,
    replaced atomically (a new file, synced, renamed, the folder synced). A cursor of another
    log or one that cannot be read counts as no cursor (shipping from the store's end is
    always safe).
    """

    def __init__(self, path: Path, log_id: str) -> None:
        self.path = path
        self.log_id = log_id
        self.problem: str | None = None
        self._stores: dict[str, dict[str, int]] = {}
        self._last: str | None = None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            self.problem = f"the shipping cursor {path} cannot be read ({exc}); ignored"
            return
        stores = data.get("stores") if isinstance(data, dict) else None
        if (
            not isinstance(data, dict)
            or data.get("log_id") != log_id
            or not isinstance(stores, dict)
        ):
            self.problem = f"the shipping cursor {path} is not this log's; ignored"
            return
        for store_id, position in stores.items():
            if (
                isinstance(position, dict)
                and type(position.get("seq")) is int
                and type(position.get("checkpoint")) is int
            ):
                self._stores[str(store_id)] = {
                    "seq": position["seq"],
                    "checkpoint": position["checkpoint"],
                }
        last = data.get("last_store")
        self._last = last if isinstance(last, str) and last in self._stores else None

    def get(self, store_id: str) -> tuple[int, int] | None:
        """``(seq, checkpoint number)`` the store ``store_id`` was last known to hold."""
        position = self._stores.get(store_id)
        return None if position is None else (position["seq"], position["checkpoint"])

    def last(self) -> tuple[str, int, int] | None:
        """``(store id, seq, checkpoint)`` of the store last saved: where shipping resumes
        before the store is reached again (so that the lag is right while it cannot be)."""
        if self._last is None:
            return None
        position = self._stores[self._last]
        return self._last, position["seq"], position["checkpoint"]

    def save(self, store_id: str, seq: int, checkpoint: int) -> None:
        """Record durably that the store holds the log up to ``seq`` and ``checkpoint``.

        Raises:
            OSError: the file cannot be written (the shipper says so; shipping goes on,
                since a cursor behind the store only costs rows shipped twice).
        """
        self._stores[store_id] = {"seq": seq, "checkpoint": checkpoint}
        self._last = store_id
        data = json.dumps(
            {"log_id": self.log_id, "last_store": store_id, "stores": self._stores},
            sort_keys=True,
        )
        temporary = self.path.with_name(self.path.name + ".new")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, data.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, self.path)
        folder = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile of an ascending list (0 when empty)."""
    if not sorted_values:
        return 0.0
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@dataclass
class _State:
    """What the thread knows, read by the reactor under the lock."""

    connected: bool = False
    store_id: str | None = None
    shipped_seq: int = 0
    shipped_checkpoint: int = 0
    logged_seq: int = 0
    oldest_unshipped: float | None = None
    events_shipped: int = 0
    checkpoints_shipped: int = 0
    error: str | None = None
    refused: str | None = None
    caught_up: bool = False


class Shipper:
    """Ships the event log ``db`` to the floor store at ``url`` from its own thread.

    Args:
        db: The SQLite event log (its writer is the server; the shipper only reads it).
        url: The store's URL (the shipping role).
        key_id: The fingerprint of the log-signing key (the log is claimed with it).
        lag_limit: Seconds of lag past which the operator is alarmed.
        poll: Seconds between two looks at the log when caught up.
        batch: Events per store transaction.
        status_every: Seconds between two status lines from :meth:`watch`.
        cursor_every: Seconds between two writes of the cursor while shipping (each is
            synced: a cursor written after every batch would add two fsyncs a batch to the
            disk the table's log is on).
        clock: Wall-clock seconds (the log's times are wall-clock UTC).
        connect: Opens a store connection (tests pass a wrapper).
    """

    def __init__(
        self,
        db: str | os.PathLike[str],
        url: str,
        key_id: str,
        *,
        lag_limit: float = DEFAULT_LAG_LIMIT,
        poll: float = DEFAULT_POLL,
        batch: int = DEFAULT_BATCH,
        status_every: float = DEFAULT_STATUS_EVERY,
        cursor_every: float = DEFAULT_CURSOR_EVERY,
        clock: Callable[[], float] = time.time,
        connect: Callable[[str], FloorStore] = FloorStore.connect,
    ) -> None:
        if lag_limit <= 0:
            raise ValueError(f"the lag limit is a positive number of seconds, got {lag_limit}")
        self.db = Path(db)
        self.url = url
        self.shown = redacted(url)
        self.key_id = key_id
        self.lag_limit = lag_limit
        self.poll = poll
        self.batch = batch
        self.status_every = status_every
        self._clock = clock
        self._connect = connect
        self._lock = threading.Lock()
        self._state = _State()
        self._lags: deque[float] = deque(maxlen=LAG_SAMPLES)
        self._notes: list[Note] = []
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._store: FloorStore | None = None
        self._reader: EventLogReader | None = None
        self._cursor: Cursor | None = None
        self._digests: set[str] = set()
        #: The kind of the alarm last said by :meth:`watch` ("lag", "refused"), or None.
        self._alarm: str | None = None
        self._last_status = clock()
        self.cursor_every = cursor_every
        self._unsaved: tuple[str, int, int] | None = None
        self._saved_at = 0.0

    # ---------------------------------------------------------------- the reactor's side

    def start(self) -> None:
        """Start the shipping thread (a daemon: a store that hangs never holds the process)."""
        self._thread = threading.Thread(target=self._run, name="floor-shipper", daemon=True)
        self._thread.start()

    def wake(self) -> None:
        """Look at the log now rather than at the next poll."""
        self._wake.set()

    def stop(self, timeout: float = 10.0) -> bool:
        """Ship what the log holds now (the shutdown checkpoint too), then stop.

        Returns:
            Whether the store holds the whole log (False: the store could not be reached in
            ``timeout`` seconds; the next start ships the rest).
        """
        self._stopping.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
        with self._lock:
            return self._state.caught_up and self._state.error is None

    def lag(self) -> float:
        """Seconds since the oldest event not yet in the store was logged (0: caught up)."""
        with self._lock:
            oldest = self._state.oldest_unshipped
        return 0.0 if oldest is None else max(0.0, self._clock() - oldest)

    def meters(self) -> dict[str, Any]:
        """The shipping meters (integers, milliseconds), for the operator's ``ReadMeters``."""
        lag = self.lag()
        with self._lock:
            state = self._state
            lags = sorted(self._lags)
            figures: dict[str, Any] = {
                "store": self.shown,
                "connected": state.connected,
                "logged_seq": state.logged_seq,
                "shipped_seq": state.shipped_seq,
                "shipped_checkpoint": state.shipped_checkpoint,
                "events_behind": max(0, state.logged_seq - state.shipped_seq),
                "events_shipped": state.events_shipped,
                "checkpoints_shipped": state.checkpoints_shipped,
                "lag_ms": round(lag * 1000),
                "lag_p50_ms": round(percentile(lags, 0.50) * 1000),
                "lag_p99_ms": round(percentile(lags, 0.99) * 1000),
                "lag_max_ms": round((lags[-1] if lags else 0.0) * 1000),
                "lag_limit_ms": round(self.lag_limit * 1000),
                "last_error": state.refused or state.error,
            }
        alarm = self._alarm_now(lag)
        figures["alarm"] = None if alarm is None else alarm[1]
        return figures

    def _alarm_now(self, lag: float) -> tuple[str, str] | None:
        """The alarm standing now, as (its kind, its sentence): the store refuses the log,
        or the lag is past the limit; None when neither."""
        with self._lock:
            refused, error = self._state.refused, self._state.error
        if refused is not None:
            return "refused", (
                f"the floor store {self.shown} refuses this log: {refused}. Shipping stops "
                f"until an operator acts (tried again every {REFUSED_RETRY:.0f} s)"
            )
        if lag > self.lag_limit:
            why = f": {error}" if error else ""
            return "lag", (
                f"shipping to the floor store {self.shown} is {lag:.1f} s behind (limit "
                f"{self.lag_limit:g} s){why}"
            )
        return None

    def watch(self) -> list[Note]:
        """Lines for the server's log since the last call: the thread's notes, an alarm
        raised or ended, and a status line every ``status_every`` seconds (call it from
        the reactor every few seconds)."""
        with self._lock:
            notes, self._notes = self._notes, []
        lag = self.lag()
        alarm = self._alarm_now(lag)
        if alarm is not None and alarm[0] != self._alarm:
            notes.append(("error", f"ALARM: {alarm[1]}"))
        elif alarm is None and self._alarm is not None:
            notes.append(("info", f"alarm over: shipping to {self.shown} is {lag:.1f} s behind"))
        self._alarm = None if alarm is None else alarm[0]
        now = self._clock()
        if now - self._last_status >= self.status_every:
            self._last_status = now
            m = self.meters()
            notes.append(
                (
                    "info",
                    f"floor store {self.shown}: holds seq {m['shipped_seq']} of "
                    f"{m['logged_seq']} ({m['events_shipped']} events shipped by this server "
                    f"run), lag {m['lag_ms'] / 1000:.2f} s (p99 {m['lag_p99_ms'] / 1000:.2f} s)",
                )
            )
        return notes

    # ---------------------------------------------------------------- the thread's side

    def _note(self, level: str, text: str) -> None:
        with self._lock:
            self._notes.append((level, text))

    def _run(self) -> None:
        backoff = 0.5
        while True:
            wait = self.poll
            try:
                more = self._ship_once()
                backoff = 0.5
            except StoreUnavailable as exc:
                self._failed(str(exc), refused=False)
                more, wait, backoff = False, backoff, min(MAX_BACKOFF, backoff * 2)
            except FloorError as exc:  # refused, or not a store of this schema
                self._failed(str(exc), refused=True)
                more, wait = False, REFUSED_RETRY
            except (EventLogError, OSError) as exc:  # the log cannot be read: open it again
                self._failed(f"the event log cannot be read: {exc}", refused=False)
                self._close()
                more, wait, backoff = False, backoff, min(MAX_BACKOFF, backoff * 2)
            except Exception as exc:  # never die silently: say it and try again
                self._failed(f"{type(exc).__name__}: {exc}", refused=False)
                self._close()
                more, wait = False, MAX_BACKOFF
            if more:
                continue
            if self._stopping.is_set():
                break
            if self._clock() - self._saved_at >= self.cursor_every:
                self._save_cursor()  # what the last batches left unwritten
            self._sleep(wait)
        self._save_cursor()
        self._close()

    def _sleep(self, seconds: float) -> None:
        self._wake.wait(seconds)
        self._wake.clear()

    def _failed(self, text: str, *, refused: bool) -> None:
        self._close_store()
        with self._lock:
            state = self._state
            # Said once per kind of failure (a store that stays down is not a line a try).
            first = state.refused is None and (refused or state.error is None)
            state.connected = False
            state.caught_up = False
            if refused:
                state.refused = text
                state.error = None
            else:
                state.error = text
        if first:
            self._note("error" if refused else "warn", f"floor store {self.shown}: {text}")

    def _close_store(self) -> None:
        if self._store is not None:
            with contextlib.suppress(Exception):
                self._store.close()
            self._store = None

    def _close(self) -> None:
        self._close_store()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                self._reader.close()
            self._reader = None

    def _open_reader(self) -> EventLogReader:
        if self._reader is None:
            self._reader = EventLogReader.open(self.db)
            self._cursor = Cursor(cursor_path(self.db), self._reader.log_id)
            if self._cursor.problem is not None:
                self._note("warn", self._cursor.problem)
            last = self._cursor.last()
            with self._lock:
                state = self._state
                if state.store_id is None and last is not None:
                    state.store_id, state.shipped_seq, state.shipped_checkpoint = last
        return self._reader

    def _connected(self, reader: EventLogReader) -> FloorStore:
        """Connect, claim the log, ship its meta, and take the store's end as the position."""
        if self._store is not None and not self._store.broken:
            return self._store
        self._close_store()
        store = self._connect(self.url)
        try:
            log_id = reader.log_id
            store.claim(log_id, self.key_id)
            self._digests.add(store.ship_state(log_id, reader.meta(), reader.applied_migrations()))
            head = store.head(log_id)
            seq, checkpoint = (0, 0) if head is None else (head.seq, head.checkpoint)
            assert self._cursor is not None
            self._check_against(reader, seq, None if head is None else head.hash)
            remembered = self._cursor.get(store.store_id)
            if remembered is not None and remembered > (seq, checkpoint):
                self._note(
                    "warn",
                    f"floor store {self.shown} holds this log up to seq {seq} (checkpoint "
                    f"#{checkpoint}) but had taken it up to seq {remembered[0]} (checkpoint "
                    f"#{remembered[1]}): the store lost rows (restored from a backup?); "
                    "shipping them again",
                )
        except BaseException:
            store.close()
            raise
        self._store = store
        was_failing = False
        with self._lock:
            state = self._state
            was_failing = state.error is not None or state.refused is not None
            state.connected = True
            state.store_id = store.store_id
            state.shipped_seq = seq
            state.shipped_checkpoint = checkpoint
            state.error = state.refused = None
        if was_failing:
            self._note("info", f"floor store {self.shown}: shipping again from seq {seq + 1}")
        return store

    def _check_against(self, reader: EventLogReader, seq: int, stored_hash: str | None) -> None:
        """The local log must reach the store's end, with the same hash there."""
        if seq == 0 or stored_hash is None:
            return
        ours = reader.event(seq)
        if ours is None:
            raise StoreRefused(
                f"the store holds this log up to seq {seq}, but the log ends at seq "
                f"{reader.max_seq()}: the log was cut back. Keep it as evidence; run etg verify "
                f"--store on a copy"
            )
        if ours.hash != stored_hash:
            raise StoreRefused(
                f"the store holds another event {seq} of this log: the log was rewritten or "
                "replaced. Keep it as evidence; run etg verify --store on a copy"
            )

    def _ship_once(self) -> bool:
        """Ship the next batch. Returns whether more is waiting."""
        reader = self._open_reader()
        with self._lock:
            seq, number = self._state.shipped_seq, self._state.shipped_checkpoint
        rows, checkpoints, logged = self._next_batch(reader, seq, number)
        with self._lock:
            self._state.logged_seq = logged
            if rows:
                self._state.oldest_unshipped = parse_time(rows[0][1]).timestamp()
            elif checkpoints:
                self._state.oldest_unshipped = parse_time(checkpoints[0].time).timestamp()
        store = self._connected(reader)
        with self._lock:  # connecting may have moved the position back to the store's end
            moved = (self._state.shipped_seq, self._state.shipped_checkpoint) != (seq, number)
        if moved:
            return True
        if not rows and not checkpoints:
            with self._lock:
                self._state.oldest_unshipped = None
                self._state.caught_up = True
            return False
        for cp in checkpoints:
            if cp.meta is not None and cp.meta not in self._digests:
                self._digests.add(cp.meta)
                self._digests.add(
                    store.ship_state(reader.log_id, reader.meta(), reader.applied_migrations())
                )
        store.ingest(reader.log_id, rows, checkpoints)
        committed = self._clock()
        new_seq = rows[-1][0] if rows else seq
        new_number = checkpoints[-1].number if checkpoints else number
        self._record(rows, committed)
        with self._lock:
            state = self._state
            state.shipped_seq, state.shipped_checkpoint = new_seq, new_number
            state.events_shipped += len(rows)
            state.checkpoints_shipped += len(checkpoints)
            state.oldest_unshipped = None
            state.caught_up = False
            store_id = state.store_id
        assert store_id is not None
        self._unsaved = (store_id, new_seq, new_number)
        if committed - self._saved_at >= self.cursor_every:
            self._save_cursor()
        return True

    def _save_cursor(self) -> None:
        """Write the position the store was last seen to hold, if not written yet."""
        if self._unsaved is None or self._cursor is None:
            return
        store_id, seq, number = self._unsaved
        try:
            self._cursor.save(store_id, seq, number)
        except OSError as exc:
            self._note("warn", f"the shipping cursor cannot be written ({exc}); shipping on")
            return
        self._unsaved = None
        self._saved_at = self._clock()

    def _next_batch(
        self, reader: EventLogReader, seq: int, number: int
    ) -> tuple[list[EventRow], list[Checkpoint], int]:
        """The events after ``seq`` (one batch) and the checkpoints after ``number`` that
        they (or the events already shipped) cover, read in one snapshot; and the log's
        last seq."""
        with reader.snapshot():
            rows = next(iter(reader.row_batches(seq + 1, self.batch)), [])
            covered = rows[-1][0] if rows else seq
            # In number order; the first one beyond the batch and those after it wait for
            # their events.
            checkpoints = list(
                takewhile(
                    lambda cp: cp.seq <= covered, reader.checkpoints_after(number, self.batch)
                )
            )
            logged = reader.max_seq()
        return rows, checkpoints, logged

    def _record(self, rows: Sequence[EventRow], committed: float) -> None:
        """Keep each shipped event's lag, logged to committed."""
        lags = []
        last_text = ""
        last_time = 0.0
        for row in rows:
            if row[1] != last_text:
                last_text = row[1]
                last_time = parse_time(last_text).timestamp()
            lags.append(max(0.0, committed - last_time))
        with self._lock:
            self._lags.extend(lags)
