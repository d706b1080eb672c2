"""The timeline of one logged round: what game recall shows, in the order it was played.

Game recall must show "a complete Play history ... in the same sequence as the original Game
Play": the outcome, every intermediate step, "information necessary to determine the credits
available at the start and end of Game", the wagers per category, the credits won and cashed
out, and any progressive awarded (AGCO Standards 13.1.1; GLI-11 "Game Recall" and Fla. Admin.
Code R. 75-14.043(4) likewise; see ``regs/notes/standards-gli.md`` section 3). This module
turns a :class:`~game_server.recall.rounds.LoggedRound` into that history as plain data, so
that ``etg recall show``, the terminal's recall screen and recall pictures all render the same
thing:

- one :class:`Entry` per logged event of the round, in log (``seq``) order: who it concerns
  (a terminal, the dealer or the table), its kind, a sentence, and its fields as JSON-ready
  data (money in integer cents, cards as their text form ``"QD"``);
- the header: table, round, the shoe and its commitment, the config hash, start and end times,
  complete or not (:class:`ShoeInfo`);
- the credits of each terminal at the start and end of the round (:class:`Credits`), as logged
  by ``round_started`` / ``round_closed``, together with the same balances recomputed by a
  :class:`~game_server.table.ledger.Ledger` fold of the round's events (any difference is
  listed in :attr:`Timeline.problems`);
- the meter changes of the round (:class:`MeterChange`): a FRESH ledger (meters at zero)
  folds only this round's events, so each wager's meters are exactly what this round added
  to the table's never-reset meters (58 Pa. Code 605a.5(d)).

The round's game (:func:`game_server.games.game_for`) names its players and describes its own
events (:meth:`~game_server.games.api.Game.recall_labels`,
:meth:`~game_server.games.api.Game.describe`): a seat ``"seat 2 (T2)"``, a hybrid table's
players by terminal and position, a face-down card as face down wherever it was dealt (its
value appears in an entry's data only if the round reveals it later, so an interrupted round
never discloses a card nobody has seen). The table's own records (round started and closed,
credits, shoes, the Rules Submission, the operator's actions, the request ids of clients'
commands) and the progressive meters' are described here. A request id's entry is the
investigator's (who sent the command that the records before it answer); a terminal's recall
screen (:meth:`~game_server.games.api.Game.recall_game`) leaves it out with everything that is
not its player's wagers, cards, decisions and results.

Pure: no I/O, no clock. Entry points: :func:`build_timeline`, :func:`format_timeline`; for
the games: :class:`Labels`, :func:`cards_text`, :func:`wager_title`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final

from game_server.games import game_for, games
from game_server.recall.rounds import Logged, LoggedRound
from game_server.rules.errors import RulesError
from game_server.rules.meters import (
    MeterAwarded,
    MeterContributed,
    MeterOpened,
    MeterReseeded,
    MysteryAwarded,
    MysteryTriggerDrawn,
)
from game_server.rules.wagers import REGISTRY
from game_server.table.events import (
    CardsUnsealed,
    CreditsIn,
    CreditsOut,
    OperatorAction,
    RequestApplied,
    RoundClosed,
    RoundStarted,
    RulesChangeStated,
    ShoeCommitted,
    ShoeRevealed,
    TableOpened,
    TerminalAccess,
    operator_text,
)
from game_server.table.ledger import PLACED, SETTLED, Ledger, wager_roles
from shared.cards import Card
from shared.money import format_money

#: ``Entry.who`` of the dealer's cards, the peek, the hole card and the dealer's final hand.
DEALER_WHO: Final = "dealer"
#: ``Entry.who`` of the table's own records (round started and closed, shoes, config).
TABLE_WHO: Final = "table"

#: What :meth:`~game_server.games.api.Game.describe` returns: ``(who, text, data)``.
Described = tuple[str, str, dict[str, Any]]


def wager_title(name: str) -> str:
    """The display name of a wager: ``"blackjack" -> "Blackjack"``, ``"lucky_aces" ->
    "Lucky Aces"`` (each game's :attr:`~game_server.games.api.Game.wager_titles`, then the
    shared side wagers); an unknown name is shown as logged."""
    for game in games():
        title = game.wager_titles.get(name)
        if title is not None:
            return title
    side = REGISTRY.get(name)
    return side.title if side is not None else name


@dataclass(frozen=True, slots=True)
class Entry:
    """One step of the round, as recall shows it.

    Attributes:
        seq: The event's sequence number in the log.
        time: When it was logged (UTC text, ``2026-11-29T15:59:33.795589Z``).
        who: The terminal it concerns, :data:`DEALER_WHO` or :data:`TABLE_WHO`.
        kind: The event's kind (``"card_dealt"``, ``"decision"``, ...).
        text: One sentence for a person.
        data: The event's fields as JSON-ready values (cents as ints, cards as ``"QD"``),
            plus ``seat``'s ``terminal`` where known; a face-down card has ``card`` None
            unless the round reveals it later.
    """

    seq: int
    time: str
    who: str
    kind: str
    text: str
    data: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        """``{"seq", "time", "who", "kind", "text", **data}``."""
        return {
            **self.data,
            "seq": self.seq,
            "time": self.time,
            "who": self.who,
            "kind": self.kind,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class ShoeInfo:
    """The shoe a round was dealt from, and its commitment (docs/design.md "RNG and shoe").

    Attributes:
        number: The shoe's number at its table.
        decks: Decks in the shoe (None if the commitment is not in the log).
        cut_card: Cards dealt before the cut card (None: a new shoe every round, or unknown).
        commitment: SHA-256(card order || salt), hex, logged before the first card.
        key_id: The shoe-sealing key's id.
        committed_seq: Sequence number of ``shoe_committed``.
        revealed_seq: Sequence number of ``shoe_revealed`` (None while the shoe is in use or
            when not looked up).
        reveal: The retired shoe's seed material and salt, hex (:func:`reveal_fields`:
            ``entropy_input``, ``nonce``, ``personalization``, ``salt``); None while the
            shoe is in use (never a secret before ``shoe_revealed``) or when not looked up.
    """

    number: int
    decks: int | None
    cut_card: int | None
    commitment: str | None
    key_id: str | None
    committed_seq: int | None
    revealed_seq: int | None
    reveal: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        """The fields as a dict."""
        return asdict(self)


#: The fields of ``shoe_revealed`` that prove a shoe (``docs/shoe-spec.md`` section 6).
REVEAL_FIELDS: Final = ("entropy_input", "nonce", "personalization", "salt")


#: How the text of ``etg recall show`` starts the shoe's reveal line.
REVEAL_LINE: Final = "reveal: "


def reveal_text(shoe: ShoeInfo) -> str:
    """The reveal of the round's shoe as ``etg recall show`` prints it: its seed material
    and salt once retired, else that it is still in use (no secret before the reveal)."""
    if shoe.reveal is None:
        return "shoe still in use: its seed and salt are revealed when it is retired"
    return "  ".join(f"{name} {shoe.reveal[name]}" for name in REVEAL_FIELDS)


def reveal_fields(revealed: Logged) -> dict[str, str]:
    """The seed material and salt of a logged ``shoe_revealed``, hex, by field name."""
    return {name: str(getattr(revealed.event, name)) for name in REVEAL_FIELDS}


@dataclass(frozen=True, slots=True)
class Credits:
    """One terminal's credits over the round (integer cents).

    Attributes:
        terminal: The terminal.
        seat: Its seat, if it held one when the round started (None in stadium play).
        start: Credits at the start, from ``round_started`` (None if not logged).
        end: Credits at the end, from ``round_closed`` (None: the round did not close).
        wagered: Everything it wagered in the round (every category).
        paid: Everything its wagers paid back (stakes included).
        credits_in: Credits added during the round.
        credits_out: Credits cashed out during the round.
        folded_end: ``start`` folded through the round's events by a
            :class:`~game_server.table.ledger.Ledger` (None if the fold failed or ``start``
            is unknown); equal to ``end`` for a closed round of a sound log.
    """

    terminal: str
    seat: int | None
    start: int | None
    end: int | None
    wagered: int
    paid: int
    credits_in: int
    credits_out: int
    folded_end: int | None

    def to_json(self) -> dict[str, Any]:
        """The fields but ``terminal`` (the key it is filed under)."""
        fields = asdict(self)
        del fields["terminal"]
        return fields


@dataclass(frozen=True, slots=True)
class MeterChange:
    """What one round added to one wager's never-reset meters (integer cents).

    Attributes:
        placed: Wagers placed.
        wagered: Amount wagered.
        settled: Stakes settled.
        paid: Amount paid back (stakes included).
        won: Settlements that paid more than their stake.
    """

    placed: int
    wagered: int
    settled: int
    paid: int
    won: int

    def to_json(self) -> dict[str, int]:
        """The fields as a dict."""
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Timeline:
    """One round as game recall shows it (see the module docstring).

    Attributes:
        table_id: The table.
        round_id: The round.
        config_hash: The Rules Submission's hash from ``round_started`` (else from the
            logged config).
        config_seq: Sequence number of the ``table_opened`` that set the rules in force.
        shoe: The shoe, or None if the round has no ``round_started``.
        start: Time of the round's first event.
        end: Time of its last event.
        complete: Every wager settled (``round_completed`` is logged).
        closed: ``round_closed`` (the end balances) is logged.
        seats: Seat number -> terminal, from ``round_started``; in stadium play what the game
            names (the hybrid table without a hole card: player number in the round ->
            terminal, from the envelopes; the three-position table: none, 633b.5(l)).
        credits: Terminal -> its credits over the round.
        entries: The steps, in log order.
        meters: Wager -> what the round added to its meters.
        games_played: What the round added to the games-played meter (1 if complete).
        problems: Inconsistencies found while building it (a fold that does not give the
            logged balances, a config hash that differs); empty for a sound log.
        game: The ``[table] game`` of the rules in force (a registered game's
            :attr:`~game_server.games.api.Game.config_game`).
    """

    table_id: str
    round_id: int
    config_hash: str
    config_seq: int
    shoe: ShoeInfo | None
    start: str
    end: str
    complete: bool
    closed: bool
    seats: Mapping[int, str]
    credits: Mapping[str, Credits]
    entries: tuple[Entry, ...]
    meters: Mapping[str, MeterChange]
    games_played: int
    problems: tuple[str, ...]
    game: str

    @property
    def status(self) -> str:
        """``"complete"`` or ``"interrupted"`` (no ``round_completed``: the round was cut off
        by a failure, or is still being played)."""
        return "complete" if self.complete else "interrupted"

    def to_json(self) -> dict[str, Any]:
        """The structured form of ``etg recall show --json`` (integer cents)."""
        return {
            "table": self.table_id,
            "game": self.game,
            "round": self.round_id,
            "status": self.status,
            "complete": self.complete,
            "closed": self.closed,
            "start": self.start,
            "end": self.end,
            "config_hash": self.config_hash,
            "config_seq": self.config_seq,
            "shoe": None if self.shoe is None else self.shoe.to_json(),
            "seats": {str(seat): terminal for seat, terminal in sorted(self.seats.items())},
            "credits": {name: line.to_json() for name, line in self.credits.items()},
            "timeline": [entry.to_json() for entry in self.entries],
            "meters": {
                "wagers": {name: change.to_json() for name, change in self.meters.items()},
                "games_played": self.games_played,
            },
            "problems": list(self.problems),
        }


# -- building --------------------------------------------------------------------------------


class Labels:
    """Seat and hand labels of one round: ``"seat 2 (T2)"``, with ``"hand 2"`` only for a
    split seat; a game names its players its own way in a subclass
    (:meth:`~game_server.games.api.Game.recall_labels`).

    Attributes:
        seats: seat number -> terminal (from ``round_started``; at a table in stadium play
            what the game fills in).
        wagered: the seats that placed a wager in the round (the others had nobody playing).
        split: the seats that played more than one hand.
        split_players: the players (by name) that played more than one hand.
        revealed: what turns up a face-down card later in the round, by the key the game
            gives it (a hole card's shoe position): an entry names the card only then.
    """

    def __init__(self, seats: Mapping[int, str], events: Iterable[Logged]) -> None:
        self.seats = dict(seats)
        hands: dict[int, set[int]] = {}
        players: dict[str, set[int]] = {}
        self.wagered: set[int] = set()
        self.revealed: dict[int, Logged] = {}
        roles = wager_roles()
        for item in events:
            ev = item.event
            if roles.get(type(ev)) == PLACED and isinstance(getattr(ev, "seat", None), int):
                self.wagered.add(ev.seat)
            player = getattr(ev, "player", None)
            if isinstance(player, str):
                players.setdefault(player, set()).add(ev.hand)
                continue
            seat = getattr(ev, "seat", None)
            hand = getattr(ev, "hand", None)
            if not self.counts_hand(ev):
                continue
            if isinstance(seat, int) and isinstance(hand, int) and seat > 0:
                hands.setdefault(seat, set()).add(hand)
                if item.stored.terminal is not None:
                    self.seats.setdefault(seat, item.stored.terminal)
        self.split = {seat for seat, numbers in hands.items() if len(numbers) > 1}
        self.split_players = {p for p, numbers in players.items() if len(numbers) > 1}

    def counts_hand(self, ev: Any) -> bool:
        """Whether ``ev``'s ``hand`` is a hand of its seat (a game's card with another
        meaning of ``hand`` says no)."""
        return True

    def seat(self, seat: int, hand: int | None = None) -> str:
        terminal = self.seats.get(seat)
        label = f"seat {seat}" + (f" ({terminal})" if terminal else "")
        if hand is not None and seat in self.split:
            label += f" hand {hand + 1}"
        return label

    def drawn_seat(self, seat: int) -> str:
        """A seat the table game system drew (the Lucky Bonus position, 653a.12(e)(3)):
        ``"seat 6 (no player)"`` when nobody wagered there this round, whoever holds it."""
        if seat in self.wagered:
            return self.seat(seat)
        return f"seat {seat} (no player)"


_METER_KINDS: Final = frozenset(
    {
        MeterOpened,
        MeterContributed,
        MeterAwarded,
        MeterReseeded,
        MysteryTriggerDrawn,
        MysteryAwarded,
    }
)


#: How recall writes a card still sealed (dealt face down in a round in play:
#: :mod:`game_server.table.secrecy`).
FACE_DOWN: Final = "a card face down"


def card_text(card: Card | None) -> str:
    """A card as recall writes it (``"Q♦"``; :data:`FACE_DOWN` while it is sealed)."""
    return FACE_DOWN if card is None else card.symbol


def card_field(card: Card | None) -> str | None:
    """A card as recall's data gives it (``"QD"``; None while it is sealed)."""
    return None if card is None else str(card)


