"""The operator's AMP commands: credits in and out, the table's state, a terminal's access and
the meters, each run once per request id and logged at its table with the person and role
who asked (:class:`~game_server.table.events.OperatorAction`), done or refused.

A retry of a request id that took effect before the server restarted is answered from the
log (``already``): a cash in or out with the amount and balance its ``credits_in`` /
``credits_out`` logged, a state change or a terminal's access with the state now.

:class:`OperatorCommands` is a part of :class:`~game_server.net.server.TerminalProtocol`
(which checks, before any of these runs, that the peer holds the operator certificate); it
uses the protocol's ``factory``, ``who``, ``_once`` and ``_call``.

Entry point: :class:`OperatorCommands`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final, TypeVar

from twisted.logger import Logger
from twisted.protocols import amp

from game_server.net.floor import FloorConfig
from game_server.net.identity import RevocationList
from game_server.net.pki import Role
from game_server.net.wire import Applied, declared, wallet
from game_server.table import requests
from game_server.table.api import HostedTable, TableMachine, TableState
from game_server.table.events import OperatorAction, TerminalAccess, operator_text
from shared.protocol import (
    BadRequest,
    CashIn,
    CashOut,
    SetTableState,
    SetTerminalAccess,
    TableUnavailable,
)

log = Logger(namespace="game_server.net.server")

_T = TypeVar("_T")

#: The longest ``person`` and ``role`` an operator command may name.
MAX_PERSON: Final = 64
MAX_ROLE: Final = 32
_ACCESS: Final = {"revoke": "revoked", "reinstate": "reinstated"}


class OperatorCommands:
    """The operator's commands of a connection (see the module docstring)."""

    #: The connection's :class:`~game_server.net.server.TableServerFactory` (typed ``Any``:
    #: Twisted's ``Protocol`` declares ``factory`` itself).
    factory: Any

    @property
    def who(self) -> str:
        raise NotImplementedError

    def _once(
        self,
        command: bytes,
        request_id: str,
        run: Callable[[], dict[str, Any]],
        now: Callable[[Applied], dict[str, Any]] | None = None,
    ) -> Any:
        raise NotImplementedError

    def _call(self, operation: Callable[..., _T], *args: Any) -> _T:
        raise NotImplementedError

    def _seated(self, terminal: str) -> str:
        if self.factory.floor.seat_of(terminal) is None:
            raise BadRequest(f"terminal {terminal!r} holds no seat at this table (floor.toml)")
        return terminal

    def cash_in(
        self,
        request_id: str,
        terminal: str,
        amount: int,
        reference: str,
        person: str | None = None,
        role: str | None = None,
    ) -> Any:
        def move(target: str) -> tuple[int, dict[str, Any]]:
            balance = self._call(self.factory.machine.cash_in, target, amount, reference)
            return amount, {"balance": balance}

        def now(applied: Applied) -> dict[str, Any]:
            moved = applied.moved
            balance = moved[1] if moved is not None else self._balance(terminal)
            return self._logged(applied, {"balance": balance})

        who = (person, role)
        return self._credits(CashIn, "cash-in", request_id, terminal, reference, who, move, now)

    def cash_out(
        self,
        request_id: str,
        terminal: str,
        amount: int,
        reference: str,
        person: str | None = None,
        role: str | None = None,
    ) -> Any:
        def move(target: str) -> tuple[int, dict[str, Any]]:
            machine = self.factory.machine
            paid = self._call(machine.cash_out, target, amount or None, reference)
            return paid, {"paid": paid, "balance": wallet(machine.meters(), target)}

        def now(applied: Applied) -> dict[str, Any]:
            moved = applied.moved
            if moved is None:  # not a log this build writes: the balance now, nothing paid
                return self._logged(applied, {"paid": 0, "balance": self._balance(terminal)})
            return self._logged(applied, {"paid": moved[0], "balance": moved[1]})

        who = (person, role)
        return self._credits(CashOut, "cash-out", request_id, terminal, reference, who, move, now)

    def _credits(
        self,
        command: type[amp.Command],
        name: str,
        request_id: str,
        terminal: str,
        reference: str,
        asked_by: tuple[str | None, str | None],
        move: Callable[[str], tuple[int, dict[str, Any]]],
        now: Callable[[Applied], dict[str, Any]],
    ) -> Any:
        """A cash in or out of a seated terminal, once per request id, logged with who
        asked (:meth:`_attributed`); ``now`` answers a retry of one that took effect before
        the server started."""

        def run() -> dict[str, Any]:
            who = _who(*asked_by)
            target = self._seated(terminal)
            action = OperatorAction(name, *who, target, 0, reference, request_id, "")
            return self._attributed(action, self.factory.tables_of(target), lambda: move(target))

        return self._once(command.commandName, request_id, run, now)

    def _balance(self, terminal: str) -> int:
        """``terminal``'s credits now."""
        return wallet(self._call(self.factory.machine.meters), terminal)

    def _logged(self, applied: Applied, answer: dict[str, Any]) -> dict[str, Any]:
        """``answer`` with ``logged`` as the first answer had it (a server that logs
        operator actions): whether the log holds the action's record."""
        if self.factory.tables:
            answer["logged"] = int(applied.logged)
        return answer

    def set_table_state(
        self,
        request_id: str,
        state: str,
        reason: str,
        table: str | None = None,
        person: str | None = None,
        role: str | None = None,
    ) -> Any:
        def run() -> dict[str, Any]:
            who = _who(person, role)
            machine = self._table_machine(table)
            if state not in (TableState.OPEN.value, "close", TableState.OUT_OF_SERVICE.value):
                raise BadRequest(f"{state!r} is not a table state; open, close or out-of-service")
            action = OperatorAction(state, *who, "", 0, reason, request_id, "")

            def do() -> tuple[int, dict[str, Any]]:
                if state == TableState.OPEN.value:
                    if self.factory.reopen is not None:
                        self._call(self.factory.reopen)
                    self._call(machine.open)
                elif state == "close":
                    self._call(machine.close)
                else:
                    if not reason.strip():
                        raise BadRequest("taking the table out of service needs a reason")
                    self._call(machine.out_of_service, reason)
                return 0, {"state": machine.state.value}

            tables = [table] if table is not None else self.factory.tables_of(None)
            answer = self._attributed(action, tables, do)
            for each in tables:
                self.factory.set_by[each] = {
                    "action": state,
                    "person": who[0],
                    "role": who[1],
                    "reason": reason,
                }
            return answer

        def now(applied: Applied) -> dict[str, Any]:
            return self._logged(applied, {"state": self._table_machine(table).state.value})

        return self._once(SetTableState.commandName, request_id, run, now)

    def set_terminal_access(
        self,
        request_id: str,
        terminal: str,
        access: str,
        reason: str,
        person: str | None = None,
        role: str | None = None,
    ) -> Any:
        def run() -> dict[str, Any]:
            who = _who(person, role)
            target = self._seated(terminal)
            done = _ACCESS.get(access)
            if done is None:
                raise BadRequest(f"{access!r} is not a terminal access; revoke or reinstate")
            if not reason.strip():
                raise BadRequest(f"to {access} a terminal needs a reason")
            factory = self.factory
            if access == "reinstate" and target in factory.file_revocations.ids:
                raise BadRequest(
                    f"terminal {target} is revoked in floor.toml ([floor.revoked] terminals); "
                    "remove it there and restart the server to reinstate it"
                )
            tables = factory.tables_of(target)
            if not tables:
                raise TableUnavailable(
                    "this server keeps no event log of operator actions: a revocation that "
                    "would not survive a restart is refused; revoke it in floor.toml"
                )
            record = TerminalAccess(target, done, reason, *who, request_id)
            # Save, then act: the revocation holds across a restart only if it is logged.
            self._call(factory.hosted(tables[0]).session.record, target, record)
            factory.set_revoked(target, access == "revoke")
            log.info(
                "terminal {target} {done} ({reason}) by {terminal}{person}",
                target=target,
                done=done,
                reason=reason,
                terminal=self.who,
                person=_by(who),
            )
            return {"revoked": sorted(factory.floor.revocations.ids), "logged": 1}

        def now(applied: Applied) -> dict[str, Any]:
            revoked = sorted(self.factory.floor.revocations.ids)
            return self._logged(applied, {"revoked": revoked})

        return self._once(SetTerminalAccess.commandName, request_id, run, now)

    def _table_machine(self, table: str | None) -> TableMachine:
        """The machine ``SetTableState`` acts on: the whole server's, or one table's."""
        machine: TableMachine = self.factory.machine
        if table is None:
            return machine
        hosted: Mapping[str, TableMachine] = self.factory.tables
        if table not in hosted:
            known = ", ".join(sorted(hosted)) or "none named"
            raise BadRequest(f"this server hosts no table {table!r}; its tables: {known}")
        return hosted[table]

    def _attributed(
        self,
        action: OperatorAction,
        tables: Sequence[str],
        do: Callable[[], tuple[int, dict[str, Any]]],
    ) -> dict[str, Any]:
        """Run an operator action and log it, with who asked, at each of ``tables``
        (:class:`~game_server.table.events.OperatorAction`): once done, with the amount moved
        (the answer gets ``logged`` 1, or 0 if the log could not take it); refused, with the
        refusal's sentence (best effort: the refusal is answered either way). Without
        ``tables`` (a server without a log of its tables) nothing is logged and the answer
        has no ``logged``. The server's own log gets a line either way."""
        try:
            amount, answer = do()
        except Exception as exc:
            known = declared(exc)
            if known is not None and tables:
                # The refusal's record is not what the request did: it carries no request id.
                with requests.paused():
                    self._note(tables, action._replace(refused=str(known)))
            raise
        done = action._replace(amount=amount)
        if tables:
            answer["logged"] = int(self._note(tables, done))
        log.info(
            "{text} (by {terminal}, at {tables})",
            text=operator_text(done),
            terminal=self.who,
            tables=", ".join(tables) or "the server",
        )
        return answer

    def _note(self, tables: Sequence[str], action: OperatorAction) -> bool:
        """Log ``action`` at each table; whether every table's log took it."""
        logged = True
        for table in tables:
            try:
                self.factory.hosted(table).session.record(action.terminal or None, action)
            except Exception:
                logged = False
                log.failure(
                    "the {action} by {terminal} could not be logged at table {table}",
                    action=action.action,
                    terminal=self.who,
                    table=table,
                )
        return logged

    def read_meters(self) -> dict[str, Any]:
        meters = dict(self._call(self.factory.machine.meters))
        meters["floor"] = self.factory.floor_report()
        for name, read in self.factory.server_meters.items():
            meters[name] = read()
        return {"meters": meters}


