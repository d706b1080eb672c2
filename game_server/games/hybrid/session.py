"""One hybrid table's game flow in stadium play: sealed shoes, rounds, wallets, the log.

58 Pa. Code 633b.5: at a hybrid table any number of electronic wagering terminals take part
in each round; none holds a seat. :class:`HybridSession` is the table layer over the two pure
hybrid engines, chosen by the Rules Submission's table type:

- ``hybrid``: :class:`~game_server.games.hybrid.rules.three_position.ThreePositionRound`
  (633b.5(a)-(v)); a terminal chooses position 1, 2 or 3 when it joins a round, several
  terminals may share one position, and the engine's player id is the terminal id.
- ``hybrid-no-hole-card``:
  :class:`~game_server.games.hybrid.rules.no_hole_card.NoHoleCardRound` (633b.5(w)-(ee)); the engine
  numbers its players, so the terminals that join a round are numbered 1, 2, ... in the order
  they joined. The number is never logged on its own: every event of a player is written with
  its terminal in the log envelope (``NewEvent.terminal``), which is the mapping.

As at :class:`~game_server.table.session.TableSession` (both build on
:class:`~game_server.table.session.TableBook`: the log step, credits and shoe retirement),
every input becomes one engine step; the step's events are appended to the log in ONE
transaction and only then folded into the wallets by :class:`~game_server.table.ledger.Ledger`.
A wager, insurance, double down or split is checked against the terminal's credits before the
engine acts, so a logged step always folds.
The step that completes a round also holds :class:`~game_server.table.events.RoundClosed`
with every terminal's credits and is written with a round-close checkpoint.

Entry point: :class:`HybridSession`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any, Generic, Protocol, TypeVar

from game_server.config import TableConfig
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import BLACKJACK, RoundCompleted
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.session import SECRECY as BLACKJACK_SECRECY
from game_server.games.hybrid.rules import no_hole_card, three_position
from game_server.games.hybrid.rules.no_hole_card import NoHoleCardRound
from game_server.games.hybrid.rules.no_hole_card import Phase as NoHoleCardPhase
from game_server.games.hybrid.rules.three_position import Phase as ThreePositionPhase
from game_server.games.hybrid.rules.three_position import ThreePositionRound, ThreePositionRules
from game_server.recall.rounds import LoggedRound
from game_server.rng.shoe import Shoe
from game_server.rules.errors import ActionNotAllowed
from game_server.rules.wagers import buzzer_beater
from game_server.rules.wagers.base import NO_OPTIONS, TableType
from game_server.table import api as table_api
from game_server.table.events import TableOpened
from game_server.table.ledger import Ledger
from game_server.table.recovery import RecoveryError, SeatingChanged, replayed, round_started
from game_server.table.session import (
    SOFTWARE,
    EventSink,
    InsufficientCredits,
    NoRoundOpen,
    SealedShoes,
    TableBook,
    TableError,
    UnknownTerminal,
)

__all__ = [
    "HybridSession",
    "InsufficientCredits",
    "NotInRound",
    "PositionRefused",
    "three_position_rules",
]

#: ``RoundStarted.seats`` of a stadium terminal: it holds no seat (633b.5(l)).
NO_SEAT = 0


class NotInRound(table_api.NotInRound):
    """A decision from a terminal that has placed no wager in the open round."""


class PositionRefused(TableError):
    """A join without a position at the three-position table, or with one at the
    no-hole-card table (which has no player positions to choose)."""


def three_position_rules(rules: BlackjackRules) -> ThreePositionRules:
    """The three-position engine's rules from a hybrid table's Rules Submission.

    (``etg sim`` uses it too.)"""
    offer = rules.offers.get("buzzer_beater")
    return ThreePositionRules(
        decks=rules.decks,
        double_on=rules.double_on,
        double_after_split=rules.double_after_split,
        max_split_hands=rules.max_split_hands,
        resplit_aces=rules.resplit_aces,
        hit_split_aces=rules.hit_split_aces,
        insurance=rules.insurance,
        even_money=rules.even_money,
        main_limits=rules.main_limits,
        buzzer_beater=None if offer is None else offer.limits,
        buzzer_beater_basis=buzzer_beater.basis(NO_OPTIONS if offer is None else offer.option_map),
    )


# ------------------------------------------------------------------- the engines, by terminal

P = TypeVar("P")


class _Wagers(Protocol):
    @property
    def wagers(self) -> Mapping[str, int]: ...


class _Engine(Protocol[P]):
    """What the session calls on either hybrid engine; ``P`` is its player id."""

    @property
    def players(self) -> Mapping[P, _Wagers]: ...

    def verify_deal(self) -> None: ...

    def deal(self, source: Shoe, /) -> list[Any]: ...

    def verify_insurance(self, player: P, amount: int, /) -> None: ...

    def insure(self, player: P, amount: int, /, *, auto: bool = ...) -> list[Any]: ...

    def decline_insurance(self, player: P, /, *, auto: bool = ...) -> list[Any]: ...

    def verify_double(self, player: P, hand: int, amount: int | None, /) -> None: ...

    def verify_split(self, player: P, hand: int, /) -> None: ...

    def act(
        self,
        player: P,
        action: Action,
        hand: int,
        /,
        *,
        amount: int | None = ...,
        auto: bool = ...,
    ) -> list[Any]: ...

    def countdown(self, player: P, /) -> list[Any]: ...

    def to_act(self, player: P, /) -> int | None: ...


class _Round(Generic[P]):
    """One round's engine, addressed by terminal id: the only part that differs by table."""

    engine: _Engine[P]

    def player_of(self, terminal: str) -> P | None:
        """The engine's id of a terminal that joined this round, else None."""
        raise NotImplementedError

    def terminal_of(self, ev: Any) -> str | None:
        """The terminal an engine event belongs to (None: the dealer's, or everyone's)."""
        raise NotImplementedError

    def verify_join(self, terminal: str, wagers: Mapping[str, int], position: int | None) -> None:
        raise NotImplementedError

    def join(self, terminal: str, wagers: Mapping[str, int], position: int | None) -> list[Any]:
        raise NotImplementedError

    #: Whether the countdown finishes the whole round at once (``finish()``) rather than
    #: acting for each pending player (``countdown(terminal)``).
    finishes_at_once = False

    def pending_insurance(self) -> tuple[str, ...]:
        """The terminals that still owe an answer to the insurance offer."""
        raise NotImplementedError

    def pending(self) -> tuple[str, ...]:
        """The terminals the round waits for (an insurance answer or a decision)."""
        raise NotImplementedError

    def dealt(self) -> bool:
        """Whether the cards are dealt (no more bets, 633b.5(k))."""
        raise NotImplementedError

    def community_dealt(self) -> int:
        """How many community cards are out (a step of the no-hole-card table)."""
        return 0

    def finish(self) -> list[Any]:
        raise TableError(
            "only the three-position table finishes a round at once; at the no-hole-card "
            "table the countdown acts for each player: countdown(terminal) (633b.5(z))"
        )

    def take_even_money(self, terminal: str, *, auto: bool) -> list[Any]:
        raise ActionNotAllowed(
            "even money is not offered at the hybrid table without a hole card (633b.5(z))"
        )

    def player(self, terminal: str) -> P:
        player = self.player_of(terminal)
        if player is None:
            raise NotInRound(
                f"terminal {terminal} has no wager in this round: join before the deal"
            )
        return player

    def stake(self, terminal: str) -> int:
        """The terminal's Blackjack wager: what a full double down or a split costs."""
        return self.engine.players[self.player(terminal)].wagers[BLACKJACK]


