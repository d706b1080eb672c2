"""The checker of ``etg faults``: is every command a client was answered in the log, and does
every wallet end where its terminal was last told?

The idea of Jepsen's checkers: each client keeps its OWN record of what it sent and what it
was answered (a :class:`Journal`), independent of the server; after the campaign the log is
read back (read-only, :func:`read_facts`) and every acknowledged command must be found in it
by what identifies it there (:func:`check`):

- ``CashIn`` / ``CashOut``: a ``credits_in`` / ``credits_out`` record with the command's
  unique reference, of the terminal and amount asked (the amount paid for a cash out), with
  the balance answered; and, when the answer said ``logged``, the ``operator_action`` record
  of the request id;
- ``PlaceWagers``: a ``wager_placed`` record (hand 0) of the terminal in the answered round
  for each wager and amount asked;
- ``Act``: a ``decision`` record of the terminal, not the countdown's (``auto`` false), in the
  answered round with the hand and action asked;
- ``AnswerInsurance``: the ``decision`` record of hand 0 the choice is logged as
  (``decline`` is ``no-insurance``).

Wagers and decisions are matched as multisets: two acknowledged hits of one hand need two
decisions in the log. A command answered ``already`` (sent again with its first request id
after a kill, it had taken effect before: the answer is rebuilt) must be in the log with its
``request_applied`` record, and its wager or decision is looked for in the round of that
record's step (the answer's view is the table now). A command whose connection dropped
before its answer and that was never answered after it was sent again is *unknown*: it may
or may not be in the log, and is only counted. Then every terminal's wallet, the fold of the
log (:class:`~game_server.table.ledger.Ledger`), must equal the credits the terminal was last
told once everything settled, and every balance a terminal was ever told must be one its
wallet held in the log.

A command that took effect twice (a retry the server ran again) is a failure too
(:func:`double_effects`): a request id with two ``request_applied`` records; a unique
reference credited or paid out twice; more wagers or decisions of a terminal in the log than
it sent requests for them (each request may take effect once, wherever it lands).

The record matching is the fully automated Blackjack table's (the campaign's table).

Entry points: :func:`read_facts` (the log's side) and :func:`check` (the verdict).
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from game_server.eventlog import EventLogReader
from game_server.table.ledger import Ledger

#: How an ``AnswerInsurance`` choice is logged (the Blackjack ``decision`` record's action).
INSURANCE_ACTIONS: Final = {
    "decline": "no-insurance",
    "insurance": "insurance",
    "even-money": "even-money",
}
#: The commands that move credits (matched by their unique reference).
CREDIT_COMMANDS: Final = ("CashIn", "CashOut")


@dataclass(frozen=True)
class Sent:
    """A command as a client sent it.

    Attributes:
        client: Who sent it (``operator``, ``T1``...).
        request_id: Its request id (unique per client).
        command: The AMP command's name.
        arguments: Its arguments but the request id.
    """

    client: str
    request_id: str
    command: str
    arguments: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "client": self.client,
            "request_id": self.request_id,
            "command": self.command,
            "arguments": dict(self.arguments),
        }


@dataclass(frozen=True)
class Ack:
    """A command the server answered, and what it answered: for a terminal's command the
    answered view's ``round``, ``credits``, ``phase``; for the operator's ``balance``,
    ``paid`` (a cash out) and ``logged`` (integers)."""

    sent: Sent
    answer: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**self.sent.to_json(), "answer": dict(self.answer)}


@dataclass
class Journal:
    """One client's own record of the campaign.

    Attributes:
        client: Who.
        acks: Every command answered (not refused), in order.
        unknown: Every command whose connection dropped before its answer.
        refused: Declared errors by command and code (``CashOut BAD_REQUEST``; a refusal
            changes nothing).
        told: Every credits figure a view told the terminal, in order (answers, pushes,
            ``Hello``); empty for the operator.
        final: The credits of the terminal's last view once everything settled.
        connections: How many connections it made (1 + its reconnections).
        sent: Every command sent, once each (not its sends again).
        resent: Sends again of unknown commands, with their first request ids.
        resent_outcomes: What those got: ``already`` (it had taken effect), ``ran`` (it had
            not: it ran now), ``refused``.
    """

    client: str
    acks: list[Ack] = field(default_factory=list)
    unknown: list[Sent] = field(default_factory=list)
    refused: Counter[str] = field(default_factory=Counter)
    told: list[int] = field(default_factory=list)
    final: int | None = None
    connections: int = 0
    sent: list[Sent] = field(default_factory=list)
    resent: int = 0
    resent_outcomes: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Credit:
    """A ``credits_in`` or ``credits_out`` record: terminal, amount and balance after."""

    terminal: str
    amount: int
    balance: int


@dataclass(frozen=True)
class AppliedStep:
    """A ``request_applied`` record: the command, where it is, and its step's records
    before it (kind, envelope terminal, body) that the command made."""

    command: str
    seq: int
    round_id: int | None
    records: tuple[tuple[str, str | None, Mapping[str, Any]], ...]


#: How many records of a step before its request record :func:`read_facts` can look back at.
STEP_LOOKBACK: Final = 1_024


@dataclass
class LogFacts:
    """What the log holds that acknowledged commands are checked against.

    Attributes:
        credits_in: ``credits_in`` records by reference.
        credits_out: ``credits_out`` records by reference.
        actions: The request ids of ``operator_action`` records done (not refused), with
            their action (``cash-in``...), terminal and amount.
        wagers: ``(round, terminal, hand, wager, amount)`` of every ``wager_placed``.
        decisions: ``(round, terminal, hand, action)`` of every player's ``decision``.
        wallets: Each terminal's wallet at the end of the log (the ledger's fold).
        balances: Every balance each terminal's wallet held after an event of the log.
        applied: Each ``(client, request id)`` of a ``request_applied``, with every step it
            was logged with (more than one: it took effect more than once).
    """

    credits_in: dict[str, list[Credit]] = field(default_factory=dict)
    credits_out: dict[str, list[Credit]] = field(default_factory=dict)
    actions: dict[str, list[tuple[str, str, int]]] = field(default_factory=dict)
    wagers: Counter[tuple[int, str, int, str, int]] = field(default_factory=Counter)
    decisions: Counter[tuple[int, str, int, str]] = field(default_factory=Counter)
    wallets: dict[str, int] = field(default_factory=dict)
    balances: dict[str, set[int]] = field(default_factory=dict)
    applied: dict[tuple[str, str], list[AppliedStep]] = field(default_factory=dict)


def read_facts(reader: EventLogReader) -> LogFacts:
    """Read the log once, in one snapshot, into :class:`LogFacts`.

    Args:
        reader: The log, opened read-only.

    Returns:
        The facts; wallets folded by the same :class:`~game_server.table.ledger.Ledger`
        the table and ``etg verify`` use.
    """
    facts = LogFacts()
    ledger = Ledger()
    balances: defaultdict[str, set[int]] = defaultdict(lambda: {0})
    recent: deque[tuple[str, str | None, dict[str, Any]]] = deque(maxlen=STEP_LOOKBACK)
    with reader.snapshot():
        for event in reader.iter_events():
            body = event.body
            if event.kind == "request_applied":
                count = min(int(body["events"]), len(recent))
                step = tuple(list(recent)[len(recent) - count :]) if count else ()
                applied = AppliedStep(body["command"], event.seq, event.round_id, step)
                key = (body["client"], body["request_id"])
                facts.applied.setdefault(key, []).append(applied)
            recent.append((event.kind, event.terminal, body))
            _note(facts, event.kind, event.round_id, event.terminal, body)
            before = dict(ledger.wallets)
            ledger.apply(event.terminal, event.record())
            for terminal, balance in ledger.wallets.items():
                if before.get(terminal) != balance:
                    balances[terminal].add(balance)
    facts.wallets = dict(ledger.wallets)
    facts.balances = dict(balances)
    return facts


def _note(
    facts: LogFacts, kind: str, round_id: int | None, terminal: str | None, body: dict[str, Any]
) -> None:
    """Keep what one event of the log says that a command may be checked against."""
    if kind in ("credits_in", "credits_out"):
        book = facts.credits_in if kind == "credits_in" else facts.credits_out
        credit = Credit(body["terminal"], body["amount"], body["balance"])
        book.setdefault(body["reference"], []).append(credit)
    elif kind == "operator_action" and not body["refused"]:
        done = (body["action"], body["terminal"], body["amount"])
        facts.actions.setdefault(body["request_id"], []).append(done)
    elif kind == "wager_placed" and terminal is not None and round_id is not None:
        key = (round_id, terminal, body["hand"], body["wager"], body["amount"])
        facts.wagers[key] += 1
    elif kind == "decision" and terminal is not None and round_id is not None and not body["auto"]:
        facts.decisions[(round_id, terminal, body["hand"], body["action"])] += 1


@dataclass(frozen=True)
class Lost:
    """An acknowledged command the log does not hold, and what was looked for."""

    ack: Ack
    why: str

    def to_json(self) -> dict[str, Any]:
        """JSON-ready."""
        return {**self.ack.to_json(), "why": self.why}


@dataclass
class Verdict:
    """What :func:`check` found.

    Attributes:
        acknowledged: Acknowledged commands by command name.
        unknown: Commands of unknown outcome by command name.
        unknown_in_log: Of the unknown credit movements, how many the log holds (a command
            may be done and its answer lost with the connection).
        refused: Declared refusals by command and code.
        lost: Acknowledged commands not in the log.
        mismatches: Sentences: a wallet that does not end where its terminal was told, a
            balance told that the wallet never held, a terminal with no final view.
        doubled: Sentences: a command that took effect more than once (:func:`double_effects`).
        resent: Unknown commands sent again with their first request ids.
        resent_outcomes: What those got (``already``, ``ran``, ``refused``).
        already_in_log: Of the commands answered ``already``, how many the log holds
            (each of them must be).
    """

    acknowledged: dict[str, int]
    unknown: dict[str, int]
    unknown_in_log: int
    refused: dict[str, int]
    lost: list[Lost]
    mismatches: list[str]
    doubled: list[str] = field(default_factory=list)
    resent: int = 0
    resent_outcomes: dict[str, int] = field(default_factory=dict)
    already_in_log: int = 0

    @property
    def ok(self) -> bool:
        """Nothing lost, nothing done twice, and every wallet as told."""
        return not self.lost and not self.mismatches and not self.doubled


#: Finds one acknowledged command in the facts (consuming what it matched from the
#: multisets); returns what is missing, or None.
Finder = Callable[[Ack, LogFacts, dict[str, Counter[Any]]], str | None]


def _cash_in(ack: Ack, facts: LogFacts, pools: dict[str, Counter[Any]]) -> str | None:
    args, answer = ack.sent.arguments, ack.answer
    want = Credit(args["terminal"], args["amount"], answer["balance"])
    return _credit(ack, facts.credits_in, want, "credits_in", facts)


def _cash_out(ack: Ack, facts: LogFacts, pools: dict[str, Counter[Any]]) -> str | None:
    args, answer = ack.sent.arguments, ack.answer
    want = Credit(args["terminal"], answer["paid"], answer["balance"])
    return _credit(ack, facts.credits_out, want, "credits_out", facts)


def _credit(
    ack: Ack, book: Mapping[str, list[Credit]], want: Credit, kind: str, facts: LogFacts
) -> str | None:
    reference = ack.sent.arguments["reference"]
    found = book.get(reference, [])
    if want not in found:
        held = ", ".join(f"{c.terminal} {c.amount} -> {c.balance}" for c in found) or "none"
        return (
            f"no {kind} record with reference {reference!r} of {want.amount} cents for "
            f"{want.terminal} leaving {want.balance} (the log holds: {held})"
        )
    if ack.answer.get("logged") and ack.sent.request_id not in facts.actions:
        return f"no operator_action record of request id {ack.sent.request_id!r}"
    return None


def _wagers(ack: Ack, facts: LogFacts, pools: dict[str, Counter[Any]]) -> str | None:
    pool = pools.setdefault("wagers", Counter(facts.wagers))
    round_id, terminal = ack.answer["round"], ack.sent.client
    for wager, amount in sorted(ack.sent.arguments["wagers"].items()):
        key = (round_id, terminal, 0, wager, amount)
        if pool[key] <= 0:
            return f"no wager_placed record of {wager} {amount} by {terminal} in round {round_id}"
        pool[key] -= 1
    return None


def _decision(ack: Ack, action: str, hand: int, pools: dict[str, Counter[Any]]) -> str | None:
    round_id, terminal = ack.answer["round"], ack.sent.client
    key = (round_id, terminal, hand, action)
    pool = pools["decisions"]
    if pool[key] <= 0:
        return (
            f"no decision record {action!r} of hand {hand} by {terminal} (not the countdown's) "
            f"in round {round_id}"
        )
    pool[key] -= 1
    return None


def _act(ack: Ack, facts: LogFacts, pools: dict[str, Counter[Any]]) -> str | None:
    pools.setdefault("decisions", Counter(facts.decisions))
    args = ack.sent.arguments
    return _decision(ack, str(args["action"]), int(args["hand"]), pools)


def _insurance(ack: Ack, facts: LogFacts, pools: dict[str, Counter[Any]]) -> str | None:
    pools.setdefault("decisions", Counter(facts.decisions))
    choice = str(ack.sent.arguments["choice"])
    return _decision(ack, INSURANCE_ACTIONS.get(choice, choice), 0, pools)


#: How each acknowledged command is found in the log.
FINDERS: Final[Mapping[str, Finder]] = {
    "CashIn": _cash_in,
    "CashOut": _cash_out,
    "PlaceWagers": _wagers,
    "Act": _act,
    "AnswerInsurance": _insurance,
}


def check(
    journals: Iterable[Journal], facts: LogFacts, meters: Mapping[str, int] | None = None
) -> Verdict:
    """Check the clients' journals against the log.

    Args:
        journals: Every client's journal (terminals have ``told`` and ``final``).
        facts: The log's facts (:func:`read_facts`).
        meters: The wallets the server's ``ReadMeters`` gave once everything settled, if
            read: each must be the log's too.

    Returns:
        The verdict: ``lost`` and ``mismatches`` empty when acknowledged means kept.

    Raises:
        ValueError: a journal holds an acknowledged command this checker cannot match.
    """
    journals = list(journals)
    pools: dict[str, Counter[Any]] = {}
    acknowledged: Counter[str] = Counter()
    unknown: Counter[str] = Counter()
    refused: Counter[str] = Counter()
    resent: Counter[str] = Counter()
    lost: list[Lost] = []
    unknown_in_log = already_in_log = 0
    for journal in journals:
        refused.update(journal.refused)
        resent.update(journal.resent_outcomes)
        for ack in journal.acks:
            finder = FINDERS.get(ack.sent.command)
            if finder is None:
                raise ValueError(f"no way to find a {ack.sent.command} in the log")
            acknowledged[ack.sent.command] += 1
            found = ack
            if ack.answer.get("already"):
                steps = facts.applied.get((ack.sent.client, ack.sent.request_id), [])
                step = next((s for s in steps if s.command == ack.sent.command), None)
                if step is None:
                    why = (
                        f"answered as having taken effect already, but the log holds no "
                        f"request_applied of {ack.sent.client}'s {ack.sent.request_id!r}"
                    )
                    lost.append(Lost(ack, why))
                    continue
                already_in_log += 1
                # The answer's view is the table now: the command is in its step's round.
                found = Ack(ack.sent, {**ack.answer, "round": step.round_id})
            why = finder(found, facts, pools)
            if why is not None:
                lost.append(Lost(ack, why))
        for sent in journal.unknown:
            unknown[sent.command] += 1
            if sent.command in CREDIT_COMMANDS:
                book = facts.credits_in if sent.command == "CashIn" else facts.credits_out
                unknown_in_log += sent.arguments["reference"] in book
    return Verdict(
        acknowledged=dict(sorted(acknowledged.items())),
        unknown=dict(sorted(unknown.items())),
        unknown_in_log=unknown_in_log,
        refused=dict(sorted(refused.items())),
        lost=lost,
        mismatches=wallet_mismatches(journals, facts, meters),
        doubled=double_effects(journals, facts),
        resent=sum(journal.resent for journal in journals),
        resent_outcomes=dict(sorted(resent.items())),
        already_in_log=already_in_log,
    )


def double_effects(journals: Iterable[Journal], facts: LogFacts) -> list[str]:
    """Every command that took effect more than once, as a sentence each: a request id the
    log holds two ``request_applied`` records of; a unique reference credited or paid out
    twice; and, for each terminal, more wagers (hand 0, by wager and amount) or more of its
    own decisions (by hand and action) in the log than it sent requests for them: each
    request may take effect once, whichever round it lands in, so this holds whatever the
    server says of itself."""
    found: list[str] = []
    for (client, request_id), steps in sorted(facts.applied.items()):
        if len(steps) > 1:
            seqs = ", ".join(str(step.seq) for step in steps)
            found.append(
                f"{client}'s request {request_id!r} ({steps[0].command}) took effect "
                f"{len(steps)} times (request_applied at seq {seqs})"
            )
    for kind, book in (("credits_in", facts.credits_in), ("credits_out", facts.credits_out)):
        for reference, credits in sorted(book.items()):
            if len(credits) > 1:
                found.append(f"{len(credits)} {kind} records of the one reference {reference!r}")
    journals = list(journals)
    # Each command a client knows it sent, once (sent, answered, or still unknown).
    sent_by = {
        journal.client: {
            sent.request_id: sent
            for sent in (*journal.sent, *(ack.sent for ack in journal.acks), *journal.unknown)
        }.values()
        for journal in journals
    }
    # The wagers of hand 0 a PlaceWagers places (a double, an insurance, a split's wagers
    # are the decisions' own).
    placed = {
        w
        for each in sent_by.values()
        for s in each
        if s.command == "PlaceWagers"
        for w in s.arguments["wagers"]
    }
    wagers: Counter[tuple[str, str, int]] = Counter()
    for (_round, terminal, hand, wager, amount), count in facts.wagers.items():
        if hand == 0 and wager in placed:
            wagers[(terminal, wager, amount)] += count
    decisions: Counter[tuple[str, int, str]] = Counter()
    for (_round, terminal, hand, action), count in facts.decisions.items():
        decisions[(terminal, hand, action)] += count
    for journal in journals:
        asked: Counter[tuple[str, Any, Any]] = Counter()
        for sent in sent_by[journal.client]:
            arguments = sent.arguments
            if sent.command == "PlaceWagers":
                asked.update(("wager", w, a) for w, a in arguments["wagers"].items())
            elif sent.command == "Act":
                asked[("decision", int(arguments["hand"]), str(arguments["action"]))] += 1
            elif sent.command == "AnswerInsurance":
                choice = str(arguments["choice"])
                asked[("decision", 0, INSURANCE_ACTIONS.get(choice, choice))] += 1
        terminal = journal.client
        for (who, wager, amount), count in sorted(wagers.items()):
            if who == terminal and count > asked[("wager", wager, amount)]:
                found.append(
                    f"{terminal} has {count} wagers of {wager} {amount} in the log but sent "
                    f"{asked[('wager', wager, amount)]} requests for them"
                )
        for (who, hand, action), count in sorted(decisions.items()):
            if who == terminal and count > asked[("decision", hand, action)]:
                found.append(
                    f"{terminal} has {count} {action!r} decisions of hand {hand} in the log but "
                    f"sent {asked[('decision', hand, action)]} requests for them"
                )
    return found


def wallet_mismatches(
    journals: Iterable[Journal], facts: LogFacts, meters: Mapping[str, int] | None = None
) -> list[str]:
    """Each terminal's wallet in the log against its last view (and the server's meters),
    and every balance it was told against the balances its wallet held in the log.

    Returns:
        One sentence per mismatch; empty when every wallet is as told.
    """
    found: list[str] = []
    for journal in journals:
        if not journal.told and journal.final is None:
            continue  # the operator: no wallet of its own
        terminal = journal.client
        logged = facts.wallets.get(terminal, 0)
        if journal.final is None:
            found.append(f"{terminal} has no final view: it never settled")
        elif journal.final != logged:
            found.append(
                f"{terminal} was last told {journal.final} cents of credits, but its wallet in "
                f"the log is {logged}"
            )
        if meters is not None and meters.get(terminal, 0) != logged:
            found.append(
                f"the server's meters give {terminal} {meters.get(terminal, 0)} cents, but its "
                f"wallet in the log is {logged}"
            )
        held = facts.balances.get(terminal, {0})
        never = sorted({told for told in journal.told if told not in held})
        if never:
            shown = ", ".join(str(v) for v in never[:5]) + (" ..." if len(never) > 5 else "")
            found.append(
                f"{terminal} was told credits its wallet never held in the log: {shown} cents"
            )
    return found
