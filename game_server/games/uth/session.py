"""One Ultimate Texas Hold 'Em table's game flow: sealed decks, rounds, wallets, the log.

58 Pa. Code 653a. :class:`UthSession` is the table layer over the pure engine
:class:`~game_server.games.uth.rules.game.UthRound`, as
:class:`~game_server.table.session.TableSession` is over the Blackjack engine; it is a
:class:`~game_server.table.seated.SeatedSession` (the seated stadium tables' session), a
:class:`~game_server.table.session.TableBook` (one logged step at a time, credits in and
out, the credit check before a wager, the shoe's retirement). Terminals hold seats, mapped
like the fully automated Blackjack table's.

- **One freshly shuffled 52-card deck per round** from the certified HMAC_DRBG: the table's
  config is ``decks = 1, shuffle = "every-round"``, so :class:`SealedShoes` commits a new
  one-deck shoe (``shoe_committed``) before each round's first card and the next round's
  start reveals it (``shoe_revealed``), exactly as a Blackjack table dealt every round.
- **Meters**: every Progressive Payout and Five Card Hand Bonus Wager feeds its meter through
  the server's :class:`~game_server.rules.meters.MeterBank` in the step that deals the cards
  (``meter_contributed``, 653a.12(d)(3), (e)(4)); the engine's settlement awards them
  (``meter_awarded``, ``meter_reseeded``) and its meter steps are committed to the bank.
- **Magic Card and Lucky Bonus** (653a.12(e)(3)): drawn each round at the settlement by
  :func:`bonus_draws` from the certified HMAC_DRBG, instantiated like the mystery-trigger
  stream of :meth:`TableSession._draw` (the seed source's material with its own
  personalization) but from the seed of the round's own deck: the draw is thus sealed in the
  deck's commitment before the first card, revealed with it, repeatable by ``etg verify``,
  and identical after a crash and restart. Logged in ``uth_settlement_started``.
- A wager, and a Play Wager at a decision, is checked against the terminal's credits before
  the engine acts. The decision that ends the last street also settles the round in the SAME
  step (the engine's showdown needs no input but the draws), which holds
  :class:`~game_server.table.events.RoundClosed` and is written with a round-close
  checkpoint.

Wallets fold through :class:`UthLedger` (the Blackjack ledger with the UTH wager records):
a settlement's ``paid`` includes what came from a meter (``from_meter``), so the engine's
``meter_awarded`` (whose places are betting positions, ``"UTH-01/3"``) moves no credits.

Entry points: :class:`UthSession`, :class:`UthLedger`, :func:`bonus_draws`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.uth.config import rules_of as uth_rules_of
from game_server.games.uth.rules.events import (
    ANTE,
    UthCardDealt,
    UthDealerRevealed,
    UthHandShown,
    UthRoundCompleted,
)
from game_server.games.uth.rules.game import Action, Phase, UthRound
from game_server.games.uth.rules.rules import UthRules
from game_server.rng.shoe import ShoeSeed
from game_server.rules.errors import RulesError
from game_server.rules.meters import MeterBank
from game_server.table.bonus_draws import bonus_draws as shared_bonus_draws
from game_server.table.ledger import Ledger
from game_server.table.seated import SeatedSession
from game_server.table.secrecy import (
    Dealt,
    Secrecy,
    TurnedUp,
    cards_of,
    dealers_hand,
    face_down_to_others,
    seat_of,
    seats_hand,
)
from game_server.table.session import (
    EventSink,
    InsufficientCredits,
    SealedShoes,
    TableError,
)
from shared.cards import Card

__all__ = [
    "BONUS_PERSONALIZATION",
    "InsufficientCredits",
    "UnknownDecision",
    "UthLedger",
    "UthSession",
    "bonus_draws",
    "parse_decision",
    "uth_rules",
]

#: Appended to the round deck's personalization for the Magic Card / Lucky Bonus stream.
BONUS_PERSONALIZATION: Final = b"/uth-bonus-draws"

#: The Act command's action names at an Ultimate Texas Hold 'Em table (``play`` is ``bet``).
DECISION_NAMES: Final[Mapping[str, Action]] = {
    "check": Action.CHECK,
    "bet": Action.PLAY,
    "play": Action.PLAY,
    "fold": Action.FOLD,
}


class UnknownDecision(RulesError):
    """An Act whose action is not an Ultimate Texas Hold 'Em decision."""


def parse_decision(action: object) -> Action:
    """The engine's decision for an Act ``action`` string: "check", "bet" ("play") or "fold".

    Raises:
        UnknownDecision: any other action (e.g. a Blackjack "hit").
    """
    if isinstance(action, Action):
        return action
    decision = DECISION_NAMES.get(str(action).lower())
    if decision is None:
        raise UnknownDecision(
            f"{str(action)!r} is not an Ultimate Texas Hold 'Em decision: send check, bet "
            "(with the Play multiple 4, 3, 2 or 1 as the amount) or fold"
        )
    return decision


def uth_rules(config: TableConfig) -> UthRules:
    """The UTH rules of a config, refusing a Blackjack table's."""
    rules = uth_rules_of(config)
    if rules is None:
        raise TableError(
            f"table {config.table_id} deals {config.game}, not Ultimate Texas Hold 'Em: "
            'its Rules Submission needs game = "uth"'
        )
    return rules