def cards_text(cards: Iterable[Card]) -> str:
    """Cards as recall writes them, one space between."""
    return " ".join(card.symbol for card in cards)


def balances_text(terminals: Iterable[str], balances: Iterable[int]) -> str:
    """``"T1 $100.00, T2 $0.00"``."""
    return ", ".join(f"{t} {format_money(b)}" for t, b in zip(terminals, balances, strict=False))


def describe_table(item: Logged, labels: Labels) -> Described:
    """``(who, text, data)`` of one of the table's own records or a progressive meter's (any
    other event: its kind in words)."""
    ev = item.event
    kind = type(ev)
    terminal = item.stored.terminal
    who = terminal if terminal is not None else TABLE_WHO
    if kind is RoundStarted:
        data = started_data(ev)
        seats = ", ".join(f"{s} {t}" for s, t in zip(ev.seats, ev.terminals, strict=False))
        text = (
            f"round {ev.round} opens for wagers, shoe {ev.shoe}; seats {seats or 'none'}; "
            f"credits {balances_text(ev.terminals, ev.balances) or 'none'}"
        )
        return TABLE_WHO, text, data
    if kind is RoundClosed:
        data = {
            "round": ev.round,
            "terminals": list(ev.terminals),
            "balances": list(ev.balances),
        }
        credits = balances_text(ev.terminals, ev.balances) or "none"
        text = f"round {ev.round} closed; credits {credits}"
        return TABLE_WHO, text, data
    if kind is CreditsIn or kind is CreditsOut:
        verb = "credits in" if kind is CreditsIn else "cashes out"
        data = {
            "terminal": ev.terminal,
            "amount": ev.amount,
            "balance": ev.balance,
            "reference": ev.reference,
        }
        text = (
            f"{ev.terminal} {verb} {format_money(ev.amount)} ({ev.reference}); "
            f"credits now {format_money(ev.balance)}"
        )
        return ev.terminal, text, data
    if kind is CardsUnsealed:
        pairs = zip(ev.positions, ev.cards, strict=False)
        data = {"cards": [{"position": p, "card": str(c)} for p, c in pairs]}
        shown = ", ".join(
            f"{card_text(c)} ({p})" for p, c in zip(ev.positions, ev.cards, strict=False)
        )
        return TABLE_WHO, f"the cards dealt face down, by shoe position: {shown}", data
    if kind is ShoeCommitted:
        data = {"shoe": ev.shoe, "commitment": ev.commitment}
        return TABLE_WHO, f"shoe {ev.shoe} committed: {ev.commitment}", data
    if kind is ShoeRevealed:
        return TABLE_WHO, f"shoe {ev.shoe} revealed", {"shoe": ev.shoe}
    if kind in _METER_KINDS:
        data = dict(ev._asdict())
        if "places" in data:
            data["places"] = list(data["places"])
        return who, _meter_text(ev), data
    if kind is TableOpened:
        data = {"config_hash": ev.config_hash}
        return TABLE_WHO, f"rules in force: config hash {ev.config_hash}", data
    if kind is RulesChangeStated:
        to = f"config {ev.config_hash}" if ev.config_hash else "the table retired"
        text = f"rules change stated by the operator ({ev.reason}): config {ev.logged_hash} -> {to}"
        return TABLE_WHO, text, dict(ev._asdict())
    if kind is OperatorAction or kind is TerminalAccess:
        return who, operator_text(ev), dict(ev._asdict())
    if kind is RequestApplied:
        return ev.client, request_text(ev), dict(ev._asdict())
    return who, item.stored.kind.replace("_", " "), {}


