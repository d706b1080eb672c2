"""What the table server pushes its terminals after each logged step: their views.

:class:`ViewPushes` is a part of :class:`~game_server.net.server.TableServerFactory` (a
mixin; the factory holds the attributes). After each logged step
(:meth:`ViewPushes.step_logged`, save then send) every connected terminal of the table that
stepped is pushed its own view as ``ViewUpdate``. The views of one step are built together
and what they share (the dealer's cards, the limits, the shoe) is built once; each
terminal's view goes through the one redaction of face-down cards
(:func:`~game_server.table.secrecy.redact_view`) and is encoded once however many of its
connections get it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from twisted.internet.defer import Deferred
from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from game_server.net.floor import FloorConfig
from game_server.net.identity import Identity
from game_server.net.pki import Role
from game_server.table.api import HostedTable, TableMachine
from game_server.table.secrecy import redact_view
from game_server.table.session import LogWriteFailed, TableBook, out_of_service_reason
from game_server.table.steps import run_step
from shared.protocol import RedactedView

if TYPE_CHECKING:
    from game_server.net.server import TerminalProtocol

#: The server's log lines keep its namespace (what operators and tests look for).
log = Logger(namespace="game_server.net.server")

_T = TypeVar("_T")


class ViewPushes:
    """The views of the terminals, built, redacted and pushed after each logged step (a part
    of :class:`~game_server.net.server.TableServerFactory`, which holds the attributes)."""

    machine: TableMachine
    floor: FloorConfig
    tables: Mapping[str, HostedTable]
    clock: IReactorTime
    connections: list[Any]
    views_masked: int
    _when_written: Callable[[Callable[[Any], None]], bool] | None
    _views_held: bool
    _dirty: set[frozenset[str] | None]
    _dirty_call: Any
    _by_terminal: dict[str, list[TerminalProtocol]]

    def redacted(self, terminal: str, view: dict[str, Any]) -> RedactedView:
        """``view`` encoded for the wire through the one redaction of face-down cards
        (:func:`~game_server.table.secrecy.redact_view`, with the sight of the terminal's
        table): the only way a view reaches the wire (:class:`~shared.protocol.ViewJson`)."""
        book = self._book_of(terminal)
        return redact_view(
            view,
            getattr(book, "sight", None),
            terminal,
            getattr(book, "last_sight", None),
            self._view_masked,
        )

    def _view_masked(self, terminal: str, cards: list[str]) -> None:
        """A game's view showed cards its terminal may not see: masked; a bug to report."""
        self.views_masked += 1
        log.error(
            "the view of {terminal} showed {count} card(s) it may not see; masked before it "
            "was sent (a bug of its game's view)",
            terminal=terminal,
            count=len(cards),
        )

    def _book_of(self, terminal: str) -> Any:
        """The session of ``terminal``'s table (None for a fake machine without one)."""
        table = self.floor.tables.get(terminal, "")
        hosted = self.tables.get(table)
        return getattr(hosted if hosted is not None else self.machine, "session", None)

    def view_for(self, terminal: str) -> dict[str, Any]:
        """The view ``terminal`` is sent: its game's (:meth:`TableMachine.view`) and, from the
        platform for every game, its table's shoes (``"shoe"``:
        :meth:`~game_server.table.session.TableBook.public_shoe`: the commitment of the shoe
        in use and the reveal of the last one retired; never a secret of the shoe in use)."""
        return self._with_shoe(terminal, self.machine.view(terminal), {})

    def views_for(self, terminals: Sequence[str]) -> dict[str, dict[str, Any] | Exception]:
        """The view of each of ``terminals`` (as :meth:`view_for`), built together: a machine
        that builds several at once (``views(terminals)``, e.g. Blackjack's
        :meth:`~game_server.games.blackjack.machine.RoundMachine.views`) builds the parts
        every terminal of a table sees once and shares them between their views, as is the
        shoe of each table. A terminal whose view cannot be built gets its exception instead
        (alone when the machine builds one at a time; after a failed batch each is built
        again alone)."""
        views: dict[str, dict[str, Any] | Exception] = {}
        batch = getattr(self.machine, "views", None)
        if batch is not None and len(terminals) > 1:
            try:
                views.update(batch(terminals))
            except Exception:
                log.failure("the views of {count} terminals failed together", count=len(terminals))
                views.clear()
        shoes: dict[str, Any] = {}
        for terminal in terminals:
            try:
                view = views.get(terminal)
                if view is None:
                    view = self.machine.view(terminal)
                views[terminal] = self._with_shoe(terminal, cast(dict[str, Any], view), shoes)
            except Exception as exc:
                views[terminal] = exc
        return views

    def _with_shoe(
        self, terminal: str, view: dict[str, Any], shoes: dict[str, Any]
    ) -> dict[str, Any]:
        """``view`` with its table's shoes (``shoes``: each table's, once built)."""
        table = self.floor.tables.get(terminal, "")
        if table not in shoes:
            book = self._book_of(terminal)
            shoes[table] = book.public_shoe() if isinstance(book, TableBook) else _NO_SHOE
        if shoes[table] is not _NO_SHOE:
            view["shoe"] = shoes[table]
        return view

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        """Push each connected terminal (of the table that logged, when ``terminals`` says)
        its new view, once the step is durable: at once when the log's append returned it
        durable; when the log commits behind, the views of every step logged in this turn of
        the reactor are built once, at its end (an input that logs several steps, the
        wagers of a table's terminals that arrive together), and sent once committed."""
        if self._when_written is None:
            self._push_views(terminals)
            return
        self._dirty.add(None if terminals is None else frozenset(terminals))
        if self._dirty_call is None:
            self._dirty_call = cast(Any, self.clock).callLater(0, self._push_dirty)

    def _push_dirty(self) -> None:
        """The views of the tables that logged a step since the last push, each table's as a
        step of its own: a table whose step waits on the floor store (a linked meter) is
        pushed once that step is done, from the state it left; the others go at once."""
        dirty, self._dirty, self._dirty_call = self._dirty, set(), None
        for terminals in [None] if None in dirty else dirty:
            pushed = run_step(self._push_views, terminals)
            if isinstance(pushed, Deferred):
                pushed.addErrback(lambda failure: log.failure("a view push failed", failure))

    @contextmanager
    def views_held(self) -> Iterator[None]:
        """No view is pushed meanwhile (the server replaces the tables' sessions with what
        the log holds after a failed commit, then pushes every terminal its view)."""
        self._views_held = True
        try:
            yield
        finally:
            self._views_held = False

    def _push_views(self, terminals: Collection[str] | None) -> None:
        if self._views_held:
            return
        pushes = self.after_written(self._views_of(terminals))
        if isinstance(pushes, Deferred):
            # Built now (this step's state), sent once the step is durable; never when its
            # commit failed (the table goes out of service and is rebuilt from the log).
            pushes.addCallbacks(self._send_views, lambda _: None)
        else:
            self._send_views(pushes)

    def after_written(self, value: _T) -> _T | Deferred[_T]:
        """``value`` once every write the event log planned so far is durable (save, then
        send, when the log commits on its own thread: :meth:`EventLog.write_behind
        <game_server.eventlog.log.EventLog.write_behind>`): ``value`` itself when nothing
        waits, else a Deferred of it, which fails with
        :class:`~game_server.table.session.LogWriteFailed` if the commit failed."""
        if self._when_written is None:
            return value
        done: Deferred[_T] = Deferred()

        def written(error: Exception | None) -> None:
            if error is None:
                done.callback(value)
            else:
                done.errback(LogWriteFailed(out_of_service_reason(error)))

        return done if self._when_written(written) else value

    def _terminal_connections(self, terminals: Collection[str] | None) -> list[TerminalProtocol]:
        """The terminals' connections that said Hello (every terminal's when None), in the
        order they said it."""
        if terminals is None:
            found = [
                c
                for c in self.connections
                if c.identity is not None and c.identity.role is Role.TERMINAL
            ]
        else:
            # By terminal id: a step of one table looks at its own terminals only, however
            # many the server holds.
            found = [c for t in terminals for c in self._by_terminal.get(t, ())]
            found.sort(key=lambda c: c.hello_order)
        return found

    def _views_of(
        self, terminals: Collection[str] | None
    ) -> list[tuple[TerminalProtocol, RedactedView]]:
        """Each connected terminal (of ``terminals``, if given) with its view now, encoded:
        built together (:meth:`views_for`), so that what the views share is built once, and
        each terminal's view encoded once (:func:`~shared.protocol.encode_view`) however many
        of its connections get it. A terminal whose view fails is logged and dropped."""
        connections = self._terminal_connections(terminals)
        ids = list(dict.fromkeys(c.identity.id for c in connections if c.identity is not None))
        views = self.views_for(ids)
        encoded: dict[str, RedactedView | None] = {}
        pushes: list[tuple[TerminalProtocol, RedactedView]] = []
        for connection in connections:
            terminal = cast(Identity, connection.identity).id
            if terminal not in encoded:
                view = views[terminal]
                try:
                    if isinstance(view, Exception):
                        raise view
                    encoded[terminal] = self.redacted(terminal, view)
                except Exception:
                    log.failure("the view of {terminal} failed; dropping it", terminal=terminal)
                    encoded[terminal] = None
            data = encoded[terminal]
            if data is None:
                connection.drop("the view could not be sent")
                continue
            pushes.append((connection, data))
        return pushes

    def _send_views(self, pushes: Sequence[tuple[TerminalProtocol, RedactedView]]) -> None:
        for connection, view in pushes:
            identity = connection.identity
            held = self._by_terminal.get(identity.id, ()) if identity is not None else ()
            if connection.dropped or connection not in held:
                continue  # closed meanwhile
            try:
                connection.push_view(view)
            except Exception:
                log.failure(
                    "pushing the view to {terminal} failed; dropping it", terminal=connection.who
                )
                connection.drop("the view could not be sent")


#: A table without shoes (a fake machine in the tests): its views carry no ``"shoe"``.
_NO_SHOE: Final = object()
