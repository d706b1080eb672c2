"""One Four Card Poker table's game flow: a :class:`~game_server.table.seated.SeatedSession`
over the pure engine (58 Pa. Code 641a, 641b.1).

- **One freshly shuffled 52-card deck per round** from the certified HMAC_DRBG
  (``decks = 1, shuffle = "every-round"``), committed before the first card.
- **Meters**: at the deal every Four-Card and Five-Card Progressive Payout Wager feeds its
  meter (``meter_contributed``) and, where it qualifies (641b.1(c)(1): with the Four Card
  Poker wager, at least the configuration's minimum), the Must-Hit-By Mystery Bonus meter
  ((c)(2)); the contribution that takes it past its trigger wins it ((c)(3), (7):
  ``mystery_awarded`` and :class:`FourCardMysteryPaid`). The trigger is drawn by the
  certified DRBG, seeded like the shoes by the table's seed source (the Blackjack table's
  stream). The settlement reads the progressive meters from the bank and commits the awards.
- The decision that ends the deciding settles the round in the SAME step (it needs no other
  input), which closes the round with a checkpoint.

Wallets fold through :class:`FourCardLedger`: a settlement's ``paid`` includes what a meter
paid (``from_meter``), so the meters' own award records move no credits.

Entry points: :class:`FourCardSession`, :class:`FourCardLedger`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games.fourcard.rules.events import (
    ANTE,
    MUST_HIT_BY,
    FourCardCardDealt,
    FourCardDealerRevealed,
    FourCardMysteryPaid,
    FourCardRoundCompleted,
)
from game_server.games.fourcard.rules.game import Action, FourCardRound, Phase
from game_server.games.fourcard.rules.rules import FourCardRules
from game_server.rng.shoe import Shoe
from game_server.rules.errors import ActionNotAllowed
from game_server.rules.meters import MeterBank, MeterStep, MysteryAwarded
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import WON
from game_server.rules.wagers.must_hit_by import RandBelow
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
)
from game_server.table.session import (
    EventSink,
    SealedShoes,
    TableError,
)

__all__ = ["DECISIONS", "FourCardLedger", "FourCardSession", "parse_decision"]


#: The Act command's actions: ``fold``, ``play`` with the multiple as the amount, or
#: ``play1`` .. ``play3`` (the multiple in the name: one button each).
DECISIONS: Final[Mapping[str, tuple[Action, int | None]]] = {
    "fold": (Action.FOLD, 0),
    "play": (Action.PLAY, None),
    "play1": (Action.PLAY, 1),
    "play2": (Action.PLAY, 2),
    "play3": (Action.PLAY, 3),
}


def parse_decision(action: str) -> tuple[Action, int | None]:
    """The engine's decision for an ``Act`` action (the multiple, None: from the amount)."""
    found = DECISIONS.get(str(action).strip().lower())
    if found is None:
        raise ActionNotAllowed(
            f"{action!r} is not a Four Card Poker decision: send fold, play1, play2 or play3 "
            "(or play with the multiple 1 to 3 as the amount)"
        )
    return found


class FourCardLedger(Ledger):
    """The ledger of a Four Card Poker table: settlements carry what the meters paid
    (``from_meter``), so ``meter_awarded`` and ``mystery_awarded`` move no credits."""

    awards_move_credits = False


#: A player's cards are his own, the dealer's hole cards nobody's, until turned up.
SECRECY: Final = Secrecy(
    dealt={FourCardCardDealt: Dealt(seen=face_down_to_others, hand=seat_of)},
    turned_up={FourCardDealerRevealed: TurnedUp(hands=dealers_hand, cards=cards_of)},
)


