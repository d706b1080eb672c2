"""The clients of ``etg faults``: bot terminals and an operator script, each keeping its own
:class:`~tools.faults_check.Journal` of what it sent and what it was answered.

Each client runs on a thread of its own over one blocking mutual-TLS connection
(:class:`~tools.amp_client.AmpClient`, or a recording fake in the tests: anything with
``call``, ``close`` and ``pushed``). A command answered is *acknowledged*, with what the
answer said; a declared error is a refusal (it changed nothing); a command whose connection
dropped before its answer (the server was killed) is *unknown*, never acknowledged. The
client then connects again until the server is back, says ``Hello``, and first sends every
unknown command again with its first request id and arguments, as the real terminal sends
its pending intents after reconnecting (``terminal_client.net.client``): the server must
answer one that took effect before the kill as such (``already``, rebuilt from the log's
``request_applied``) and never run it a second time, which the checker proves
(:func:`~tools.faults_check.check`'s double effects). Then it goes on with new request ids.

- :class:`TerminalBot` plays its game's bot (:meth:`~game_server.games.api.Game.wire_bot`,
  what ``etg loadtest`` plays) from every view it gets, polling ``GetView`` when it has
  nothing to do, and sits a round out now and then (a seeded chance); every view's credits
  are noted as told. Once asked to close it wagers no
  more, plays its hands out, and takes a final view once it has nothing in play.
- :class:`OperatorScript` credits and cashes out terminals with unique references, as an
  attendant (``--person``/``--role`` logged), its choices from a seeded random stream.

Entry points: :class:`TerminalBot`, :class:`OperatorScript`.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from game_server.games.api import WireBot
from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpError
from tools.faults_check import Ack, Journal, Sent

#: The AMP command a bot's step names.
STEP_COMMANDS: Final = {
    "place_wagers": "PlaceWagers",
    "answer_insurance": "AnswerInsurance",
    "act": "Act",
}
#: Seconds between two polls of a terminal that has nothing to do, and between two tries to
#: connect while the server is down.
POLL_SECONDS: Final = 0.25
RECONNECT_SECONDS: Final = 0.2
#: The operator's person and role, logged with each of its actions.
PERSON: Final = "faults"
ROLE: Final = "attendant"


class Connection(Protocol):
    """One connection to the table server (:class:`~tools.amp_client.AmpClient`)."""

    pushed: list[dict[str, Any]]

    def call(self, command: str, **arguments: Any) -> dict[str, Any]: ...

    def close(self) -> None: ...


#: Opens a connection with the certificate of the client named (raises OSError when the
#: server cannot be reached).
Connect = Callable[[str], Connection]


class Client:
    """What both kinds of client share: the connection, the journal, sending a command.

    Args:
        name: ``operator`` or a terminal id (its certificate).
        connect: Opens a connection.
        stop: Set when the campaign ends.
        sleep: Waits (``time.sleep``; a test passes a recording fake).
    """

    def __init__(
        self,
        name: str,
        connect: Connect,
        stop: threading.Event,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = name
        self.journal = Journal(name)
        self._connect = connect
        self._stop = stop
        self._sleep = sleep
        self._conn: Connection | None = None
        self._sent = 0
        self.error: BaseException | None = None

    def connected(self) -> dict[str, Any] | None:
        """The connection's ``Hello`` answer when a new connection was made now, else None
        (already connected, or the server cannot be reached yet: then it waited a moment)."""
        if self._conn is not None:
            return None
        try:
            conn = self._connect(self.name)
        except OSError:
            self._sleep(RECONNECT_SECONDS)
            return None
        try:
            hello = conn.call("Hello", version=PROTOCOL_VERSION, software="etg-faults")
        except (OSError, AmpError):
            conn.close()
            self._sleep(RECONNECT_SECONDS)
            return None
        self._conn = conn
        self.journal.connections += 1
        self.greeted(hello)
        self._resend()
        return hello

    def greeted(self, hello: Mapping[str, Any]) -> None:
        """A new connection's ``Hello`` answer, before anything is sent again on it."""

    def _resend(self) -> None:
        """Send every unknown command again, in order, with its first request id (what the
        terminal does after reconnecting); stop at a dropped connection (the rest wait for
        the next one)."""
        for sent in list(self.journal.unknown):
            if self._conn is None:
                return
            self.journal.resent += 1
            self._deliver(sent, again=True)

    def drop(self) -> None:
        """Close the connection (it broke); the next :meth:`connected` makes a new one."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def send(self, command: str, **arguments: Any) -> dict[str, Any] | None:
        """Send a state-changing command with a new request id and journal its outcome.

        Returns:
            The answer, or None when it was refused (journaled by code) or its connection
            dropped (journaled as unknown; the connection is closed).
        """
        if self._conn is None:
            return None
        self._sent += 1
        sent = Sent(self.name, f"{self.name}-{self._sent}", command, arguments)
        self.journal.sent.append(sent)
        return self._deliver(sent)

    def _deliver(self, sent: Sent, *, again: bool = False) -> dict[str, Any] | None:
        """Send ``sent`` (``again``: an unknown one, sent again with its first request id)
        and journal its outcome: acknowledged, refused (no longer unknown), or unknown."""
        assert self._conn is not None
        try:
            answer = self._conn.call(sent.command, request_id=sent.request_id, **sent.arguments)
        except AmpError as refusal:
            self.journal.refused[f"{sent.command} {refusal.code}"] += 1
            if again:
                self.journal.unknown.remove(sent)
                self.journal.resent_outcomes["refused"] += 1
            return None
        except OSError:
            if not again:
                self.journal.unknown.append(sent)
            self.drop()
            return None
        summary = self.summary(answer)
        if again:
            self.journal.unknown.remove(sent)
            self.journal.resent_outcomes["already" if summary["already"] else "ran"] += 1
        self.journal.acks.append(Ack(sent, summary))
        return answer

    def ask(self, command: str) -> dict[str, Any] | None:
        """A command that changes nothing (``GetView``, ``ReadMeters``); None when refused or
        when the connection dropped (then closed)."""
        if self._conn is None:
            return None
        try:
            return self._conn.call(command)
        except AmpError as refusal:
            self.journal.refused[f"{command} {refusal.code}"] += 1
            return None
        except OSError:
            self.drop()
            return None

    def summary(self, answer: Mapping[str, Any]) -> dict[str, Any]:
        """What the journal keeps of an answer."""
        raise NotImplementedError

    def close(self) -> None:
        """The campaign is over: close the connection."""
        self.drop()


class TerminalBot(Client):
    """A terminal that plays its game's bot from the views it gets (see the module).

    Args:
        name: The terminal id.
        connect: Opens a connection.
        stop: Set when the campaign ends.
        bot: The game's wire bot for the table.
        sit_out: The chance that it sits a round out (no wager: the operator can cash it
            out then, which is refused while it has wagers in play), drawn from ``seed``.
        seed: Its random stream's seed.
        sleep: Waits.

    Attributes:
        closing: Set to stop wagering and play out what is in play.
        settled: Set once closing and nothing is in play; ``journal.final`` then holds the
            credits of the final view.
    """

    def __init__(
        self,
        name: str,
        connect: Connect,
        stop: threading.Event,
        bot: WireBot,
        sit_out: float = 0.0,
        seed: int | str = 0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(name, connect, stop, sleep)
        self.bot = bot
        self.sit_out = sit_out
        self.random = random.Random(seed)
        self.closing = threading.Event()
        self.settled = threading.Event()
        self.view: dict[str, Any] | None = None

    def greeted(self, hello: Mapping[str, Any]) -> None:
        self._seen(hello["view"])

    def summary(self, answer: Mapping[str, Any]) -> dict[str, Any]:
        view = self._seen(answer["view"])
        return {
            "round": view["round"],
            "credits": view["credits"],
            "phase": view["phase"],
            "already": bool(answer.get("already")),
        }

    def _seen(self, encoded: str) -> dict[str, Any]:
        """Note the pushed views and then the answered one as told; the latter is current."""
        conn = self._conn
        if conn is not None:
            for pushed in conn.pushed:
                self.journal.told.append(int(pushed["credits"]))
            conn.pushed.clear()
        view: dict[str, Any] = json.loads(encoded)
        self.journal.told.append(int(view["credits"]))
        self.view = view
        return view

    def run(self) -> None:
        """Play until the campaign stops (on the client's thread)."""
        try:
            while not self._stop.is_set():
                self.turn()
        except BaseException as exc:  # reported by the campaign, not lost with the thread
            self.error = exc
        finally:
            self.close()

    def turn(self) -> None:
        """One step: connect if needed, then act on the current view or poll for a new one."""
        self.connected()
        if self._conn is None or self.view is None:
            return
        if self.closing.is_set() and not self.settled.is_set() and nothing_in_play(self.view):
            self._settle()
            return
        step = self.bot.next_step(self.view)
        if step is not None and step.command == "place_wagers" and self._sits_out():
            step = None  # the bot counts the round as wagered: it sits it out
        if step is not None:
            answered = self.send(STEP_COMMANDS[step.command], **step.arguments)
            if answered is not None:
                return
        # Nothing to do, refused or dropped: a moment, then what the table shows now.
        self._sleep(POLL_SECONDS)
        view = self.ask("GetView")
        if view is not None:
            self._seen(view["view"])

    def _sits_out(self) -> bool:
        """Whether it leaves this round's wager out: always once closing."""
        return self.closing.is_set() or self.random.random() < self.sit_out

    def _settle(self) -> None:
        """Nothing in play once closing: a final view; its credits are ``final``."""
        answer = self.ask("GetView")
        if answer is None:
            return
        view = self._seen(answer["view"])
        if nothing_in_play(view):
            self.journal.final = int(view["credits"])
            self.settled.set()


def nothing_in_play(view: Mapping[str, Any]) -> bool:
    """Whether the terminal of ``view`` has no wager in play: no seat of its own in the
    round (the view's seat marked ``mine``), a seat without wagers, or the round complete."""
    mine = [seat for seat in view.get("seats") or [] if seat.get("mine")]
    return not any(seat.get("wagers") for seat in mine) or view.get("phase") == "complete"


class OperatorScript(Client):
    """The operator: credits and cashes out terminals with unique references (see the
    module).

    Args:
        connect: Opens a connection.
        stop: Set when the campaign ends.
        terminals: The terminals it moves credits of.
        seed: Its random stream's seed (which terminal, which command, how much, how long
            between two).
        label: Begins every reference (unique to the campaign).
        sleep: Waits.

    Attributes:
        closing: Set to stop moving credits.
        meters: The wallets of the server's ``ReadMeters`` read by :meth:`read_wallets`.
    """

    def __init__(
        self,
        connect: Connect,
        stop: threading.Event,
        terminals: Sequence[str],
        seed: int | str,
        label: str,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__("operator", connect, stop, sleep)
        self.terminals = list(terminals)
        self.random = random.Random(seed)
        self.label = label
        self.closing = threading.Event()
        self.meters: dict[str, int] | None = None
        self._moves = 0

    def summary(self, answer: Mapping[str, Any]) -> dict[str, Any]:
        kept: dict[str, Any] = {
            k: int(answer[k]) for k in ("balance", "paid", "logged") if k in answer
        }
        kept["already"] = bool(answer.get("already"))
        return kept

    def move(self, command: str, terminal: str, amount: int) -> dict[str, Any] | None:
        """One ``CashIn`` or ``CashOut`` with a reference of its own."""
        self._moves += 1
        kind = "in" if command == "CashIn" else "out"
        reference = f"{self.label} {kind} {self._moves}"
        return self.send(
            command,
            terminal=terminal,
            amount=amount,
            reference=reference,
            person=PERSON,
            role=ROLE,
        )

    def fund(self, amount: int) -> None:
        """Credit every terminal ``amount`` cents before play (until acknowledged, or the
        campaign stops: a cash in refused is made again; one whose answer was lost is sent
        again with its request id when connected again)."""
        for terminal in self.terminals:
            since = len(self.journal.acks)
            while not self._stop.is_set():
                self.connected()
                acks = self.journal.acks[since:]
                if any(a.sent.arguments["terminal"] == terminal for a in acks):
                    break
                if self._conn is not None and not self.journal.unknown:
                    self.move("CashIn", terminal, amount)

    def run(self) -> None:
        """Move credits until closing (on the client's thread)."""
        try:
            while not self._stop.is_set() and not self.closing.is_set():
                self.connected()
                if self._conn is not None:
                    self.step()
                    self._sleep(self.random.uniform(0.2, 0.6))
        except BaseException as exc:
            self.error = exc

    def step(self) -> None:
        """One random money movement: mostly cash ins of $10 to $50, some cash outs of $1
        to $10 (refused while the terminal has wagers in play, or is short)."""
        terminal = self.random.choice(self.terminals)
        if self.random.random() < 0.7:
            self.move("CashIn", terminal, self.random.randrange(10, 51) * 100)
        else:
            self.move("CashOut", terminal, self.random.randrange(1, 11) * 100)

    def resolve(self, tries: int = 50) -> None:
        """Before the terminals take their final views: connect until every unknown command
        was sent again and answered (a cash in sent again after them would move a wallet
        past what its terminal was last told)."""
        for _ in range(tries):
            if not self.journal.unknown or self._stop.is_set():
                return
            self.connected()

    def read_wallets(self) -> dict[str, int] | None:
        """The wallets of the server's ``ReadMeters`` (once everything settled), or None."""
        for _ in range(50):
            self.connected()
            answer = self.ask("ReadMeters")
            if answer is not None:
                wallets = json.loads(answer["meters"]).get("wallets", {})
                self.meters = {str(k): int(v) for k, v in wallets.items()}
                return self.meters
        return None
