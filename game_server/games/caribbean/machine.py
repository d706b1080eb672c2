"""The live Caribbean Stud Poker table: the platform's stadium machine (the betting window,
ONE decision countdown shared by every seat, the pause between rounds, close and out of
service after the round in play) with the game's inputs and the view of one terminal.

- *betting*: a window of ``timers.betting_seconds``; when it ends the round is dealt if a
  seat placed an Ante, otherwise a new window opens;
- *deciding*: every seat decides at once, fold or BET 2X (the Bet Wager of twice the Ante);
  one countdown of ``timers.decision_seconds``; when it runs out every seat still silent
  folds (logged ``auto``), and the last decision settles the round in its step;
- *next-round*: the round is settled; the next starts after ``next_round_delay`` seconds.

Decisions come through the ``Act`` command: ``action`` "bet" (``amount`` 0, or the Bet
Wager in cents, which must be twice the Ante) or "fold".

Entry point: :class:`CaribbeanMachine`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from twisted.logger import Logger

from game_server.games.ante_poker.results import SeatResults
from game_server.games.caribbean.rules.events import (
    DEALER,
    CaribbeanDealerRevealed,
    CaribbeanMysteryPaid,
    CaribbeanSettlementStarted,
    CaribbeanWagerSettled,
)
from game_server.games.caribbean.rules.game import Action, Phase
from game_server.games.caribbean.rules.rules import hand_name
from game_server.games.caribbean.session import CaribbeanSession
from game_server.rules.errors import ActionNotAllowed, RulesError
from game_server.rules.poker import Category5, rank_hand
from game_server.table import api as table_api
from game_server.table.api import ReactorTime, countdown_view
from game_server.table.seated import SeatedMachine, SeatedState
from shared.cards import parse_card

__all__ = ["CaribbeanMachine", "CaribbeanState", "UnknownDecision"]

log = Logger(namespace="game_server.games.caribbean.machine")

GAME_NAME: Final = "caribbean"
QUALIFYING_LINE: Final = "Dealer qualifies with ace-king or better"


#: Where the machine is: the seated stadium tables' states.
CaribbeanState = SeatedState


class BettingClosed(table_api.BettingClosed):
    """A wager outside the betting window."""


class UnknownDecision(RulesError):
    """An Act whose action is not a Caribbean Stud Poker decision."""


def parse_decision(action: object) -> Action:
    """``"bet"`` or ``"fold"`` (any case) as the engine's decision."""
    if isinstance(action, Action):
        return action
    try:
        return Action(str(action).lower())
    except ValueError:
        raise UnknownDecision(
            f"{str(action)!r} is not a Caribbean Stud Poker decision: send bet (the Bet Wager "
            "of twice the Ante) or fold"
        ) from None


class CaribbeanResults(SeatResults):
    """Each terminal's settlements of its last round, the last round's engine, whether its
    dealer's hand was revealed, and the Magic Card and Lucky Bonus draws of its settlement."""

    settled_kinds = (CaribbeanWagerSettled, CaribbeanMysteryPaid)
    revealed = False
    draws: CaribbeanSettlementStarted | None = None

    def started(self) -> None:
        self.revealed = False

    def saw(self, ev: Any) -> None:
        if type(ev) is CaribbeanDealerRevealed:
            self.revealed = True
        elif type(ev) is CaribbeanSettlementStarted:
            self.draws = ev