def request_text(ev: RequestApplied) -> str:
    """The sentence of a ``request_applied``: which client's request id the step's records
    before it answer (a retry of it is answered as done and never runs again)."""
    records = f"the {ev.events} record{'s' * (ev.events != 1)} before this one"
    done = f" ({records})" if ev.events else ""
    return f"request {ev.request_id} of {ev.client} ({ev.command}) took effect{done}"


def started_data(ev: RoundStarted) -> dict[str, Any]:
    """A ``round_started``'s fields as an entry's data."""
    return {
        "round": ev.round,
        "shoe": ev.shoe,
        "config_hash": ev.config_hash,
        "seats": list(ev.seats),
        "terminals": list(ev.terminals),
        "balances": list(ev.balances),
    }


def _meter_text(ev: Any) -> str:
    """One sentence for a progressive meter's event (millicents shown as money)."""
    kind = type(ev)
    amount = format_money(ev.amount // 1000) if hasattr(ev, "amount") else ""
    if kind is MeterOpened:
        return f"meter {ev.meter} ({ev.name}) opens at {format_money(ev.seed)}"
    if kind is MeterContributed:
        return f"{ev.place}'s {format_money(ev.wager)} wager feeds meter {ev.meter}: now {amount}"
    if kind is MeterAwarded:
        who = ", ".join(ev.places)
        return f"meter {ev.meter} pays {ev.percent}% to {who}: {format_money(ev.share)} each"
    if kind is MeterReseeded:
        return f"meter {ev.meter} reset to {amount}"
    if kind is MysteryTriggerDrawn:
        return f"meter {ev.meter}: a new must-hit-by value is drawn (secret)"
    return f"meter {ev.meter}: {ev.place} wins {format_money(ev.paid)} (must hit by)"


def _fold(logged: LoggedRound, started: RoundStarted | None) -> tuple[Ledger | None, list[str]]:
    """A fresh ledger, wallets seeded with the start balances, folded over the round."""
    ledger = game_for(logged.config).new_ledger()
    if started is not None:
        ledger.wallets.update(zip(started.terminals, started.balances, strict=False))
    try:
        for item in logged.events:
            ledger.apply(item.stored.terminal, item.event)
    except RulesError as exc:
        return None, [f"the round's events do not fold into balances: {exc}"]
    return ledger, []


def build_timeline(logged: LoggedRound, *, revealed: Logged | None = None) -> Timeline:
    """The recall timeline of one round (pure).

    Args:
        logged: The round, from :func:`~game_server.recall.rounds.load_round` or
            :func:`~game_server.recall.query.fetch_round`.
        revealed: The shoe's ``shoe_revealed`` if the caller looked it up (it usually comes
            after the round, outside ``logged``:
            :func:`~game_server.recall.query.shoe_reveal`); its seq and its seed and salt
            go into :attr:`Timeline.shoe`.

    Returns:
        The :class:`Timeline`; inconsistencies of the log are listed in its ``problems``
        rather than raised, so that a damaged round can still be recalled.
    """
    started = logged.started
    closed = logged.closed
    events = logged.events
    problems: list[str] = []
    config = logged.config
    game = game_for(config)
    seats = dict(zip(started.seats, started.terminals, strict=False)) if started else {}
    if not game.seated(config):
        seats = {}  # stadium play: round_started lists seat 0 for every terminal
    labels = game.recall_labels(config, seats, events)
    entries = []
    for item in events:
        described = game.describe(config, item, labels)
        who, text, data = described if described is not None else describe_table(item, labels)
        stored = item.stored
        entries.append(Entry(stored.seq, stored.time, who, stored.kind, text, data))

    config_hash = started.config_hash if started is not None else logged.config.config_hash()
    if started is not None and started.config_hash != logged.config.config_hash():
        problems.append(
            f"round_started names config {started.config_hash}, but the rules in force "
            f"(table_opened at seq {logged.config_seq}) hash to {logged.config.config_hash()}"
        )

    shoe = _shoe_info(logged, started, revealed)
    ledger, fold_problems = _fold(logged, started)
    problems += fold_problems
    credits = _credits(logged, started, closed, ledger, problems, game.seated(config))
    meters = {}
    if ledger is not None:
        meters = {
            name: MeterChange(m.placed, m.wagered, m.settled, m.paid, m.won)
            for name, m in sorted(ledger.meters.items())
        }
    return Timeline(
        table_id=logged.table_id,
        round_id=logged.round_id,
        config_hash=config_hash,
        config_seq=logged.config_seq,
        shoe=shoe,
        start=events[0].stored.time if events else "",
        end=events[-1].stored.time if events else "",
        complete=logged.complete,
        closed=closed is not None,
        seats=labels.seats,
        credits=credits,
        entries=tuple(entries),
        meters=meters,
        games_played=ledger.games_played if ledger is not None else int(logged.complete),
        problems=tuple(problems),
        game=config.game,
    )


def _shoe_info(
    logged: LoggedRound, started: RoundStarted | None, revealed: Logged | None
) -> ShoeInfo | None:
    record = logged.shoe
    if revealed is None and record is not None:
        revealed = record.revealed
    seq = None if revealed is None else revealed.seq
    reveal = None if revealed is None else reveal_fields(revealed)
    if record is not None:
        committed = record.committed.event
        return ShoeInfo(
            record.number,
            committed.decks,
            committed.cut_card,
            committed.commitment,
            committed.key_id,
            record.committed.seq,
            seq,
            reveal,
        )
    if started is None:
        return None
    return ShoeInfo(started.shoe, None, None, None, None, None, seq, reveal)


def _credits(
    logged: LoggedRound,
    started: RoundStarted | None,
    closed: RoundClosed | None,
    ledger: Ledger | None,
    problems: list[str],
    seated: bool,
) -> dict[str, Credits]:
    start = dict(zip(started.terminals, started.balances, strict=False)) if started else {}
    end = dict(zip(closed.terminals, closed.balances, strict=False)) if closed else {}
    seat_of = dict(zip(started.terminals, started.seats, strict=False)) if started else {}
    if not seated:
        seat_of = {}  # no seats in stadium play
    roles = wager_roles()
    names = list(start)
    wagered: dict[str, int] = {}
    paid: dict[str, int] = {}
    cash_in: dict[str, int] = {}
    cash_out: dict[str, int] = {}
    for item in logged.events:
        ev = item.event
        kind = type(ev)
        if kind is CreditsIn:
            who: str | None = ev.terminal
            cash_in[ev.terminal] = cash_in.get(ev.terminal, 0) + ev.amount
        elif kind is CreditsOut:
            who = ev.terminal
            cash_out[ev.terminal] = cash_out.get(ev.terminal, 0) + ev.amount
        elif (role := roles.get(kind)) is PLACED or role is SETTLED:
            who = item.stored.terminal
            if who is None:
                continue
            placed = role is PLACED
            totals = wagered if placed else paid
            totals[who] = totals.get(who, 0) + (ev.amount if placed else ev.paid)
        else:
            continue
        if who is not None and who not in names:
            names.append(who)
    names += [name for name in end if name not in names]
    result = {}
    for name in names:
        folded = None
        if ledger is not None and name in start:
            folded = ledger.wallets.get(name, 0)
        logged_end = end.get(name)
        if folded is not None and logged_end is not None and folded != logged_end:
            problems.append(
                f"{name}: round_closed logs {format_money(logged_end)} but the round's events "
                f"fold to {format_money(folded)}"
            )
        result[name] = Credits(
            terminal=name,
            seat=seat_of.get(name),
            start=start.get(name),
            end=logged_end,
            wagered=wagered.get(name, 0),
            paid=paid.get(name, 0),
            credits_in=cash_in.get(name, 0),
            credits_out=cash_out.get(name, 0),
            folded_end=folded,
        )
    return result


# -- text ----------------------------------------------------------------------------------


def short_time(text: str) -> str:
    """A stored time to milliseconds: ``"2026-11-29T15:59:33.795589Z"`` ->
    ``"2026-11-29 15:59:33.795Z"`` (unchanged if it is not in the stored form)."""
    if len(text) == 27 and text[10] == "T" and text.endswith("Z"):
        return f"{text[:10]} {text[11:23]}Z"
    return text


def _money_or_dash(cents: int | None) -> str:
    return "-" if cents is None else format_money(cents)


def _idle(line: Credits) -> bool:
    """A terminal that took no part in the round: no credits at its start or end, nothing
    wagered, paid, credited or cashed out (its row would be all zeros)."""
    return (
        not line.start
        and not line.end
        and not line.folded_end
        and not (line.wagered or line.paid or line.credits_in or line.credits_out)
    )


def format_timeline(timeline: Timeline) -> list[str]:
    """The text of ``etg recall show``: header, credits, the steps, the meter changes."""
    tl = timeline
    out = [
        f"Table {tl.table_id}  round {tl.round_id}  {tl.status}"
        + ("" if tl.closed or not tl.complete else " (no round_closed logged)"),
        f"  start {short_time(tl.start)}   end {short_time(tl.end)}   (UTC)",
    ]
    shoe = tl.shoe
    if shoe is not None:
        size = (
            f"{shoe.decks} deck{'s' * (shoe.decks != 1)}"
            if shoe.decks is not None
            else "decks unknown"
        )
        cut = f", cut card at {shoe.cut_card}" if shoe.cut_card is not None else ""
        committed = (
            f"committed at seq {shoe.committed_seq}: {shoe.commitment}"
            if shoe.commitment is not None
            else "commitment not found in the log"
        )
        revealed = (
            f"; revealed at seq {shoe.revealed_seq}"
            if shoe.revealed_seq is not None
            else "; not revealed yet"
        )
        out.append(f"  shoe {shoe.number} ({size}{cut}), {committed}{revealed}")
        out.append(f"  {REVEAL_LINE}{reveal_text(shoe)}")
    out.append(f"  rules: config hash {tl.config_hash} (table_opened at seq {tl.config_seq})")
    out.append("")
    out.append(
        f"  {'Credits':<16}{'start':>14}{'wagered':>12}{'paid':>12}{'in/out':>12}{'end':>14}"
    )
    unclosed = False
    idle = [name for name, line in tl.credits.items() if _idle(line)]
    for name, line in tl.credits.items():
        if name in idle:
            continue
        who = f"{name}" + (f" (seat {line.seat})" if line.seat is not None else "")
        moved = line.credits_in - line.credits_out
        end = _money_or_dash(line.end)
        if line.end is None and line.folded_end is not None:
            end = format_money(line.folded_end) + "*"
            unclosed = True
        out.append(
            f"  {who:<16}{_money_or_dash(line.start):>14}{format_money(line.wagered):>12}"
            f"{format_money(line.paid):>12}{format_money(moved) if moved else '-':>12}"
            f"{end:>14}"
        )
    if idle:
        out.append(f"  not shown: {', '.join(idle)} (no credits and no wager this round)")
    if unclosed:
        out.append(
            "  * no round_closed is logged: credits after the logged steps (a Ledger fold), "
            "with unsettled wagers still in play"
        )
    out.append("")
    out.append(f"  {'seq':>8}  {'time (UTC)':<15}  {'who':<8}  step")
    day = tl.start[:10]
    for entry in tl.entries:
        when = entry.time[11:26] if entry.time[:10] == day else short_time(entry.time)
        out.append(f"  {entry.seq:>8}  {when:<15}  {entry.who:<8}  {entry.text}")
    out.append("")
    out.append("  Meters of this round (a fresh Ledger fold of the round's events):")
    out.append(f"  {'wager':<14}{'placed':>7}{'wagered':>12}{'settled':>12}{'paid':>12}{'won':>5}")
    for name, change in tl.meters.items():
        out.append(
            f"  {wager_title(name):<14}{change.placed:>7}{format_money(change.wagered):>12}"
            f"{format_money(change.settled):>12}{format_money(change.paid):>12}{change.won:>5}"
        )
    out.append(f"  games played +{tl.games_played}")
    for problem in tl.problems:
        out.append(f"  PROBLEM: {problem}")
    return out