class _ThreePosition(_Round[str]):
    """633b.5(a)-(v): the engine's player id is the terminal id."""

    def __init__(self, rules: ThreePositionRules, game: ThreePositionRound | None = None) -> None:
        self.game = ThreePositionRound(rules) if game is None else game
        self.engine = self.game

    finishes_at_once = True

    def pending_insurance(self) -> tuple[str, ...]:
        return self.game.pending_insurance

    def pending(self) -> tuple[str, ...]:
        return self.game.pending_players

    def dealt(self) -> bool:
        return self.game.phase is not ThreePositionPhase.BETTING

    def player_of(self, terminal: str) -> str | None:
        return terminal if terminal in self.game.players else None

    def terminal_of(self, ev: Any) -> str | None:
        player = getattr(ev, "player", None)  # every Hybrid3 event of a player names him
        return player if isinstance(player, str) else None

    def verify_join(self, terminal: str, wagers: Mapping[str, int], position: int | None) -> None:
        if position is None:
            raise PositionRefused(
                f"terminal {terminal} must choose player position 1, 2 or 3 to join a round "
                "(58 Pa. Code 633b.5(l))"
            )
        self.game.verify_join(terminal, position, wagers)

    def join(self, terminal: str, wagers: Mapping[str, int], position: int | None) -> list[Any]:
        assert position is not None
        return self.game.join(terminal, position, wagers)

    def finish(self) -> list[Any]:
        return self.game.finish()

    def take_even_money(self, terminal: str, *, auto: bool) -> list[Any]:
        return self.game.take_even_money(self.player(terminal), auto=auto)