class CaribbeanMachine(SeatedMachine[CaribbeanSession]):
    """The live Caribbean Stud Poker table over a :class:`CaribbeanSession`."""

    _DECIDING_PHASES = frozenset({Phase.DECIDING})
    _OWN_SEAT = "a Caribbean Stud Poker terminal plays its own seat"
    _NO_INSURANCE = (ActionNotAllowed, "Caribbean Stud Poker offers no insurance: bet or fold")
    _BETTING_CLOSED = (
        BettingClosed,
        "no more bets: this round's cards are dealt; bet in the next betting window",
    )

    def __init__(
        self, session: CaribbeanSession, clock: ReactorTime, next_round_delay: float = 0.0
    ) -> None:
        super().__init__(session, clock, next_round_delay, log)
        self.results = CaribbeanResults(session)
        self._listeners.append(self.results)

    # ----------------------------------------------------------------- inputs

    def parse_action(self, terminal: str, action: str) -> Action:
        return parse_decision(action)

    def act(self, terminal: str, action: Action | str, hand: int, amount: int | None) -> None:
        """``bet`` (``amount`` 0 or None: twice the Ante; else it must be that) or ``fold``."""
        decision = parse_decision(action)
        if decision is Action.FOLD and amount:
            raise ActionNotAllowed("fold takes no amount; send amount 0")
        self._run("act", self._act, terminal, decision, amount or None)

    def _act(self, terminal: str, action: Action, amount: int | None) -> None:
        self._log(self.session.decide(terminal, action, amount))
        self._route()

    # ---------------------------------------------------------------- reading

    def rules(self, terminal: str) -> dict[str, Any]:
        from game_server.games.caribbean.info import rules_document

        return rules_document(self.session.config)

    def meters(self) -> dict[str, Any]:
        """The never-reset meters and wallets; each progressive meter's amount (never a
        Must-Hit-By trigger, which is secret: 639b.1(c)(3))."""
        meters = super().meters()
        bank = self.session.meters
        meters["progressives"] = {
            m: bank.meter(m).amount_cents for m in self.session.meter_specs if m in bank
        }
        return meters

    def view(self, terminal: str) -> dict[str, Any]:
        """What ``terminal`` may see: its own cards, the dealer's up card, and the dealer's
        hole cards only once they are turned up; never another seat's cards."""
        session = self.session
        seat = session._seat(terminal)
        rules = session.rules
        live = session.round
        results = self.results
        game = live if live is not None else results.game
        dealt = game is not None and game.phase is not Phase.BETTING
        showdown = dealt and results.revealed
        dealer: list[str | None] = []
        if game is not None and dealt:
            dealer = [str(c) if (i == 0 or showdown) else None for i, c in enumerate(game.dealer)]
        seats = []
        mine_cards: list[str] = []
        for number, state in sorted(game.seats.items()) if game is not None else ():
            mine = number == seat
            # Another seat's cards are never sent, not even as face-down placeholders: the
            # terminal's common view reads a seat's cards as faces (it reads None only in
            # the dealer's hand).
            cards = [str(c) for c in state.cards] if mine else []
            if mine:
                mine_cards = [str(c) for c in state.cards]
            seats.append(
                {
                    "seat": number,
                    "mine": mine,
                    "wagers": dict(state.wagers),
                    "folded": state.folded,
                    "hands": [{"cards": cards}],
                }
            )
        pending = live is not None and seat in live.pending
        ante = 0 if game is None or seat not in game.seats else game.seats[seat].wagers["ante"]
        countdown = countdown_view(self.countdown, self.seconds_left(), "fold")
        limits = {"ante": {"min": rules.ante_limits.minimum, "max": rules.ante_limits.maximum}}
        if rules.progressive is not None:
            amounts = rules.progressive.amounts
            limits["progressive"] = {"min": min(amounts), "max": max(amounts)}
        if rules.five_card is not None:
            amounts = rules.five_card.amounts
            for name in ("five_card_player", "five_card_dealer"):
                limits[name] = {"min": min(amounts), "max": max(amounts)}
        bank = session.meters
        meters = {
            name: bank.meter(meter_id).amount_cents
            for name, meter_id in self._meter_names().items()
            if meter_id in bank
        }
        settled = results.settlements.get(terminal, (None, []))[1] if not dealt or showdown else []
        draws = results.draws if showdown else None
        return {
            "v": 1,
            "game": GAME_NAME,
            "table": session.config.table_id,
            "state": str(self.state),
            "machine": str(self.machine_state),
            "reason": self.reason,
            "round": session.round_id,
            "phase": "complete" if live is None else str(live.phase),
            "terminal": terminal,
            "seat": seat,
            "credits": session.balance(terminal),
            "limits": limits,
            "chips": list(session.config.chip_denominations),
            "countdown": countdown,
            "to_act": {"seat": seat, "hand": 0} if pending else None,
            "actions": [Action.BET.value, Action.FOLD.value] if pending else [],
            "bet_amount": 2 * ante if pending else None,
            "qualifying": QUALIFYING_LINE,
            "hand": _hand_name(mine_cards) if len(mine_cards) == 5 else None,
            "dealer_hand": _hand_name(dealer) if showdown else None,
            "progressive_meters": meters,
            "must_hit_by": self._mystery_text(),
            "magic_card": None
            if draws is None or not draws.magic_card
            else str(draws.magic_card[0]),
            "lucky_position": None if draws is None else draws.lucky_position,
            "settlements": [
                {
                    "wager": ev.wager,
                    "hand": 0,
                    "stake": ev.stake,
                    "paid": ev.paid,
                    "from_meter": ev.from_meter,
                    "outcome": ev.outcome,
                    "line": ev.line,
                }
                for ev in settled
            ],
            "dealer": {"cards": dealer, "seat": DEALER},
            "seats": seats,
        }

    def _meter_names(self) -> dict[str, str]:
        rules, session = self.session.rules, self.session
        names = {}
        if rules.progressive is not None:
            names["progressive"] = rules.progressive.meter_id
        if rules.five_card is not None:
            names["five_card"] = rules.five_card.meter_id
        if session.mystery_id is not None:
            names["must_hit_by"] = session.mystery_id
        return names

    def _mystery_text(self) -> dict[str, Any] | None:
        mystery = self.session.config.must_hit_by
        if mystery is None:
            return None
        spec = mystery.spec()
        return {
            "configuration": mystery.configuration,
            "minimum_wager": mystery.minimum_wager,
            "must_hit_by": spec.must_hit_by,
        }


def _hand_name(cards: Sequence[str | None]) -> str | None:
    if any(c is None for c in cards):
        return None
    return hand_name(Category5(rank_hand([parse_card(str(c)) for c in cards]).category))