def bonus_draws(seed: ShoeSeed, rules: UthRules) -> tuple[Card | None, int | None]:
    """The Magic Card and the Lucky Bonus position of the round dealt from the deck of
    ``seed`` (653a.1, 653a.12(e)(3)): the shared
    :func:`~game_server.table.bonus_draws.bonus_draws` with :data:`BONUS_PERSONALIZATION`."""
    return shared_bonus_draws(seed, rules, BONUS_PERSONALIZATION)


class UthLedger(Ledger):
    """:class:`~game_server.table.ledger.Ledger` at an Ultimate Texas Hold 'Em table: a
    settlement's ``paid`` includes what came from a meter (``from_meter``, counted as what the
    meters paid, not the house), so the engine's ``meter_awarded`` (whose places are betting
    positions, ``"UTH-01/3"``) moves no credits."""

    awards_move_credits = False


#: A player's cards are his own, the dealer's hole cards nobody's, until turned up.
SECRECY: Final = Secrecy(
    dealt={UthCardDealt: Dealt(seen=face_down_to_others, hand=seat_of)},
    turned_up={
        UthDealerRevealed: TurnedUp(hands=dealers_hand, cards=cards_of),
        UthHandShown: TurnedUp(hands=seats_hand),
    },
)


class UthSession(SeatedSession[UthRound]):
    """The game flow of one Ultimate Texas Hold 'Em table, writing every step to ``sink``.

    Args:
        config: the table's Rules Submission (``game = "uth"``).
        sink: the event log (or a :class:`~game_server.table.session.MemorySink`).
        shoes: the table's shoe maker (one 52-card deck per round).
        seats: terminal id -> seat number for the terminals that hold seats.
        meters: the server's progressive meters (shared by linked tables).
    """

    #: Its hidden cards (game_server.table.secrecy).
    secrecy = SECRECY

    _COMPLETED = UthRoundCompleted
    _BETTING = Phase.BETTING
    _SETTLED = frozenset({Phase.SHOWDOWN, Phase.COMPLETE})

    def __init__(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank | None = None,
    ) -> None:
        rules = uth_rules(config)
        super().__init__(config, rules, sink, shoes, seats, meters, UthLedger())
        self.rules: UthRules = rules

    def _new_round(self) -> UthRound:
        """A new round: its deck is committed fresh (``shuffle = "every-round"``), the
        previous one revealed."""
        return UthRound(self.rules, self.config.table_id)

    # ------------------------------------------------------------------ round

    def deal(self) -> list[Any]:
        """Deal the round from its deck; the progressive wagers feed their meters in the
        same step (653a.12(d)(3), (e)(4))."""
        game = self._open_round()
        assert self.shoe is not None
        game.verify_deal()
        items: list[tuple[str | None, Any]] = []
        for meter_id, stake, place in game.contributions():
            _, _, number = place.rpartition("/")
            terminal = self.terminal_of.get(int(number))
            step = self.meters.contribute(meter_id, stake, place)
            items += [(terminal, ev) for ev in step.events]
        return self._log_engine(game.deal(self.shoe), items)

    def play_cost(self, terminal: str, multiple: int) -> int:
        """What a Play Wager of ``multiple`` times the Ante costs the terminal."""
        game = self._open_round()
        return game.seats[self._seat(terminal)].wagers.get(ANTE, 0) * multiple

    def decide(
        self, terminal: str, action: Action, multiple: int = 0, *, auto: bool = False
    ) -> list[Any]:
        """A decision of the terminal's seat on the current street: check, Play (``multiple``
        times the Ante, debited) or fold. The decision that ends the river also settles the
        round in the same step."""
        seat = self._seat(terminal)
        game = self._open_round()
        if action is Action.PLAY:
            game.verify_play(seat, multiple)
            self._afford(terminal, self.play_cost(terminal, multiple), "the Play Wager")
        elif action is Action.CHECK:
            game.verify_check(seat)
        else:
            game.verify_fold(seat)
        events = game.decide(seat, action, multiple, auto=auto)
        return self._log_engine(events + self._settle_if_due(game))

    def countdown(self, terminal: str) -> list[Any]:
        """The terminal's countdown ran out: check (preflop, flop) or fold (river), logged as
        ``auto``; the round settles in the same step when this ends the river."""
        seat = self._seat(terminal)
        game = self._open_round()
        events = game.act_default(seat)
        return self._log_engine(events + self._settle_if_due(game))

    def _settle_if_due(self, game: UthRound) -> list[Any]:
        """Settle the round once the dealer's hand is shown (653a.12(a)-(f)): the Magic Card
        and Lucky Bonus position drawn, the meters read from the bank and the awards
        committed to it."""
        if game.phase is not Phase.SHOWDOWN:
            return []
        assert self.shoe is not None
        magic, lucky = bonus_draws(self.shoe.seed, self.rules)
        needed = {m: self.meters.meter(m) for m in self.meter_specs if m in self.meters}
        events = game.settle(needed, magic, lucky)
        for step in game.meter_steps():
            self.meters.commit(step)
        return events

    @property
    def phase(self) -> Phase | None:
        return None if self.round is None else self.round.phase