class _NoHoleCard(_Round[int]):
    """633b.5(w)-(ee): terminals are the engine's players 1, 2, ... in the order they joined."""

    def __init__(
        self,
        rules: BlackjackRules,
        game: NoHoleCardRound | None = None,
        terminals: Mapping[int, str] | None = None,
    ) -> None:
        self.game = NoHoleCardRound(rules) if game is None else game
        self.engine = self.game
        # A resumed round (crash recovery) names its players' terminals from the log.
        self.terminals: dict[int, str] = {
            n: terminals[n] for n in sorted(self.game.players) if terminals is not None
        }
        self.numbers: dict[str, int] = {t: n for n, t in self.terminals.items()}

    def pending_insurance(self) -> tuple[str, ...]:
        return tuple(t for n, t in self.terminals.items() if self.game.pending_insurance(n))

    def pending(self) -> tuple[str, ...]:
        return tuple(self.terminals[n] for n in self.game.pending())

    def dealt(self) -> bool:
        return self.game.phase is not NoHoleCardPhase.BETTING

    def community_dealt(self) -> int:
        return len(self.game.community)

    def player_of(self, terminal: str) -> int | None:
        return self.numbers.get(terminal)

    def terminal_of(self, ev: Any) -> str | None:
        seat = getattr(ev, "seat", None)  # players are 1..n; dealer, community, all: <= 0
        return self.terminals.get(seat) if isinstance(seat, int) else None

    def _number(self, terminal: str) -> int:
        return self.numbers.get(terminal, len(self.numbers) + 1)

    def verify_join(self, terminal: str, wagers: Mapping[str, int], position: int | None) -> None:
        if position is not None:
            raise PositionRefused(
                "the hybrid table without a hole card has no player positions to choose: "
                "every player plays the one set of cards (58 Pa. Code 633b.5(y))"
            )
        number = self._number(terminal)
        seats = self.game.rules.seats
        if number > seats:
            raise TableError(
                f"this round already has {seats} players, the most this table's Rules "
                f"Submission allows (table.seats); terminal {terminal} can join the next round"
            )
        self.game.verify_join(number, wagers)

    def join(self, terminal: str, wagers: Mapping[str, int], position: int | None) -> list[Any]:
        number = self._number(terminal)
        events = self.game.join(number, wagers)
        self.numbers[terminal] = number
        self.terminals[number] = terminal
        return events


# ------------------------------------------------------------------------------- the session


