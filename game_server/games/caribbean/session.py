"""One Caribbean Stud Poker table's game flow: sealed decks, rounds, wallets, meters, the log.

A :class:`~game_server.table.seated.SeatedSession` over the pure
:class:`~game_server.games.caribbean.rules.game.CaribbeanRound`, as the Ultimate Texas Hold 'Em
table's session is:

- one freshly shuffled 52-card deck per round from the certified HMAC_DRBG (``decks = 1``,
  ``shuffle = "every-round"``), committed before the round's first card;
- the deal's step feeds the meters (``meter_contributed``: the Progressive Payout and Five
  Card Hand Bonus meters, 639a.12) and, for each seat with a Caribbean Stud Wager and a
  Progressive Payout Wager of at least the configuration's minimum, the Must-Hit-By meter
  (639b.1(c)(1)-(2)); the contribution that takes it past its trigger wins 100% of it
  ((c)(3), (7): ``mystery_awarded``, then :class:`CaribbeanMysteryPaid`, which credits the
  seat), the meter resets to its minimum and a new trigger is drawn ((c)(5)(iv)) from the
  table's certified DRBG stream for the triggers (seeded as the Blackjack table's);
- the Magic Card and Lucky Bonus position are drawn at settlement from the round deck's seed
  (:func:`bonus_draws`), sealed in the deck's commitment, repeatable by ``etg verify``;
- the decision that ends the round's decisions (or the countdown's fold) settles it in the
  same step, written with the round's close.

Entry points: :class:`CaribbeanSession`, :func:`bonus_draws`,
:func:`feed_mystery`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from game_server.config import MustHitBy, TableConfig
from game_server.games.caribbean.rules.events import (
    ANTE,
    MYSTERY,
    PROGRESSIVE,
    WON,
    CaribbeanCardDealt,
    CaribbeanDealerRevealed,
    CaribbeanMysteryPaid,
    CaribbeanRoundCompleted,
)
from game_server.games.caribbean.rules.game import Action, CaribbeanRound, Phase
from game_server.games.caribbean.rules.rules import CaribbeanRules
from game_server.rng.shoe import ShoeSeed
from game_server.rules.meters import MeterBank, MysteryAwarded
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import MeterSpec
from game_server.rules.wagers.must_hit_by import RandBelow
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
)
from game_server.table.session import (
    EventSink,
    SealedShoes,
)
from shared.cards import Card
from shared.money import format_money

__all__ = [
    "CaribbeanLedger",
    "CaribbeanSession",
    "bonus_draws",
    "feed_mystery",
    "meter_specs",
    "mystery_meter_id",
]

#: Appended to the round deck's personalization for the Magic Card / Lucky Bonus stream.
BONUS_PERSONALIZATION: Final = b"/caribbean-bonus-draws"


def bonus_draws(seed: ShoeSeed, rules: CaribbeanRules) -> tuple[Card | None, int | None]:
    """The Magic Card and the Lucky Bonus position of the round dealt from the deck of
    ``seed`` (639a.1): the shared :func:`~game_server.table.bonus_draws.bonus_draws` with
    :data:`BONUS_PERSONALIZATION`."""
    return shared_bonus_draws(seed, rules, BONUS_PERSONALIZATION)


def mystery_meter_id(config: TableConfig) -> str | None:
    """The Must-Hit-By meter's id: the linked one (605a.8) or the table's own."""
    mystery = config.must_hit_by
    if mystery is None:
        return None
    return mystery.meter or f"{config.table_id}:{MYSTERY}"


def meter_specs(config: TableConfig) -> dict[str, MeterSpec]:
    """Every meter the table opens or links: its wagers' and the Must-Hit-By meter."""
    rules: CaribbeanRules = config.rules
    specs = rules.meters()
    meter_id = mystery_meter_id(config)
    if meter_id is not None and config.must_hit_by is not None:
        specs[meter_id] = config.must_hit_by.spec()
    return specs


class CaribbeanLedger(Ledger):
    """The wallets: a settlement's ``paid`` carries what a meter paid (``from_meter``), so
    the meters' own award records move no credits."""

    awards_move_credits = False


#: A player's cards are his own, the dealer's hole cards nobody's, until turned up.
SECRECY: Final = Secrecy(
    dealt={CaribbeanCardDealt: Dealt(seen=face_down_to_others, hand=seat_of)},
    turned_up={CaribbeanDealerRevealed: TurnedUp(hands=dealers_hand, cards=cards_of)},
)


