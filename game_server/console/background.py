"""The console's slow work, each kind in a worker thread pool of its own so that the reactor
keeps serving: recall pictures (:class:`Drawings`), verifications of a log
(:class:`Verifications`, kept as jobs for their page) and shift reports (:class:`Reports`).

A picture is drawn by the :class:`Pictures` function ``tools`` gives the console (it may
import the terminal's renderers; ``game_server`` may not). Each answer is written when its
work is done (:func:`~game_server.console.request.finish`), unless the browser went away.
"""

from __future__ import annotations

import datetime as dt
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Final, Protocol

from twisted.internet.defer import Deferred
from twisted.internet.threads import deferToThreadPool
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.python.threadpool import ThreadPool
from twisted.web.server import NOT_DONE_YET, Request

from game_server.console import recall_pages, report_pages
from game_server.console.audit import AuditLog
from game_server.console.html import html
from game_server.console.reports import ReportRow, ShiftClock, report_csv
from game_server.console.request import (
    Refused,
    arg,
    audit_request,
    finish,
    number_arg,
    page,
    png,
    redirect,
    viewer,
)
from game_server.console.sessions import Session, new_token
from game_server.console.source import FloorSource
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import Timeline
from game_server.recall.verify import VerifyReport
from shared.errors import ETGError

log = Logger()

#: Picture sizes a page may ask for.
PICTURE_SIZES: Final = {"480x270": (480, 270), "960x540": (960, 540), "1920x1080": (1920, 1080)}
#: Pictures kept drawn (by round, its last event, terminal and size).
PICTURES_KEPT: Final = 64
#: Verifications kept for their page (the oldest go first).
JOBS_KEPT: Final = 20


class Pictures(Protocol):
    """Draws a logged round as the terminal showed it (``tools.recall_pictures``); runs in a
    worker thread."""

    def __call__(
        self,
        logged: LoggedRound,
        timeline: Timeline,
        terminal: str | None,
        size: tuple[int, int],
    ) -> bytes: ...


class Drawings:
    """Recall pictures, drawn in ``pool`` and the last :data:`PICTURES_KEPT` kept.

    Args:
        reactor: The reactor.
        pool: The pictures' thread pool (started and stopped by the console).
        source: Where logs are read.
        pictures: Draws a picture (None: the console draws none).
    """

    def __init__(
        self, reactor: Any, pool: ThreadPool, source: FloorSource, pictures: Pictures | None
    ) -> None:
        self.reactor = reactor
        self.pool = pool
        self.source = source
        self.pictures = pictures
        self._cache: OrderedDict[tuple[Any, ...], bytes] = OrderedDict()

    def answer(self, request: Request, server: str, table: str, number: int) -> bytes | int:
        """Serve ``/picture/SERVER/TABLE/ROUND``: the round's picture, at the asked size and
        as the asked terminal saw it; kept, or drawn in the pool."""
        pictures = self.pictures
        if pictures is None:
            raise Refused(404, "this console draws no pictures")
        size_text = arg(request, "size") or "960x540"
        size = PICTURE_SIZES.get(size_text)
        if size is None:
            raise Refused(400, f"a picture is one of {', '.join(PICTURE_SIZES)}")
        terminal = arg(request, "terminal") or None
        try:
            logged, timeline = self.source.round(server, table, number)
        except ETGError as exc:
            raise Refused(404, str(exc)) from None
        if terminal is not None and terminal not in timeline.credits:
            raise Refused(400, f"terminal {terminal!r} did not play round {number}")
        last_seq = logged.events[-1].seq if logged.events else 0
        key = (server, table, number, last_seq, terminal, size)
        kept = self._cache.get(key)
        if kept is not None:
            self._cache.move_to_end(key)
            return png(request, kept)
        drawing: Deferred[bytes] = deferToThreadPool(
            self.reactor, self.pool, pictures, logged, timeline, terminal, size
        )

        def drawn(data: bytes) -> None:
            self._cache[key] = data
            while len(self._cache) > PICTURES_KEPT:
                self._cache.popitem(last=False)
            finish(request, png(request, data))

        def failed(failure: Failure) -> None:
            log.failure(
                "drawing round {round} of {table} failed", failure, round=number, table=table
            )
            request.setResponseCode(500)
            request.setHeader(b"content-type", b"text/plain; charset=utf-8")
            finish(request, f"the picture could not be drawn: {failure.getErrorMessage()}".encode())

        drawing.addCallbacks(drawn, failed)
        return NOT_DONE_YET


@dataclass
class VerifyJob:
    """One verification started from the verify page."""

    id: str
    server: str
    person: str
    started: str
    status: str = "running"
    report: VerifyReport | None = None
    problem: str | None = None


