"""``etg verify``'s walk over the log: the check of every record, round by round (its game's
checks of its records, the table's records, credits, rounds replayed through the rules, the
ledger), in one pass (:func:`game_server.recall.verify.verify_log` drives it); the shoes' and
cards' checks are :class:`~game_server.recall.verify_shoes.ShoeChecks`.

Entry point: :class:`Semantics`.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections import OrderedDict
from typing import Any, Final

from game_server.config import config_from_dict
from game_server.eventlog import (
    StoredEvent,
)
from game_server.games import game_for, games, logged_game, logged_table_type
from game_server.games.api import (
    CARD,
    COMPLETED,
    DEALER_STEP,
    HOLE,
    NUMBERED,
    NUMBERED_WAGER,
    PLAYER,
    PLAYER_WAGER,
    SEAT_CARD,
    SEATED,
    SEEDED,
    TABLE_CARD,
    WAGER,
    Game,
)
from game_server.recall.rounds import Logged, LoggedRound
from game_server.recall.verify_report import Findings, UnverifiableLog
from game_server.recall.verify_shoes import Handler, ShoeChecks, _Table
from game_server.rules.meters import (
    LinkedMeterAwarded,
    MeterAwarded,
    MeterContributed,
    MeterOpened,
    MeterReseeded,
    MysteryAwarded,
    MysteryTriggerDrawn,
)
from game_server.rules.wagers.base import TableType
from game_server.table.events import (
    CardsUnsealed,
    CreditsIn,
    CreditsOut,
    RequestApplied,
    RoundClosed,
    RoundStarted,
    ShoeCommitted,
    ShoeRevealed,
    TableOpened,
)
from game_server.table.ledger import PLACED, Ledger, LedgerError, wager_roles
from game_server.table.requests import OPERATOR_REQUESTS, TERMINAL_REQUESTS, kept_for
from game_server.table.secrecy import from_shoe, still_sealed
from shared.cards import Card
from shared.codec import canonical_json
from shared.errors import ETGError
from shared.money import format_money

#: The progressive meters' records: the platform's, logged at every table that has meters.
METER_KINDS: Final = frozenset(
    {
        MeterOpened,
        MeterContributed,
        MeterAwarded,
        MeterReseeded,
        MysteryTriggerDrawn,
        MysteryAwarded,
        LinkedMeterAwarded,
    }
)
#: A meter's award: it credits the places it names at a table whose game's ledger says so
#: (:attr:`~game_server.table.ledger.Ledger.awards_move_credits`; elsewhere the settlement's
#: ``from_meter`` carries what the meter paid).
AWARD_KINDS: Final = (MeterAwarded, MysteryAwarded, LinkedMeterAwarded)


# ----------------------------------------------------------------------------- the walk

_INDEX = re.compile(r"\bevent (\d+)\b")


class _Semantics(ShoeChecks):
    """Everything but the chain: shoes, cards, replay, round structure, ledger."""

    def __init__(self, findings: Findings, sealing_key: bytes | None) -> None:
        self.f = findings
        self.sealing_key = sealing_key
        # The one fold of the log, every game's records (what a meter paid is
        # ``progressive_paid``).
        self.ledger = Ledger()
        self.ledger_roles = wager_roles()
        #: Per terminal: the balance the log last stated minus the fold at that point.
        self.offset: dict[str, int] = {}
        self.tables: dict[str, _Table] = {}
        self.config_hashes: dict[tuple[str, int], str] = {}
        self.rounds = 0
        self.rounds_replayed = 0
        self.shoes_checked = 0
        self.cards_checked = 0
        self.stopped_at: int | None = None
        self._table_id = ""
        self._table = _Table()
        #: The events read so far of the step being read: its table and time (every event of
        #: one step has both), and how many.
        self._step: tuple[str, str] = ("", "")
        self._step_events = 0
        #: The seq of the last ``request_applied``, and each client's last request ids that
        #: took effect with their seqs (as many as a server remembers of the client).
        self._last_request = 0
        self._requests: dict[str, OrderedDict[str, int]] = {}
        #: The platform's records, checked the same at every table.
        self._table_checks: dict[type, Handler] = {
            RoundStarted: self._round_started,
            RoundClosed: self._round_closed,
            CardsUnsealed: self._cards_unsealed,
            CreditsIn: self._credits,
            CreditsOut: self._credits,
            TableOpened: self._table_opened,
            ShoeCommitted: self._shoe_committed,
            ShoeRevealed: self._shoe_revealed,
            RequestApplied: self._request_applied,
        }
        #: The checks a game names for its records (:meth:`Game.verify_checks`).
        self._checks: dict[str, Handler] = {
            CARD: self._card_dealt,
            HOLE: self._hole_revealed,
            WAGER: self._wager,
            SEATED: self._seated,
            DEALER_STEP: self._dealer,
            COMPLETED: self._completed,
            TABLE_CARD: self._table_card,
            SEAT_CARD: self._seat_card,
            PLAYER: self._player,
            PLAYER_WAGER: self._player_wager,
            NUMBERED: self._numbered,
            NUMBERED_WAGER: self._numbered_wager,
            SEEDED: self._seeded,
        }
        self._handlers_of: dict[tuple[str, TableType], dict[type, Handler]] = {}
        first = games()[0]
        self._handlers = self._handlers_for(first, TableType.FULLY_AUTOMATED)

    def _handlers_for(self, game: Game, table_type: TableType) -> dict[type, Handler]:
        """The check of each kind of record at a table of ``game`` and ``table_type``: the
        platform's, the game's, and a failure for a record only another game's engine (or
        this game's at another type of table) produces."""
        key = (game.name, table_type)
        found = self._handlers_of.get(key)
        if found is None:
            own = game.verify_checks(table_type)
            unknown = set(own.values()) - set(self._checks)
            if unknown:
                raise UnverifiableLog(
                    f"the game {game.name!r} names checks this build does not have: "
                    f"{sorted(unknown)}"
                )
            shared = set(self._table_checks) | METER_KINDS
            every: set[type] = set()
            for other in games():
                for kind in other.table_types:
                    every |= set(other.engine_kinds(kind)) | set(other.verify_checks(kind))
            foreign = every - shared - set(game.engine_kinds(table_type)) - set(own)
            found = dict.fromkeys(foreign, self._foreign)
            found.update(self._table_checks)
            found.update({kind: self._checks[check] for kind, check in own.items()})
            if game.new_ledger().awards_move_credits:
                # The table's Ledger credits an award's places (a Blackjack table's local,
                # Must-Hit-By and floor-linked meters, 605a.8): so does this fold.
                found.update(dict.fromkeys(AWARD_KINDS, self._award))
            self._handlers_of[key] = found
        return found

    # ------------------------------------------------------------ per event

    def on_event(self, item: Logged) -> None:
        stored = item.stored
        step = (stored.table_id, stored.time)
        if step == self._step:
            self._step_events += 1
        else:
            self._step, self._step_events = step, 1
        if stored.table_id != self._table_id:
            self._table_id = stored.table_id
            table = self.tables.get(stored.table_id)
            if table is None:
                table = self.tables[stored.table_id] = _Table(handlers=self._handlers)
            self._table = table
        handler = self._table.handlers.get(type(item.event))
        if handler is not None:
            handler(stored, item.event)

    def _seated(self, stored: StoredEvent, ev: Any) -> None:
        self._envelope(stored, ev.seat)

    def _wager(self, stored: StoredEvent, ev: Any) -> None:
        if stored.terminal != self._table.terminal_of.get(ev.seat):
            self._envelope(stored, ev.seat)
        self._fold_wager(stored, ev)

    def _fold_wager(self, stored: StoredEvent, ev: Any) -> None:
        try:
            self.ledger.apply(stored.terminal, ev)
        except LedgerError as exc:
            self.f.fail(stored.seq, "ledger", f"{stored.kind} at seq {stored.seq}: {exc}")
            if stored.terminal is not None and self.ledger_roles.get(type(ev)) == PLACED:
                # Fold it anyway (credit the shortfall) so one fault is reported once.
                short = ev.amount - self.ledger.wallets.get(stored.terminal, 0)
                self.ledger.wallets[stored.terminal] = ev.amount
                self.offset[stored.terminal] = self.offset.get(stored.terminal, 0) - short
                self.ledger.apply(stored.terminal, ev)

    def _award(self, stored: StoredEvent, ev: Any) -> None:
        self.ledger.apply(stored.terminal, ev)

    def _completed(self, stored: StoredEvent, ev: Any) -> None:
        self._dealer(stored, ev)
        self.ledger.apply(stored.terminal, ev)

    def _foreign(self, stored: StoredEvent, ev: Any) -> None:
        table = self._table
        self.f.fail(
            stored.seq,
            "rounds",
            f"{stored.kind} at seq {stored.seq} is not an event of the {table.table_type} "
            f"table's engine (table {stored.table_id}): the rules in force never produce it",
        )

    def _in_round(self, stored: StoredEvent, whose: str) -> bool:
        """A player's event must name a terminal of round_started in its envelope."""
        terminal = stored.terminal
        if terminal is not None and terminal in self._table.terminals:
            return True
        self.f.fail(
            stored.seq,
            "rounds",
            f"{stored.kind} at seq {stored.seq} is {whose} but its envelope names "
            f"{'no terminal' if terminal is None else f'terminal {terminal}'}, not one of the "
            f"terminals of round_started {list(self._table.terminals)}",
        )
        return False

    def _player(self, stored: StoredEvent, ev: Any) -> None:
        """Three-position table: a player is his terminal (633b.5(l))."""
        if self._in_round(stored, f"player {ev.player}'s") and stored.terminal != ev.player:
            self.f.fail(
                stored.seq,
                "rounds",
                f"{stored.kind} at seq {stored.seq} is player {ev.player}'s but its envelope "
                f"names terminal {stored.terminal}",
            )

    def _player_wager(self, stored: StoredEvent, ev: Any) -> None:
        self._player(stored, ev)
        self._fold_wager(stored, ev)

    def _numbered(self, stored: StoredEvent, ev: Any) -> None:
        """No-hole-card table: the terminals that join a round are players 1, 2, ... in the
        order they joined; every event of a player names that terminal in its envelope."""
        table = self._table
        seat = ev.seat
        if not self._in_round(stored, f"player {seat}'s"):
            return
        terminal = stored.terminal
        assert terminal is not None
        known = table.players.get(seat)
        if known is None:
            if terminal in table.numbers:
                self.f.fail(
                    stored.seq,
                    "rounds",
                    f"{stored.kind} at seq {stored.seq} names terminal {terminal} as player "
                    f"{seat}, but it joined this round as player {table.numbers[terminal]}",
                )
                return
            if seat != len(table.players) + 1:
                self.f.fail(
                    stored.seq,
                    "rounds",
                    f"{stored.kind} at seq {stored.seq}: terminal {terminal} joins as player "
                    f"{seat}, but it is the round's player {len(table.players) + 1} (players "
                    "are numbered in the order they join)",
                )
            table.players[seat] = terminal
            table.numbers[terminal] = seat
        elif known != terminal:
            self.f.fail(
                stored.seq,
                "rounds",
                f"{stored.kind} at seq {stored.seq} is player {seat}'s, who is terminal {known} "
                f"in this round, but its envelope names terminal {terminal}",
            )

    def _numbered_wager(self, stored: StoredEvent, ev: Any) -> None:
        self._numbered(stored, ev)
        self._fold_wager(stored, ev)

    def _hole_revealed(self, stored: StoredEvent, ev: Any) -> None:
        self._dealer(stored, ev)
        self._card(stored, ev.position, ev.card)

    def _stated(self, seq: int, what: str, terminal: str, balance: int, fold: int) -> None:
        """A balance the log states for ``terminal`` must be the fold (plus the offset of an
        earlier mismatch, so that one fault is reported once, where it happens)."""
        offset = self.offset.get(terminal, 0)
        if balance != fold + offset:
            self.f.fail(
                seq,
                "ledger",
                f"{what} at seq {seq} states {format_money(balance)} for terminal {terminal}, "
                f"but the log folds to {format_money(fold + offset)}",
            )
            self.offset[terminal] = balance - fold

    def _credits(self, stored: StoredEvent, ev: Any) -> None:
        seq = stored.seq
        terminal = ev.terminal
        if stored.terminal != terminal:
            self.f.fail(
                seq,
                "ledger",
                f"{ev.kind} at seq {seq} is for terminal {terminal} but its envelope names "
                f"terminal {stored.terminal}",
            )
        wallets = self.ledger.wallets
        held = wallets.get(terminal, 0)
        if type(ev) is CreditsIn:
            after = held + ev.amount
        else:
            after = held - ev.amount
            if after < 0:
                self.f.fail(
                    seq,
                    "ledger",
                    f"credits_out at seq {seq} pays {format_money(ev.amount)} to terminal "
                    f"{terminal}, which holds {format_money(held)} by the fold",
                )
                # Fold it anyway (credit the shortfall) so one fault is reported once.
                wallets[terminal] = ev.amount
                self.offset[terminal] = self.offset.get(terminal, 0) + held - ev.amount
                after = 0
        self._stated(seq, ev.kind, terminal, ev.balance, after)
        self.ledger.apply(terminal, ev._replace(balance=after))

    def _request_applied(self, stored: StoredEvent, ev: RequestApplied) -> None:
        """A client's request id, logged with the step it took effect in: well formed, the
        envelope naming the terminal that sent it (none for the operator), the records it
        counts before it in its step (the same table and time, no other request record
        among them); a request id a server still remembered that took effect a second time
        is a warning (a double effect: a retry that ran again)."""
        seq = stored.seq
        what = f"request_applied at seq {seq}"
        client, request_id, command, events = ev
        if not _printable(client, 64):
            self.f.fail(seq, "requests", f"{what} names no client ({client!r})")
            return
        if not _printable(request_id, 64) or not request_id.isascii():
            self.f.fail(
                seq,
                "requests",
                f"{what}: request id {request_id!r} is not 1 to 64 printable ASCII characters",
            )
        if command in TERMINAL_REQUESTS:
            if stored.terminal != client:
                self.f.fail(
                    seq,
                    "requests",
                    f"{what} is terminal {client}'s {command} but its envelope names "
                    f"{'no terminal' if stored.terminal is None else stored.terminal}",
                )
        elif command in OPERATOR_REQUESTS:
            if stored.terminal is not None:
                self.f.fail(
                    seq,
                    "requests",
                    f"{what} is the operator's {command} but its envelope names terminal "
                    f"{stored.terminal}",
                )
        else:
            self.f.fail(seq, "requests", f"{what} names {command!r}, no command that changes state")
        before = self._step_events - 1
        if type(events) is not int or not 0 <= events <= before:
            self.f.fail(
                seq,
                "requests",
                f"{what} counts {events!r} records of its step before it, but {before} "
                "precede it with its table and time",
            )
        elif self._last_request >= seq - events:
            self.f.fail(
                seq,
                "requests",
                f"{what} counts the request record at seq {self._last_request} among the "
                "records of its step",
            )
        self._last_request = seq
        seen = self._requests.setdefault(client, OrderedDict())
        first = seen.pop(request_id, None)
        if first is not None:
            self.f.warn(
                seq,
                "requests",
                f"request id {request_id!r} of {client} took effect at seq {first} and again "
                f"at seq {seq} ({command}): a retry run a second time",
            )
        seen[request_id] = seq
        while len(seen) > kept_for(command):
            seen.popitem(last=False)

    def _table_opened(self, stored: StoredEvent, ev: Any) -> None:
        table = self._table
        table.table_type = logged_table_type(ev.config)
        game = logged_game(ev.config)
        table.game = game
        table.handlers = self._handlers_for(game, table.table_type)
        table.config = None
        if SEEDED in game.verify_checks(table.table_type).values():
            # A config this build refuses is reported by the walk itself.
            with contextlib.suppress(ETGError):
                table.config = config_from_dict(ev.config)
        try:
            logged = hashlib.sha256(canonical_json(ev.config)).hexdigest()
        except ETGError as exc:
            self.f.fail(stored.seq, "rounds", f"table_opened at seq {stored.seq}: {exc}")
            return
        if logged != ev.config_hash:
            self.f.fail(
                stored.seq,
                "rounds",
                f"table_opened at seq {stored.seq} names config hash {ev.config_hash}, but the "
                f"config it logs hashes to {logged}",
            )

    def _round_started(self, stored: StoredEvent, ev: RoundStarted) -> None:
        seq = stored.seq
        table = self._table
        if ev.round != stored.round_id:
            self.f.fail(
                seq,
                "rounds",
                f"round_started at seq {seq} is for round {ev.round}, but its envelope names "
                f"round {stored.round_id}",
            )
        # The envelope's round id is the one recall groups by (walk, events_for_round).
        round_id = ev.round if stored.round_id is None else stored.round_id
        if table.last_round is not None and round_id != table.last_round + 1:
            self.f.fail(
                seq,
                "rounds",
                f"round {round_id} of table {stored.table_id} (seq {seq}) follows round "
                f"{table.last_round}: round ids go up by one",
            )
        table.last_round = round_id
        shoe = table.shoes.get(ev.shoe)
        if shoe is None:
            self.f.fail(
                seq,
                "rounds",
                f"round {ev.round} (seq {seq}) deals from shoe {ev.shoe}, which was never "
                "committed",
            )
        elif shoe.revealed_seq is not None:
            self.f.fail(
                seq,
                "rounds",
                f"round {ev.round} (seq {seq}) deals from shoe {ev.shoe}, which was already "
                f"revealed at seq {shoe.revealed_seq} (its cards were public)",
            )
        if shoe is not None:
            shoe.rounds += 1
        table.dealing = shoe
        table.round_open = True
        table.sealed.clear()
        if not len(ev.seats) == len(ev.terminals) == len(ev.balances):
            self.f.fail(
                seq,
                "rounds",
                f"round_started at seq {seq} lists {len(ev.seats)} seats, "
                f"{len(ev.terminals)} terminals and {len(ev.balances)} balances",
            )
        table.terminal_of = dict(zip(ev.seats, ev.terminals, strict=False))
        table.terminals = ev.terminals
        table.players = {}
        table.numbers = {}
        wallets = self.ledger.wallets
        for terminal, balance in zip(ev.terminals, ev.balances, strict=False):
            self._stated(seq, "round_started", terminal, balance, wallets.get(terminal, 0))

    def _round_closed(self, stored: StoredEvent, ev: RoundClosed) -> None:
        seq = stored.seq
        if ev.round != stored.round_id:
            self.f.fail(
                seq,
                "rounds",
                f"round_closed at seq {seq} is for round {ev.round}, but its envelope names "
                f"round {stored.round_id}",
            )
        if tuple(ev.terminals) != tuple(self._table.terminals):
            self.f.fail(
                seq,
                "rounds",
                f"round_closed at seq {seq} lists terminals {list(ev.terminals)}, but the round "
                f"started with {list(self._table.terminals)}",
            )
        if len(ev.terminals) != len(ev.balances):
            self.f.fail(
                seq,
                "rounds",
                f"round_closed at seq {seq} lists {len(ev.terminals)} terminals and "
                f"{len(ev.balances)} balances",
            )
        wallets = self.ledger.wallets
        for terminal, balance in zip(ev.terminals, ev.balances, strict=False):
            self._stated(seq, "round_closed", terminal, balance, wallets.get(terminal, 0))
        self._unsealed_at_close(stored)
        self._table.round_open = False

    # ------------------------------------------------------------ per round

    def on_round(self, rnd: LoggedRound) -> None:
        self.rounds += 1
        events = rnd.events
        first = events[0]
        where = f"round {rnd.round_id} of table {rnd.table_id}"
        started = first.event if type(first.event) is RoundStarted else None
        if started is None:
            self.f.fail(
                first.seq,
                "rounds",
                f"{where} does not open with round_started (seq {first.seq} is a "
                f"{first.stored.kind}): events are missing or out of place",
            )
        else:
            key = (rnd.table_id, rnd.config_seq)
            expected = self.config_hashes.get(key)
            if expected is None:
                expected = self.config_hashes[key] = rnd.config.config_hash()
            if started.config_hash != expected:
                self.f.fail(
                    first.seq,
                    "rounds",
                    f"round_started at seq {first.seq} names config hash "
                    f"{started.config_hash}, but the config in force (table_opened at seq "
                    f"{rnd.config_seq}) hashes to {expected}",
                )
            shoe = rnd.shoe
            if shoe is not None and shoe.committed.event.decks != rnd.config.rules.decks:
                self.f.fail(
                    first.seq,
                    "rounds",
                    f"{where} deals from shoe {shoe.number} of {shoe.committed.event.decks} "
                    f"decks, but the config in force has {rnd.config.rules.decks}",
                )
        engine = rnd.engine_events()
        records = [item.event for item in engine]
        secrecy = game_for(rnd.config).secrecy(rnd.config.table_type)
        if rnd.closed is None and still_sealed(secrecy, records):
            # A round in play: its face-down cards are sealed until it closes; with the
            # sealing key they are read from its shoe, else it is replayed once closed.
            order = self._sealed_order(rnd)
            if order is None:
                self._open_round(rnd, where, sealed=True)
                return
            records = from_shoe(secrecy, records, order)
        try:
            self._replay(rnd, records)
        except Exception as exc:  # any refusal of a logged round is a finding
            seq, reason = _replay_failure(exc, engine, events[-1].seq)
            self.f.fail(seq, "replay", f"{where} does not replay through its rules: {reason}")
        else:
            self.rounds_replayed += 1
        self._open_round(rnd, where)

    def _sealed_order(self, rnd: LoggedRound) -> tuple[Card, ...] | None:
        """The order of the shoe a round in play is dealt from, unsealed with the sealing
        key (None without it, or when it does not open the shoe)."""
        started = rnd.started
        table = self.tables.get(rnd.table_id)
        if self.sealing_key is None or started is None or table is None:
            return None
        shoe = table.shoes.get(started.shoe)
        return None if shoe is None else self._unsealed(shoe)

    def _open_round(self, rnd: LoggedRound, where: str, *, sealed: bool = False) -> None:
        """A round that does not end with ``round_closed``: a failure once complete, else a
        round still in play (the end of a live log)."""
        last = rnd.events[-1]
        if type(last.event) is not RoundClosed:
            if rnd.complete:
                self.f.fail(
                    last.seq,
                    "rounds",
                    f"{where} does not end with round_closed (seq {last.seq} is a "
                    f"{last.stored.kind}): the credits at the end of the game are not logged",
                )
            else:
                self.f.warn(
                    last.seq,
                    "rounds",
                    f"{where} is not complete (no round_completed up to seq {last.seq}): its "
                    "wagers are still in play"
                    + (" (its face-down cards sealed until it closes)" if sealed else ""),
                )

    def _replay(self, rnd: LoggedRound, events: list[Any]) -> None:
        """Replay a round through its game's engine (the live table's engine)."""
        game_for(rnd.config).replay(rnd.config, events, rnd.table_id)

    # ------------------------------------------------------------ the end

    def finish(self, last_seq: int) -> None:
        """End of log: the shoes never revealed, and conservation."""
        for table_id, table in sorted(self.tables.items()):
            for number, shoe in sorted(table.shoes.items()):
                if shoe.revealed_seq is not None:
                    continue
                if self.sealing_key is not None:
                    order = self._unsealed(shoe)
                    if order is not None:
                        self._settle(shoe, order)
                        continue
                if shoe.rounds or shoe.pending:
                    why = "no sealing key" if self.sealing_key is None else "not unsealed"
                    self.f.warn(
                        shoe.committed_seq,
                        "cards",
                        f"{shoe.rounds} rounds of unrevealed shoe {number} of table {table_id} "
                        f"not checked ({why})",
                    )
        if self.stopped_at is not None:
            return
        ledger = self.ledger
        stated = sum(ledger.wallets.values()) + sum(self.offset.values())
        in_play = ledger.in_play
        house = ledger.house_result
        # What the progressive meters paid into wallets is funded by the house (their awards
        # at a Blackjack table, a settlement's ``from_meter`` at a UTH table).
        paid = ledger.progressive_paid
        off = ledger.credits_in - ledger.credits_out - stated - in_play - house + paid
        if off:
            self.f.fail(
                last_seq,
                "conservation",
                f"at the end of the log (seq {last_seq}), credits in "
                f"{format_money(ledger.credits_in)} != credits out "
                f"{format_money(ledger.credits_out)} + stated balances {format_money(stated)} + "
                f"in play {format_money(in_play)} + house result {format_money(house)} "
                f"(off by {format_money(off)})",
            )
        for name, meter in sorted(ledger.meters.items()):
            if meter.settled > meter.wagered:
                self.f.fail(
                    last_seq,
                    "conservation",
                    f"{name} wagers settled {format_money(meter.settled)} of stakes, more than "
                    f"the {format_money(meter.wagered)} wagered",
                )


def _printable(value: object, most: int) -> bool:
    """Whether ``value`` is text of 1 to ``most`` printable characters."""
    return isinstance(value, str) and 1 <= len(value) <= most and value.isprintable()


def _replay_failure(exc: Exception, engine: list[Logged], last_seq: int) -> tuple[int, str]:
    """The seq a replay failure names (the replay's index mapped back to the log) and its
    reason, with every "event i" of the message given as its seq."""
    message = str(exc) or type(exc).__name__
    match = _INDEX.search(message)
    if match is not None and engine:
        index = min(int(match.group(1)), len(engine) - 1)
        seq = engine[index].seq
    else:
        seq = engine[-1].seq if engine else last_seq

    def to_seq(found: re.Match[str]) -> str:
        index = int(found.group(1))
        return f"seq {engine[index].seq}" if index < len(engine) else found.group(0)

    text = _INDEX.sub(to_seq, message)
    if not isinstance(exc, ETGError):
        text = f"{type(exc).__name__}: {text}"
    return seq, text
