"""A command runs at most once per request id of its client.

:class:`OncePerRequest` is a part of :class:`~game_server.net.server.TerminalProtocol` (a
mixin; the connection holds the attributes). The first answer or declared error of the last
:data:`~game_server.net.wire.TERMINAL_ANSWERS_KEPT` request ids of each terminal (the last
:data:`~game_server.net.wire.ANSWERS_KEPT` of the operator) is kept in the factory's
:class:`~game_server.net.wire.AnswerBook`, and a retry with the same id, on this or a later
connection, gets it again and changes nothing (:meth:`OncePerRequest._retried`). Across
restarts too: the first step a command logs carries its client and request id into the event
log in the same transaction (:mod:`game_server.table.requests`), and a retry of one whose
answer the crash lost is answered with ``already`` and runs nothing
(:meth:`OncePerRequest._already`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from game_server.net.identity import Identity
from game_server.net.pki import Role
from game_server.net.wire import Applied, Outcome, declared
from game_server.table import requests
from game_server.table.steps import run_step
from shared.protocol import BadRequest, ProtocolError, check_request_id

#: The server's log lines keep its namespace (what operators and tests look for).
log = Logger(namespace="game_server.net.server")

#: What :meth:`OncePerRequest._retried` returns when the request id is a new one.
_NEW: Any = object()


class OncePerRequest:
    """Runs each command of a connection at most once per request id (see the module
    docstring)."""

    #: The connection's :class:`~game_server.net.server.TableServerFactory`.
    factory: Any
    identity: Identity | None

    @property
    def who(self) -> str:
        raise NotImplementedError

    def _view(self) -> dict[str, Any]:
        raise NotImplementedError

    def _once(
        self,
        command: bytes,
        request_id: str,
        run: Callable[[], dict[str, Any]],
        now: Callable[[Applied], dict[str, Any]] | None = None,
    ) -> Any:
        """Run a command at most once per request id of this client (see
        :class:`~game_server.net.wire.AnswerBook`).

        ``run`` runs as the client's request (:func:`game_server.table.requests.running`):
        the first step it logs carries the request id into the event log, in the same
        transaction. A retry of an id the log says took effect with no answer at hand (it
        ran before this server started) is answered by ``now`` (the terminal's view when
        None) with ``already`` saying so, and runs nothing (:meth:`_already`).
        """
        check_request_id(request_id)
        assert self.identity is not None
        retried = self._retried(command, request_id, now)
        if retried is not _NEW:
            return retried
        return self._run_first(self.identity, command, request_id, run)

    def _retried(
        self,
        command: bytes,
        request_id: str,
        now: Callable[[Applied], dict[str, Any]] | None,
    ) -> Any:
        """The answer to a retry of ``request_id`` (in flight, kept, or taken effect before
        this server started), or :data:`_NEW` when the id is a new one.

        Raises:
            BadRequest: the id was used for another command.
        """
        assert self.identity is not None
        book = self.factory.answers
        first = book.get(self.identity.id, request_id)
        flying = None if first is not None else book.in_flight(self.identity.id, request_id)
        if flying is not None:
            # A retry of a request whose answer waits on the log's commit: the same answer.
            if flying != command:
                raise BadRequest(
                    f"request id {request_id!r} was used for {flying.decode('ascii')}; use a "
                    "new id for each command"
                )
            log.info(
                "retry of {request_id} from {terminal} (in flight)",
                request_id=request_id,
                terminal=self.who,
            )
            return book.join(self.identity.id, request_id)
        if first is None:
            return _NEW
        if first.command != command:
            raise BadRequest(
                f"request id {request_id!r} was used for {first.command.decode('ascii')}; "
                "use a new id for each command"
            )
        log.info("retry of {request_id} from {terminal}", request_id=request_id, terminal=self.who)
        if first.applied is not None:
            return self._already(first.applied, now)
        return first.replay()

    def _run_first(
        self,
        identity: Identity,
        command: bytes,
        request_id: str,
        run: Callable[[], dict[str, Any]],
    ) -> Any:
        """Run a command the first time its request id is seen, as the client's request, and
        keep its answer or declared error for the retries (save, then send: the answer waits
        for the log's commit of what the step wrote)."""
        book = self.factory.answers
        terminal = identity.role is Role.TERMINAL
        name = command.decode("ascii")
        request: list[requests.Request] = []

        def as_request() -> dict[str, Any]:
            with requests.running(
                identity.id, request_id, name, identity.id if terminal else None
            ) as running:
                request.append(running)
                return run()

        def took_effect() -> None:
            """The command logged its step, then failed without a declared answer: a retry
            must not run it again."""
            if request and request[0].logged:
                book.remember_applied([Applied(identity.id, request_id, name)])

        def refused(exc: Exception) -> ProtocolError:
            known = declared(exc)
            if known is None:
                took_effect()
                raise exc
            book.put(
                identity.id,
                request_id,
                Outcome(command, None, type(known), str(known)),
                terminal=terminal,
            )
            log.info(
                "{command} {request_id} from {terminal} refused: {error}",
                command=command,
                request_id=request_id,
                terminal=self.who,
                error=str(known),
            )
            return known

        def answered(response: dict[str, Any]) -> dict[str, Any]:
            book.put(identity.id, request_id, Outcome(command, response), terminal=terminal)
            return response

        def failed(failure: Failure) -> Failure:
            error = failure.value
            if not isinstance(error, Exception):
                return failure
            try:
                return Failure(refused(error))  # type: ignore[no-untyped-call]  # unannotated
            except Exception:
                book.abandon(identity.id, request_id, error)
                took_effect()
                raise

        try:
            # A step of a table that links meters across the floor may wait on the floor
            # store: then the answer is a Deferred and the reactor serves the others.
            response = run_step(as_request)
        except Exception as exc:
            raise refused(exc) from None
        if isinstance(response, Deferred):
            response.addCallback(self.factory.after_written)
        else:
            response = self.factory.after_written(response)
        if isinstance(response, Deferred):
            book.begin(identity.id, request_id, command)
            return response.addCallbacks(answered, failed)
        return answered(response)

    def _already(self, applied: Applied, now: Callable[[Applied], dict[str, Any]] | None) -> Any:
        """The answer to a retry of a request id that took effect before this server started
        (or that failed after it took effect): nothing runs; the answer is rebuilt from what
        the log says it did and the state now (``now``; the terminal's view when None), with
        ``already`` saying so. Not kept: each retry gets the state of its own moment."""
        log.info(
            "{command} {request_id} from {terminal} already took effect (seq {seq}); not run again",
            command=applied.command,
            request_id=applied.request_id,
            terminal=self.who,
            seq=applied.seq,
        )

        def build() -> dict[str, Any]:
            answer = self._view() if now is None else now(applied)
            answer["already"] = applied.sentence()
            return answer

        answer = run_step(build)
        if isinstance(answer, Deferred):
            return answer.addCallback(self.factory.after_written)
        return self.factory.after_written(answer)
