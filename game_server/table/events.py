"""Event records of the table around the engine's: configuration, shoes, rounds, credits.

Registered with :func:`game_server.rules.events.event` like the engine's records, so the log,
recall and verification read them the same way. Money is integer cents.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from game_server.rules.events import event
from shared.cards import Card
from shared.money import format_money


@event("table_opened")
class TableOpened(NamedTuple):
    """The table opened with this Rules Submission (``config`` is ``TableConfig.to_dict()``)."""

    config: dict[str, Any]
    config_hash: str
    software: str


@event("rules_change_stated")
class RulesChangeStated(NamedTuple):
    """The operator stated an intended change of this table's Rules Submission (or its
    retirement from the server) when the server was started with another one than the log
    holds: the change is made on purpose, not by a wrong file (``etg serve
    --change-config REASON``). ``config_hash`` is "" for a table the server no longer
    hosts."""

    reason: str
    logged_hash: str
    config_hash: str


@event("shoe_committed")
class ShoeCommitted(NamedTuple):
    """A new shoe, committed before its first card: SHA-256 of the card order and a salt, and
    the seed material and salt sealed with AES-256-GCM (docs/design.md "RNG and shoe").

    ``cut_card`` is None when the shoe is replaced every round.
    """

    shoe: int
    decks: int
    cut_card: int | None
    commitment: str
    sealed_seed: str
    key_id: str


@event("shoe_revealed")
class ShoeRevealed(NamedTuple):
    """A retired shoe's seed material and salt in clear, so anyone can regenerate it."""

    shoe: int
    entropy_input: str
    nonce: str
    personalization: str
    salt: str


@event("round_started")
class RoundStarted(NamedTuple):
    """A round opened for wagers; ``seats``, ``terminals`` and ``balances`` pair each seat
    with its terminal and that terminal's credits at the start of the round (game recall
    shows the credits at the start and end of each game)."""

    round: int
    shoe: int
    config_hash: str
    seats: tuple[int, ...]
    terminals: tuple[str, ...]
    balances: tuple[int, ...]


@event("round_closed")
class RoundClosed(NamedTuple):
    """Every wager of the round is settled: each seated terminal's credits at the end."""

    round: int
    terminals: tuple[str, ...]
    balances: tuple[int, ...]


@event("cards_unsealed")
class CardsUnsealed(NamedTuple):
    """At the round's close, every card the round's records logged sealed (face down, or a
    player's own: :mod:`game_server.table.secrecy`) with its shoe position, so that the
    closed round reads whole; logged in the step that closes it, before ``round_closed``."""

    positions: tuple[int, ...]
    cards: tuple[Card, ...]


@event("credits_in")
class CreditsIn(NamedTuple):
    """Credits added to a terminal's wallet (cash in, voucher in); ``balance`` after."""

    terminal: str
    amount: int
    balance: int
    reference: str


@event("credits_out")
class CreditsOut(NamedTuple):
    """Credits paid out of a terminal's wallet (cash out, voucher out); ``balance`` after."""

    terminal: str
    amount: int
    balance: int
    reference: str


@event("operator_action")
class OperatorAction(NamedTuple):
    """What a person did through the operator certificate (the operator's console or
    ``etg operator``), logged at the table it concerns: ``action`` is ``cash-in``,
    ``cash-out``, ``open``, ``close`` or ``out-of-service``; ``person`` and ``role`` are who
    the client says asked (the console's signed-in person and role; ``""`` when the client
    named none, e.g. a script); ``terminal`` is ``""`` for the table itself; ``amount`` the
    cents moved (0 for a state change or a refusal); ``text`` the operator's reference or
    reason; ``request_id`` the client's id of the command; ``refused`` the sentence the
    server refused it with, ``""`` when it was done."""

    action: str
    person: str
    role: str
    terminal: str
    amount: int
    text: str
    request_id: str
    refused: str


@event("terminal_access")
class TerminalAccess(NamedTuple):
    """A terminal's certificate id revoked at its server (``access`` ``"revoked"``: its
    connections are dropped and refused from then on, across restarts) or reinstated
    (``"reinstated"``), by ``person`` in ``role`` for ``reason``. A server folds these at
    start into the revocations of its ``floor.toml``."""

    terminal: str
    access: str
    reason: str
    person: str
    role: str
    request_id: str


@event("request_applied")
class RequestApplied(NamedTuple):
    """A client's command took effect in this step: ``client`` is the certificate id that
    sent it (a terminal id, ``operator``), ``request_id`` the id the client gave it,
    ``command`` the AMP command's name (``CashIn``, ``Act``...), and ``events`` how many
    records of the step come before this one: what the command did (``credits_in``, a
    ``decision``...). Logged in the same step, so in the same transaction, as the first thing
    the command logs (:mod:`game_server.table.requests`), after the command's records and
    before the round's closing records when the step closes the round. The envelope names
    the terminal for a terminal's command, no terminal for the operator's.

    A server reads these at start (:mod:`game_server.net.applied`): a retry of a request id
    that took effect is answered as such and never runs again, across restarts."""

    client: str
    request_id: str
    command: str
    events: int


def operator_text(ev: OperatorAction | TerminalAccess) -> str:
    """The sentence of an :class:`OperatorAction` or :class:`TerminalAccess` record:
    ``cash-in of $100.00 to T1 (slip 7) by alice (attendant)``."""
    by = f" by {ev.person} ({ev.role})" if ev.person else " by the operator certificate"
    if isinstance(ev, TerminalAccess):
        return f"terminal {ev.terminal} {ev.access} ({ev.reason}){by}"
    what = ev.action
    if ev.amount:
        what += f" of {format_money(ev.amount)}"
    if ev.terminal:
        what += f" {'to' if ev.action == 'cash-in' else 'from'} {ev.terminal}"
    if ev.text:
        what += f" ({ev.text})"
    return f"{what}{by}" + (f", refused: {ev.refused}" if ev.refused else "")