def _who(person: str | None, role: str | None) -> tuple[str, str]:
    """Who asked for an operator action: ``(person, role)``, ``("", "")`` when the client
    named nobody. Both or neither; each short printable text."""
    if person is None and role is None:
        return "", ""
    if person is None or role is None:
        raise BadRequest("person and role are given together, or neither")
    for name, value, most in (("person", person, MAX_PERSON), ("role", role, MAX_ROLE)):
        if not 1 <= len(value) <= most or not value.isprintable() or value != value.strip():
            raise BadRequest(
                f"{name} is 1 to {most} printable characters without spaces around them, "
                f"got {value[:80]!r}"
            )
    return person, role


def _by(who: tuple[str, str]) -> str:
    """`` for alice (supervisor)`` for the log line, or nothing."""
    return f" for {who[0]} ({who[1]})" if who[0] else ""


class OperatorFloor:
    """What the operator commands need of the server's factory: where an action is logged,
    the floor report of ``ReadMeters`` and the operator's revocations (a part of
    :class:`~game_server.net.server.TableServerFactory`, which holds the attributes)."""

    tables: Mapping[str, HostedTable]
    floor: FloorConfig
    file_revocations: RevocationList
    connections: list[Any]
    set_by: dict[str, dict[str, str]]
    _revoked: set[str]
    _on_revocations: Callable[[RevocationList], object] | None

    def _with_revocations(self, floor: FloorConfig) -> FloorConfig:
        files = self.file_revocations
        revocations = RevocationList(files.serials, files.ids | frozenset(self._revoked))
        return replace(floor, revocations=revocations)

    def tables_of(self, terminal: str | None) -> list[str]:
        """The tables an operator action concerns (where it is logged): the terminal's
        table, or every table for ``None``; empty when the server logs no actions."""
        if not self.tables:
            return []
        if terminal is None:
            return sorted(self.tables)
        table = self.floor.tables.get(terminal)
        if table is None:
            return sorted(self.tables)[:1]
        return [table]

    def hosted(self, table: str) -> HostedTable:
        """One hosted table's machine."""
        return self.tables[table]

    def floor_report(self) -> dict[str, Any]:
        """What ``ReadMeters`` adds under ``floor``: each terminal's seat and table, the
        terminal ids revoked (``floor.toml``'s and the operator's), the terminals connected
        now, and each table's last state change by the operator (``set_by``: action, person,
        role, reason; absent until one since the server started)."""
        online = {
            c.identity.id
            for c in self.connections
            if c.identity is not None and c.identity.role is Role.TERMINAL
        }
        return {
            "terminals": dict(self.floor.terminals),
            "tables": dict(self.floor.tables),
            "revoked": sorted(self.floor.revocations.ids),
            "online": sorted(online),
            "set_by": dict(self.set_by),
        }

    def set_revoked(self, terminal: str, revoked: bool) -> None:
        """Revoke (or reinstate) a terminal's certificate id at this server: its open
        connections are dropped, and :attr:`floor`'s revocations (Hello) and the TLS
        options' (``on_revocations``) refuse it from now on."""
        if revoked:
            self._revoked.add(terminal)
        else:
            self._revoked.discard(terminal)
        self.floor = self._with_revocations(self.floor)
        if self._on_revocations is not None:
            self._on_revocations(self.floor.revocations)
        if revoked:
            for connection in list(self.connections):
                who = connection.identity
                if who is not None and who.role is Role.TERMINAL and who.id == terminal:
                    connection.drop("its terminal was revoked by the operator")