class CaribbeanSession(SeatedSession[CaribbeanRound]):
    """The game flow of one Caribbean Stud Poker table, writing every step to ``sink``."""

    #: Its hidden cards (game_server.table.secrecy).
    secrecy = SECRECY

    _COMPLETED = CaribbeanRoundCompleted
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
        super().__init__(config, config.rules, sink, shoes, seats, meters, CaribbeanLedger())
        self.rules: CaribbeanRules = config.rules
        self.meter_specs = meter_specs(config)
        self.mystery_id = mystery_meter_id(config)

    def _new_round(self) -> CaribbeanRound:
        return CaribbeanRound(self.rules, self.config.table_id)

    # ----------------------------------------------------------------- inputs

    def deal(self) -> list[Any]:
        """Deal the round; the meters are fed in the same step, the Must-Hit-By meter by each
        qualifying seat in seat order (639b.1(c)(1)-(3))."""
        game = self._open_round()
        assert self.shoe is not None
        game.verify_deal()
        items: list[tuple[str | None, Any]] = []
        for meter_id, stake, place in game.contributions():
            step = self.meters.contribute(meter_id, stake, place)
            items += [(self._terminal_at(place), ev) for ev in step.events]
        items += self._mystery(game)
        return self._log_engine(game.deal(self.shoe), items)

    def _mystery(self, game: CaribbeanRound) -> list[tuple[str | None, Any]]:
        mystery, meter_id = self.config.must_hit_by, self.mystery_id
        if mystery is None or meter_id is None:
            return []
        fed = feed_mystery(game, mystery, meter_id, self.meters, self._draw, self.terminal_of)
        return [(self.terminal_of[number], ev) for number, ev in fed]

    def decide(self, terminal: str, action: Action, amount: int | None = None) -> list[Any]:
        """Fold, or make the Bet Wager of twice the Ante (debited; ``amount`` if given must
        be it). The last decision settles the round in the same step."""
        seat = self._seat(terminal)
        game = self._open_round()
        game.verify_decide(seat, action, amount)
        if action is Action.BET:
            self._afford(terminal, game.bet_amount(seat), "the Bet Wager")
        events = game.decide(seat, action, amount)
        return self._log_engine(events + self._settle_if_due(game))

    def countdown(self, terminal: str) -> list[Any]:
        """The decision countdown ran out for ``terminal``: it folds (``auto``)."""
        game = self._open_round()
        events = game.act_default(self._seat(terminal))
        return self._log_engine(events + self._settle_if_due(game))

    def _settle_if_due(self, game: CaribbeanRound) -> list[Any]:
        if game.phase is not Phase.SHOWDOWN:
            return []
        assert self.shoe is not None
        magic, lucky = bonus_draws(self.shoe.seed, self.rules)
        needed = {m: self.meters.meter(m) for m in self.rules.meters() if m in self.meters}
        events = game.settle(needed, magic, lucky)
        for step in game.meter_steps():
            self.meters.commit(step)
        return events


def feed_mystery(
    game: CaribbeanRound,
    mystery: MustHitBy,
    meter_id: str,
    meters: MeterBank,
    draw: RandBelow,
    place_of: Mapping[int, str],
) -> list[tuple[int, Any]]:
    """Each qualifying seat feeds the Must-Hit-By meter in seat order (639b.1(c)(1)-(3)): a
    Caribbean Stud Wager and a Progressive Payout Wager of at least the configuration's
    minimum; the contribution that takes the meter past its trigger wins 100% of it
    ((c)(3), (7)), settled as :class:`CaribbeanMysteryPaid`. ``(seat, record)`` for each
    record, for the live table and the simulator alike."""
    conf = must_hit_by.configuration(mystery.configuration, mystery.minimum_wager)
    out: list[tuple[int, Any]] = []
    for number, seat in sorted(game.seats.items()):
        stake = seat.wagers.get(PROGRESSIVE, 0)
        place = place_of.get(number)
        if place is None or ANTE not in seat.wagers or stake < conf.minimum_wager:
            continue
        step = meters.commit(must_hit_by.contribute(meters.meter(meter_id), stake, place, draw))
        out += [(number, ev) for ev in step.events]
        for ev in step.events:
            if type(ev) is MysteryAwarded:
                line = (
                    f"Must-Hit-By Mystery Bonus {conf.paytable}: 100% of "
                    f"{format_money(ev.paid)} (639b.1(c)(3), (7))"
                )
                paid = CaribbeanMysteryPaid(number, MYSTERY, 0, ev.paid, ev.paid, WON, line)
                out.append((number, paid))
    return out
