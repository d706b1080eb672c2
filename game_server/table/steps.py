"""Table steps that wait on something outside the server without stopping the reactor.

A table's step is synchronous code (the session, the round machine) that runs on the
reactor's thread, so that every table of a server sees one order of events and the event log
is written from one thread. A step that must wait on the floor store (a linked meter's
contribution or award, 605a.8) would stop every table of the server for as long as the store
takes (an award waits out its share window; a store that does not answer, the connect
timeout). Here such a step runs in a greenlet on the reactor's thread: at a store call
(:func:`off_reactor`) the greenlet hands the call to a worker thread and gives the reactor
back; when the call answers, the reactor resumes the step where it stopped. Nothing else of
the step leaves the reactor's thread, so the session, the log and the wallets keep their
single-threaded order.

A table's :class:`StepGate` keeps its steps whole and in order: an input (a wager, a
decision, a view) that arrives while one of the table's steps waits on the store waits for
it, and is answered after it (save, then send: nothing is answered before the store did).
Other tables go on.

Entry points: :func:`run_step`, :func:`off_reactor`, :class:`StepGate`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Final, TypeVar, cast

import greenlet  # type: ignore[import-untyped]  # ships no hints
from twisted.internet.defer import Deferred
from twisted.internet.threads import deferToThreadPool
from twisted.python.failure import Failure
from twisted.python.threadpool import ThreadPool

_T = TypeVar("_T")


class _StepGreenlet(greenlet.greenlet):  # type: ignore[misc]  # untyped base
    """A greenlet that runs one step (it may wait; the main greenlet is the reactor)."""


def in_step() -> bool:
    """Whether the caller runs inside a step that may wait (:func:`run_step`)."""
    return isinstance(greenlet.getcurrent(), _StepGreenlet)


def run_step(call: Callable[..., _T], *args: Any) -> _T | Deferred[_T]:
    """Run ``call(*args)`` as a step that may wait: its result (or its exception) when it
    did not wait, else a Deferred of it. Inside a step, ``call`` just runs."""
    if in_step():
        return call(*args)
    done: Deferred[_T] = Deferred()

    def body() -> None:
        try:
            result = call(*args)
        except BaseException:
            done.errback(Failure())  # type: ignore[no-untyped-call]  # unannotated
        else:
            done.callback(result)

    _StepGreenlet(body).switch()
    if done.called:
        outcome: list[Any] = []
        done.addBoth(outcome.append)
        if isinstance(outcome[0], Failure):
            outcome[0].raiseException()
        return cast(_T, outcome[0])
    return done


def wait(waiting: Deferred[_T]) -> _T:
    """Inside a step: give the reactor back until ``waiting`` fires, then return its result
    (or raise its error)."""
    current = greenlet.getcurrent()
    assert isinstance(current, _StepGreenlet), "wait() is only called inside a step"
    if waiting.called:
        outcome: list[Any] = []
        waiting.addBoth(outcome.append)
        result = outcome[0]
    else:
        # The reactor resumes the step where it waits, from the Deferred's callback.
        waiting.addBoth(current.switch)
        result = current.parent.switch()
    if isinstance(result, Failure):
        result.raiseException()
    return cast(_T, result)


def off_reactor(pool: ThreadPool, call: Callable[..., _T], *args: Any) -> _T:
    """Run ``call(*args)`` in ``pool``'s thread and return its result: inside a step, the
    reactor goes on meanwhile; outside one (at start-up, a simulation, a tool), it is a
    plain call."""
    if not in_step():
        return call(*args)
    from twisted.internet import reactor

    if not pool.started:
        pool.start()
    return wait(deferToThreadPool(reactor, pool, call, *args))


class StepGate:
    """One table's steps, one at a time and in order of arrival (see the module)."""

    def __init__(self) -> None:
        self._owner: greenlet.greenlet | None = None
        self._depth = 0
        self._waiting: deque[Deferred[None]] = deque()

    def run(self, call: Callable[..., _T], *args: Any) -> _T | Deferred[_T]:
        """Run ``call(*args)`` as the table's next step (see :func:`run_step`)."""
        return run_step(self._inside, call, *args)

    def _inside(self, call: Callable[..., _T], *args: Any) -> _T:
        me = greenlet.getcurrent()
        if self._owner is not None and self._owner is not me:
            turn: Deferred[None] = Deferred()
            self._waiting.append(turn)
            wait(turn)  # the step before hands the table over (see _leave)
        self._owner = me
        self._depth += 1
        try:
            return call(*args)
        finally:
            self._depth -= 1
            if self._depth == 0:
                self._leave()

    def _leave(self) -> None:
        self._owner = None
        if self._waiting:
            from twisted.internet import reactor

            nxt = self._waiting.popleft()
            # Mark the table taken until the next step runs, so no newcomer overtakes it.
            self._owner = _HANDED_OVER
            cast(Any, reactor).callLater(0, nxt.callback, None)


#: The owner of a gate between one step and the next waiting one.
_HANDED_OVER: Final[greenlet.greenlet] = greenlet.greenlet(lambda: None)