class HybridSession(TableBook):
    """The game flow of one hybrid table in stadium play, writing every step to ``sink``.

    Args:
        config: the table's Rules Submission (type ``hybrid`` or ``hybrid-no-hole-card``).
        sink: the event log (or a :class:`~game_server.table.session.MemorySink`).
        shoes: the table's shoe maker.
        terminals: the terminals allowed to play at this table (any number, no seats).

    Raises:
        TableError: the Rules Submission is not of a hybrid table.
    """

    #: The three-position table's hole card is Blackjack's (the no-hole-card table deals none).
    secrecy = BLACKJACK_SECRECY

    def __init__(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        terminals: Iterable[str],
    ) -> None:
        if config.table_type is TableType.FULLY_AUTOMATED:
            raise TableError(
                f"table {config.table_id} is a {config.table_type} table: HybridSession runs "
                "the hybrid tables of 58 Pa. Code 633b.5; TableSession runs this one"
            )
        self.config = config
        self.sink = sink
        self.shoes = shoes
        self.terminals = frozenset(terminals)
        self.ledger = Ledger()
        self._config_hash = config.config_hash()
        self._three_position = (
            three_position_rules(config.rules) if config.table_type is TableType.HYBRID else None
        )
        self.round: _Round[Any] | None = None
        self.round_id = 0
        self.shoe: Shoe | None = None
        self.shoe_number = 0
        self._salt = b""
        self.failed: BaseException | None = None

    # ---------------------------------------------------------------- logging

    def _log_engine(self, events: Sequence[Any]) -> list[Any]:
        """Log an engine step, each event under its terminal; the step that completes the
        round also closes it with every terminal's credits."""
        game = self.round
        assert game is not None
        items = [(game.terminal_of(ev), ev) for ev in events]
        if not events or type(events[-1]) is not RoundCompleted:
            return self._log(items)
        return self._log_closing(items, sorted(self.terminals))

    def _seat(self, terminal: str) -> str:
        """Refuse a terminal that may not play here (TableSession's ``_seat`` check)."""
        self._check_not_failed()
        if terminal not in self.terminals:
            raise UnknownTerminal(f"terminal {terminal!r} is not a terminal of this table")
        return terminal

    def _in_play(self, terminal: str) -> bool:
        return self.round is not None and self.round.player_of(terminal) is not None

    # ------------------------------------------------------------ who the round waits for

    def pending(self) -> tuple[str, ...]:
        """The terminals the open round waits for (an insurance answer or a decision)."""
        return () if self.round is None else self.round.pending()

    def pending_insurance(self) -> tuple[str, ...]:
        """The terminals that still owe an answer to the insurance offer."""
        return () if self.round is None else self.round.pending_insurance()

    def to_act(self, terminal: str) -> int | None:
        """The terminal's hand whose decision the round waits for, or None."""
        game = self.round
        player = None if game is None else game.player_of(terminal)
        return None if game is None or player is None else game.engine.to_act(player)

    def waits_for_insurance(self, terminal: str) -> bool:
        """Whether the terminal still owes an answer to the insurance offer."""
        return terminal in self.pending_insurance()

    def dealt(self) -> bool:
        """Whether the open round's cards are dealt (no more bets, 633b.5(k))."""
        return self.round is not None and self.round.dealt()

    def community_dealt(self) -> int:
        """How many community cards of the open round are out."""
        return 0 if self.round is None else self.round.community_dealt()

    @property
    def finishes_at_once(self) -> bool:
        """Whether the countdown finishes the round at once (three-position table)."""
        return self.round is not None and self.round.finishes_at_once

    def resume(
        self, engine: ThreePositionRound | NoHoleCardRound, terminals: Mapping[int, str]
    ) -> None:
        """Make ``engine`` (an interrupted round rebuilt by its table's ``replay``) the open
        round, so that the table continues it (crash recovery,
        :mod:`game_server.table.recovery`). ``terminals`` names the terminal of each engine
        player number at the no-hole-card table (from the log); the three-position table's
        players are terminal ids already."""
        if isinstance(engine, ThreePositionRound):
            self.round = _ThreePosition(engine.rules, engine)
        else:
            self.round = _NoHoleCard(engine.rules, engine, terminals)

    def _open_round(self) -> _Round[Any]:
        self._check_not_failed()
        if self.round is None:
            raise NoRoundOpen("no round is open: wait for the next betting window")
        return self.round

    def _playing(self, terminal: str) -> _Round[Any]:
        self._seat(terminal)
        return self._open_round()

    # --------------------------------------------------------------- the table

    def open(self) -> list[Any]:
        """Log the Rules Submission in force (at start-up and after every change)."""
        config = self.config
        return self._log([(None, TableOpened(config.to_dict(), self._config_hash, SOFTWARE))])

    def _new_round(self) -> _Round[Any]:
        rules = self._three_position
        return _NoHoleCard(self.config.rules) if rules is None else _ThreePosition(rules)

    def _places(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        """Stadium play: every terminal of the table, none with a seat."""
        terminals = tuple(sorted(self.terminals))
        return (NO_SEAT,) * len(terminals), terminals

    # ------------------------------------------------------------------ round

    def join(
        self, terminal: str, wagers: Mapping[str, int], position: int | None = None
    ) -> list[Any]:
        """Place a terminal's wagers for the open round (debited from its credits); at the
        three-position table it chooses its player position (633b.5(l)). No more bets once
        the cards are dealt (633b.5(k))."""
        game = self._playing(terminal)
        self.check_units(wagers)
        game.verify_join(terminal, wagers, position)
        self._afford(terminal, sum(wagers.values()), "the wagers")
        return self._log_engine(game.join(terminal, wagers, position))

    def deal(self) -> list[Any]:
        """Deal the round from the current shoe (and run what needs no decision)."""
        game = self._open_round()
        assert self.shoe is not None
        game.engine.verify_deal()
        return self._log_engine(game.engine.deal(self.shoe))

    def insure(self, terminal: str, amount: int, *, auto: bool = False) -> list[Any]:
        """Place an insurance wager of ``amount`` (at most half the Blackjack wager, 633a.8)."""
        game = self._playing(terminal)
        player = game.player(terminal)
        game.engine.verify_insurance(player, amount)
        self._afford(terminal, amount, "the insurance wager")
        return self._log_engine(game.engine.insure(player, amount, auto=auto))

    def decline_insurance(self, terminal: str, *, auto: bool = False) -> list[Any]:
        game = self._playing(terminal)
        return self._log_engine(game.engine.decline_insurance(game.player(terminal), auto=auto))

    def take_even_money(self, terminal: str, *, auto: bool = False) -> list[Any]:
        """Even money on a Blackjack against a dealer ace (three-position table, 633a.8)."""
        game = self._playing(terminal)
        return self._log_engine(game.take_even_money(terminal, auto=auto))

    def act(
        self,
        terminal: str,
        action: Action,
        hand: int,
        *,
        amount: int | None = None,
        auto: bool = False,
    ) -> list[Any]:
        """A decision on one of the terminal's hands; a double down or split is checked
        against the terminal's credits before the engine acts, then debited."""
        game = self._playing(terminal)
        player = game.player(terminal)
        if action is Action.DOUBLE:
            game.engine.verify_double(player, hand, amount)
            cost = game.stake(terminal) if amount is None else amount
            self._afford(terminal, cost, "the double down wager")
        elif action is Action.SPLIT:
            game.engine.verify_split(player, hand)
            self._afford(terminal, game.stake(terminal), "the split wager")
        return self._log_engine(game.engine.act(player, action, hand, amount=amount, auto=auto))

    def countdown(self, terminal: str) -> list[Any]:
        """The terminal's countdown ran out: the engine's default acts for it (633b.5(p)(2),
        (z)), logged as ``auto``."""
        game = self._playing(terminal)
        return self._log_engine(game.engine.countdown(game.player(terminal)))

    def finish(self) -> list[Any]:
        """Three-position table: the countdown ran out for everyone; every pending answer is
        declined and every hand still to act stands, then the round settles (633b.5(p)(2))."""
        return self._log_engine(self._open_round().finish())


def resume_round(session: HybridSession, logged_round: LoggedRound) -> StrEnum:
    """Make the interrupted round of a hybrid table (58 Pa. Code 633b.5) the session's open
    round: its engine rebuilt by the table type's ``replay``, its players' terminals from the
    log, the shoe in use as the source of the community cards still to come."""
    config = session.config
    started = round_started(logged_round)
    engine_items = logged_round.engine_events()
    absent = sorted(
        {i.stored.terminal for i in engine_items if i.stored.terminal} - session.terminals
    )
    if absent:
        raise SeatingChanged(
            f"round {started.round} is unfinished with terminals {', '.join(absent)}, which "
            "this table no longer has; recover with the floor of that round, finish it, then "
            "change the floor"
        )
    events = [item.event for item in engine_items]
    game: ThreePositionRound | NoHoleCardRound
    if config.table_type is TableType.HYBRID:
        rules = three_position_rules(config.rules)
        game = replayed(started, lambda: three_position.replay(rules, events))
    else:
        game = replayed(started, lambda: no_hole_card.replay(config.rules, events))
    # Both engines name their phases "betting", ..., "complete".
    if game.phase == "complete":
        raise RecoveryError(f"round {started.round} replays complete but was not closed")
    if game.phase != "betting":
        if session.shoe is None:
            raise RecoveryError(f"round {started.round} was dealt but no shoe is in use")
        game._source = session.shoe
    # No-hole-card players are numbered 1.. in the order they joined; each event of a player
    # was logged under his terminal.
    numbers = {
        item.event.seat: item.stored.terminal
        for item in engine_items
        if item.stored.terminal and isinstance(getattr(item.event, "seat", None), int)
    }
    session.resume(game, numbers)
    return game.phase
