"""What the network layer sees of a table: the operations of :class:`TableMachine`.

Every game's round machine implements it (built by its :class:`~game_server.games.api.Game`);
the AMP server (:mod:`game_server.net`) calls it and listens to it. Every operation either
completes and returns after its step is logged (save), or raises a declared error; listeners
are told after the log write (then send). Beside it, what every machine is built on: the
clock of the countdowns (:class:`ReactorTime`) and the refusals of a closed table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from enum import StrEnum
from typing import Any, Final, Protocol

from game_server.table.session import TableError


class TableState(StrEnum):
    """Whether the table deals rounds."""

    CLOSED = "closed"
    OPEN = "open"
    OUT_OF_SERVICE = "out-of-service"


class DelayedCall(Protocol):
    """What a countdown keeps of a scheduled call (Twisted's ``IDelayedCall``)."""

    def active(self) -> bool: ...

    def cancel(self) -> None: ...


class ReactorTime(Protocol):
    """The clock the countdowns run on: Twisted's ``IReactorTime`` (the reactor in
    production, ``twisted.internet.task.Clock`` in tests), as a structural type for mypy."""

    def seconds(self) -> float: ...

    def callLater(self, delay: float, callable: Callable[..., Any], *args: Any) -> DelayedCall: ...


class TableClosed(TableError):
    """A wager or decision while the table is closed or closing: wait until it opens."""


class TableOutOfService(TableClosed):
    """A wager or decision while the table is out of service (or going out of service)."""


class BettingClosed(TableError):
    """A wager outside the betting window (the cards are dealt or the round is over): wait for
    the next round's window."""


class NotInRound(TableError):
    """A decision from a terminal that has placed no wager in the open round."""


class TableListener(Protocol):
    """Told after every logged step, with the step's records (the AMP server pushes each
    terminal its new view from here). ``terminals`` names the terminals of the table that
    logged the step when a server hosts several tables (None: every terminal)."""

    def step_logged(
        self, events: Sequence[Any], terminals: Collection[str] | None = None
    ) -> None: ...


class TableMachine(Protocol):
    """The live table as the network layer drives it."""

    @property
    def state(self) -> TableState: ...

    def open(self) -> None: ...

    def close(self) -> None: ...

    def out_of_service(self, reason: str) -> None: ...

    def place_wagers(
        self, terminal: str, wagers: Mapping[str, int], position: int | None = None
    ) -> None:
        """Place the terminal's wagers for the open round; ``position`` is the player
        position chosen at a three-position hybrid table (58 Pa. Code 633b.5(l)), refused
        at any other table."""
        ...

    def answer_insurance(self, terminal: str, choice: str, amount: int) -> None: ...

    def parse_action(self, terminal: str, action: str) -> Any:
        """The game's decision an ``Act`` command names (``"hit"``, ``"check"``...) at
        ``terminal``'s table, for :meth:`act`; a name the game does not know is refused with
        a :class:`~game_server.rules.errors.RulesError` that lists its decisions."""
        ...

    def act(self, terminal: str, action: Any, hand: int, amount: int | None) -> None:
        """A decision (from :meth:`parse_action`) on the terminal's hand ``hand``; ``amount``
        is what the game reads with it (a double down's stake, a Play multiple)."""
        ...

    def cash_in(self, terminal: str, amount: int, reference: str) -> int: ...

    def cash_out(self, terminal: str, amount: int | None, reference: str) -> int: ...

    def view(self, terminal: str) -> dict[str, Any]: ...

    def rules(self, terminal: str) -> dict[str, Any]:
        """The rules and paytables of ``terminal``'s table
        (:func:`~game_server.table.info.rules_for`)."""
        ...

    def meters(self) -> dict[str, Any]: ...

    def add_listener(self, listener: TableListener) -> None: ...


class HostedTable(TableMachine, Protocol):
    """What the server process needs of each table's machine besides the network's
    operations: its session, out of service at once when the event log fails, and a session
    rebuilt from the log put in its place before it reopens."""

    @property
    def session(self) -> Any: ...

    def fault(self, reason: str) -> None: ...

    def replace_session(self, session: Any) -> None: ...


def whole_seconds(seconds: float | None) -> int | None:
    """Seconds left as the terminal shows them (rounded up)."""
    return None if seconds is None else math.ceil(seconds - 1e-9)


#: What each of the platform's countdowns does at zero, in the words every game's terminal
#: shows under its ring ("then: deal"); a decision countdown's is the game's own (its
#: countdown default: stand, check, fold).
COUNTDOWN_THEN: Final = {"betting": "deal", "insurance": "decline", "next-round": "next round"}


def countdown_view(
    kind: str | None, seconds: float | None, decision: str | None = None
) -> dict[str, Any] | None:
    """The view's ``countdown`` for the running countdown ``kind`` with ``seconds`` left:
    what it does at zero from :data:`COUNTDOWN_THEN`, a decision's ``decision`` (None: the
    terminal that sees it has nothing to decide). None when no countdown runs."""
    if kind is None:
        return None
    then = decision if kind == "decision" else COUNTDOWN_THEN.get(kind)
    return {"for": kind, "seconds_left": whole_seconds(seconds), "then": then}