class FourCardSession(SeatedSession[FourCardRound]):
    """The game flow of one Four Card Poker table, writing every step to ``sink``."""

    #: Its hidden cards (game_server.table.secrecy).
    secrecy = SECRECY

    _COMPLETED = FourCardRoundCompleted
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
        rules: FourCardRules = config.rules
        if not isinstance(rules, FourCardRules):
            raise TableError(f"table {config.table_id} does not deal Four Card Poker")
        super().__init__(config, rules, sink, shoes, seats, meters, FourCardLedger())
        self.rules: FourCardRules = rules

    def _terminal_of_event(self, ev: Any) -> str | None:
        """The seat's terminal, or the terminal a meter event names as its ``place``."""
        seat, places = getattr(ev, "seat", None), getattr(ev, "places", None)
        if (isinstance(seat, int) and seat >= 1) or (
            isinstance(places, tuple) and len(places) == 1
        ):
            return super()._terminal_of_event(ev)
        place = getattr(ev, "place", None)
        return place if isinstance(place, str) and place in self.seats else None

    def _new_round(self) -> FourCardRound:
        return FourCardRound(self.rules, self.config.table_id)

    # -------------------------------------------------------------------- round

    def deal(self) -> list[Any]:
        """Feed the meters from the round's progressive wagers, deal, and settle at once
        when no seat has a decision to make."""
        game = self._open_round()
        assert self.shoe is not None
        game.verify_deal()
        items: list[tuple[str | None, Any]] = []
        mystery = self.rules.mystery
        for meter_id, stake, seat, wager in game.contributions():
            terminal = self.terminal_of.get(seat)
            step = self.meters.contribute(meter_id, stake, game.place(seat))
            items += [(terminal, ev) for ev in step.events]
            if (
                mystery is not None
                and terminal is not None
                and wager in mystery.qualifying
                and stake >= mystery.minimum_wager
                and ANTE in game.seats[seat].wagers
            ):
                items += self._feed_mystery(mystery.meter_id, stake, seat, terminal, wager)
        events = game.deal(self.shoe)
        return self._log_engine(events + self._settle_if_due(game), items)

    def _feed_mystery(
        self, meter_id: str, stake: int, seat: int, terminal: str, wager: str
    ) -> list[tuple[str | None, Any]]:
        fed = feed_mystery(self.meters, self._draw, meter_id, stake, seat, terminal, wager)
        return [(terminal, ev) for ev in fed]

    def decide(self, terminal: str, action: Action, multiple: int = 0) -> list[Any]:
        """Fold, or a Play Wager of ``multiple`` times the Ante (checked, then debited)."""
        seat = self._seat(terminal)
        game = self._open_round()
        game.verify_decide(seat, action, multiple)
        if action is Action.PLAY:
            self._afford(terminal, game.seats[seat].wagers[ANTE] * multiple, "the Play Wager")
        events = game.decide(seat, action, multiple)
        return self._log_engine(events + self._settle_if_due(game))

    def countdown(self, terminal: str) -> list[Any]:
        """The decision countdown ran out: the seat folds (logged ``auto``)."""
        seat = self._seat(terminal)
        game = self._open_round()
        events = game.countdown_action(seat)
        return self._log_engine(events + self._settle_if_due(game))

    def _settle_if_due(self, game: FourCardRound) -> list[Any]:
        if game.phase is not Phase.SHOWDOWN:
            return []
        needed = {m: self.meters.meter(m) for m in game.meter_ids_needed()}
        events = game.settle(needed)
        for meter, meter_events in game.meter_steps():
            self.meters.commit(MeterStep(meter, meter_events))
        return events

    def _resume_source(self, game: FourCardRound, shoe: Shoe) -> None:
        """Every card is drawn at the deal (from the deck handed to it): a replayed dealt
        round needs no card source."""


def feed_mystery(
    meters: MeterBank,
    draw: RandBelow,
    meter_id: str,
    stake: int,
    seat: int,
    place: str,
    wager: str,
) -> list[Any]:
    """641b.1(c)(2)-(3), (7): a qualifying wager feeds the Must-Hit-By meter; the
    contribution that takes it past its trigger wins 100% of it, settled as
    :class:`FourCardMysteryPaid` (the live table and the simulator alike)."""
    step: MeterStep = meters.commit(
        must_hit_by.contribute(meters.meter(meter_id), stake, place, draw)
    )
    out: list[Any] = list(step.events)
    for ev in step.events:
        if type(ev) is MysteryAwarded:
            line = (
                f"Must-Hit-By Mystery Bonus: 100% of the meter, past its trigger "
                f"(58 Pa. Code 641b.1(c)(3), (7)), on the {wager.replace('_', ' ')}"
            )
            out.append(FourCardMysteryPaid(seat, MUST_HIT_BY, 0, ev.paid, ev.paid, WON, line))
    return out
