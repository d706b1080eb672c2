"""What every engine's ``replay`` shares: the logged cards as a card source, and the loop that
feeds a logged round back to a fresh engine one input at a time, checking that each step
produces exactly the logged events (docs/design.md "One round, as data", step 6).

The helpers of a seated game's replay: :func:`seat_wagers` (one seat's wagers as one input)
and :func:`logged_meters` (the meters as the settlement read them).

Entry points: :class:`LoggedCards`, :func:`replay_steps`, :func:`check_replayed_step`,
:func:`seat_wagers`, :func:`logged_meters`, :func:`rename_line`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from game_server.rules.errors import ReplayMismatch, RulesError
from game_server.rules.meters import Meter
from game_server.rules.wagers.base import MeterSpec
from shared.cards import Card


class LoggedCards:
    """A card source that deals exactly the cards of a log, at their logged positions."""

    def __init__(self, cards: Iterable[tuple[Card, int]]) -> None:
        self._cards = list(cards)
        self._next = 0

    @property
    def position(self) -> int:
        if self._next >= len(self._cards):
            raise ReplayMismatch("the replay needs a card that the log does not have")
        return self._cards[self._next][1]

    def draw(self) -> Card:
        if self._next >= len(self._cards):
            raise ReplayMismatch("the replay needs a card that the log does not have")
        card = self._cards[self._next][0]
        self._next += 1
        return card


#: A settlement line's earlier wording -> its wording now: a log written before a line was
#: reworded (a citation corrected) still replays to its own record (:func:`rename_line`).
RENAMED_LINES: dict[str, str] = {}


def rename_line(earlier: str, now: str) -> None:
    """Declare that the settlement line ``now`` was logged as ``earlier`` by older builds: a
    replay that produces ``now`` where the log holds ``earlier`` in the same record, every
    other field equal, reproduces it. The money, the cards and the order are still checked
    field by field; only the words of the line may be the earlier ones."""
    known = RENAMED_LINES.get(earlier)
    if known is not None and known != now:
        raise RuntimeError(f"line {earlier!r} was renamed twice: {known!r} and {now!r}")
    RENAMED_LINES[earlier] = now


def _same(want: Any, got: Any) -> bool:
    """``want`` (logged) equals ``got`` (replayed), or differs only by a line's earlier
    wording (:data:`RENAMED_LINES`)."""
    if want == got:
        return True
    line = getattr(want, "line", None)
    if not isinstance(line, str) or RENAMED_LINES.get(line) != getattr(got, "line", None):
        return False
    return bool(type(want) is type(got) and want._replace(line=got.line) == got)


def check_replayed_step(logged: Sequence[Any], start: int, produced: Sequence[Any]) -> int:
    """Compare a step the engine produced on replay with the logged events from ``start``;
    return the number of events it covers.

    Raises:
        ReplayMismatch: naming the first event that differs, or the step's length.
    """
    expected = list(logged[start : start + len(produced)])
    same = len(expected) == len(produced) and all(
        _same(want, got) for want, got in zip(expected, produced, strict=True)
    )
    if not same:
        for k, (want, got) in enumerate(zip(expected, produced, strict=False)):
            if not _same(want, got):
                raise ReplayMismatch(
                    f"event {start + k} differs on replay: logged {want!r}, replay gives {got!r}"
                )
        raise ReplayMismatch(
            f"the step at event {start} produced {len(produced)} events on replay but the log "
            f"has {len(expected)}"
        )
    return len(produced)


def replay_steps(
    events: Sequence[Any],
    step: Callable[[int, Any], list[Any] | None],
    phase: Callable[[], object],
) -> None:
    """Feed a logged round back to an engine: ``step(i, event)`` gives the input that event
    ``i`` starts to the engine and returns the events the engine produced, or None when no
    input of the engine produces that event at this point (``phase()`` names where the
    round is, for the message).

    Raises:
        ReplayMismatch: the first event the replay does not reproduce, or an input the
            engine refuses on replay.
    """
    i = 0
    while i < len(events):
        ev = events[i]
        try:
            produced = step(i, ev)
        except ReplayMismatch:
            raise
        except RulesError as exc:
            raise ReplayMismatch(f"event {i} ({ev.kind}) was refused on replay: {exc}") from exc
        if produced is None:
            raise ReplayMismatch(
                f"event {i} ({ev.kind}) is not the result of any input at this point "
                f"of the round ({phase()} phase)"
            )
        i += check_replayed_step(events, i, produced)


def seat_wagers(events: Sequence[Any], i: int, kind: type) -> dict[str, int]:
    """The wagers placed in one input: from ``events[i]`` on, the run of ``kind`` records
    (a wager placed: ``seat``, ``wager``, ``amount``) of that record's seat, by wager."""
    seat = events[i].seat
    wagers: dict[str, int] = {}
    while i < len(events) and type(events[i]) is kind and events[i].seat == seat:
        wagers[events[i].wager] = events[i].amount
        i += 1
    return wagers


def logged_meters(
    specs: Mapping[str, MeterSpec], readings: Iterable[tuple[str, int, int]]
) -> dict[str, Meter]:
    """The meters as a settlement read them: each logged ``(meter id, amount, reserve)`` of a
    meter in ``specs``, open."""
    return {
        meter_id: replace(
            Meter(meter_id, specs[meter_id]), amount=amount, reserve=reserve, opened=True
        )
        for meter_id, amount, reserve in readings
        if meter_id in specs
    }