class Verifications:
    """Verifications of a log, run in ``pool``; the last :data:`JOBS_KEPT` kept as jobs.

    Args:
        reactor: The reactor.
        pool: The verifications' thread pool (started and stopped by the console).
        source: Where logs are read and verified.
        audit: The console's audit log.
    """

    def __init__(
        self, reactor: Any, pool: ThreadPool, source: FloorSource, audit: AuditLog
    ) -> None:
        self.reactor = reactor
        self.pool = pool
        self.source = source
        self.audit = audit
        self.jobs: OrderedDict[str, VerifyJob] = OrderedDict()

    def list_page(self, request: Request, session: Session) -> bytes:
        """Serve ``/verify``: the servers whose log may be verified, and the jobs, newest
        first."""
        jobs = list(reversed(self.jobs.values()))
        body = recall_pages.verify_page(viewer(session), self.source.servers(), jobs)
        return page(request, session, "Verify a log", body)

    def start(self, request: Request, session: Session) -> bytes:
        """Serve ``POST /action/verify``: start verifying a server's log (audited), and go
        to its job's page."""
        server = arg(request, "server")
        if server not in self.source.servers():
            raise Refused(404, f"the console reads no log of a server {server!r}")
        started = dt.datetime.fromtimestamp(self.reactor.seconds(), dt.UTC)
        job = VerifyJob(
            new_token()[:16], server, session.person, started.strftime("%Y-%m-%d %H:%M:%S UTC")
        )
        self.jobs[job.id] = job
        while len(self.jobs) > JOBS_KEPT:
            self.jobs.popitem(last=False)
        audit_request(
            self.audit, request, session, "verify", target=server, detail="started", job=job.id
        )
        verifying: Deferred[VerifyReport] = deferToThreadPool(
            self.reactor, self.pool, self.source.verify, server
        )

        def done(report: VerifyReport) -> None:
            job.report, job.status = report, "proven" if report.ok else "FAILED"

        def failed(failure: Failure) -> None:
            job.problem, job.status = failure.getErrorMessage(), "could not be read"

        verifying.addCallbacks(done, failed)
        return redirect(request, f"/verify/{job.id}")

    def job_page(self, request: Request, session: Session, job_id: str) -> bytes:
        """Serve ``/verify/JOB``: the job's report, or a page that refreshes until it is
        done."""
        job = self.jobs.get(job_id)
        if job is None:
            raise Refused(404, "no such verification")
        if job.status == "running":
            body = html(
                "<p>Verifying the log of {} (started {} by {}); this page shows the report "
                'when it is done.</p><p><a href="/verify/{}">Refresh</a></p>',
                job.server,
                job.started,
                job.person,
                job.id,
            )
            request.setHeader(b"refresh", b"2")
        elif job.report is not None:
            body = recall_pages.verify_report_html(job.report)
        else:
            body = html('<p class="error">The log could not be verified: {}</p>', job.problem)
        return page(request, session, f"Verification of {job.server}", body)


class Reports:
    """The shift reports (605a.5(d)), folded from a log in ``pool``.

    Args:
        reactor: The reactor.
        pool: The reports' thread pool (started and stopped by the console).
        source: Where logs are read.
        shifts: The floor's shifts.
        audit: The console's audit log (a download is audited).
    """

    def __init__(
        self,
        reactor: Any,
        pool: ThreadPool,
        source: FloorSource,
        shifts: ShiftClock,
        audit: AuditLog,
    ) -> None:
        self.reactor = reactor
        self.pool = pool
        self.source = source
        self.shifts = shifts
        self.audit = audit

    def answer(self, request: Request, session: Session, parts: list[str]) -> bytes | int:
        """Serve ``/reports`` (the form, and the chosen shift's report), ``/reports.csv``
        (its download, audited) and ``/reports/print`` (its printable page)."""
        servers = self.source.servers()
        now = dt.datetime.fromtimestamp(self.reactor.seconds(), dt.UTC)
        current = self.shifts.shift_at(now)
        server = arg(request, "server") or (servers[0] if servers else "")
        problem = None
        try:
            day = dt.date.fromisoformat(arg(request, "day")) if arg(request, "day") else current.day
            number = (
                number_arg(arg(request, "shift"), "shift")
                if arg(request, "shift")
                else current.number
            )
            shift = self.shifts.shift(day, number)
        except (ValueError, Refused) as exc:
            problem, day, number, shift = str(exc), current.day, current.number, None
        if server not in servers:
            problem = problem or f"the console reads no log of a server {server!r}"
        shown_to = viewer(session)
        day_shifts = self.shifts.shifts_of(day)
        if problem is not None or shift is None or not (request.args or parts != ["reports"]):
            body = report_pages.report_page(
                shown_to, servers, server, day, number, day_shifts, None, None, problem
            )
            return page(request, session, "Meter reports", body)
        folding: Deferred[list[ReportRow]] = deferToThreadPool(
            self.reactor, self.pool, self.source.shift_report, server, shift, now
        )
        chosen = shift

        def done(rows: list[ReportRow]) -> None:
            if parts == ["reports.csv"]:
                request.setHeader(b"content-type", b"text/csv; charset=utf-8")
                name = f"etg-report-{server}-{chosen.day.isoformat()}-shift{chosen.number}.csv"
                request.setHeader(b"content-disposition", f'attachment; filename="{name}"'.encode())
                audit_request(
                    self.audit,
                    request,
                    session,
                    "report downloaded",
                    target=f"{server} {chosen.label}",
                )
                finish(request, report_csv(rows).encode("utf-8"))
            elif parts == ["reports", "print"]:
                printed = now.strftime("%Y-%m-%d %H:%M")
                body = report_pages.printable_report(chosen, server, rows, printed)
                finish(request, page(request, session, "Meter report", body, printable=True))
            else:
                body = report_pages.report_page(
                    shown_to, servers, server, day, number, day_shifts, chosen, rows, None
                )
                finish(request, page(request, session, "Meter reports", body))

        def failed(failure: Failure) -> None:
            log.failure("the report of {server} failed", failure, server=server)
            body = report_pages.report_page(
                shown_to,
                servers,
                server,
                day,
                number,
                day_shifts,
                None,
                None,
                f"the report could not be made: {failure.getErrorMessage()}",
            )
            finish(request, page(request, session, "Meter reports", body))

        folding.addCallbacks(done, failed)
        return NOT_DONE_YET
