"""The live Four Card Poker table: the platform's stadium machine (the betting window, ONE
shared decision countdown, the pause between rounds, close and out of service) around a
:class:`~game_server.games.fourcard.session.FourCardSession`, and what ONE terminal may see.

The steps: *betting* (``timers.betting_seconds``; the deal when it ends, if anyone wagered),
*deciding* (one countdown of ``timers.decision_seconds`` shared by every seat with an Ante;
at zero every seat still to decide folds, logged ``auto``), *next-round*.

Decisions arrive through the ``Act`` command: ``action`` "fold", "play1", "play2", "play3"
(or "play" with the multiple as ``amount``). ``AnswerInsurance`` is refused.

The view (:meth:`FourCardMachine.view`) has the common keys of docs/adding-a-game.md and a
``fourcard`` block. What a terminal never sees early: the dealer's five face-down cards
(``None`` until the dealer's hand is revealed at the showdown) and the other seats' cards
(never: each player's cards are his alone; the recall of the round shows them to the
operator). This terminal's own five cards are shown from the deal.

Entry point: :class:`FourCardMachine`.
"""

from __future__ import annotations

from typing import Any

from twisted.logger import Logger

from game_server.games.ante_poker.results import SeatResults
from game_server.games.fourcard.rules.events import (
    ACES_UP,
    ANTE,
    DEALER,
    PROGRESSIVES,
    FourCardDealerRevealed,
    FourCardMysteryPaid,
    FourCardWagerSettled,
)
from game_server.games.fourcard.rules.game import Action, Phase
from game_server.games.fourcard.rules.hands import four_card_name
from game_server.games.fourcard.rules.rules import PLAY_MULTIPLES
from game_server.games.fourcard.session import FourCardSession, parse_decision
from game_server.rules.errors import ActionNotAllowed
from game_server.table import api as table_api
from game_server.table.api import ReactorTime, countdown_view
from game_server.table.seated import SeatedMachine, SeatedState

log = Logger(namespace="game_server.games.fourcard.machine")

__all__ = ["FourCardMachine", "State"]


#: Where the machine is: the seated stadium tables' states.
State = SeatedState


class BettingClosed(table_api.BettingClosed):
    """A wager outside the betting window."""


class NoInsurance(ActionNotAllowed):
    """Four Card Poker offers no insurance."""


class Results(SeatResults):
    """Each terminal's settlements of its last round, the last round's engine, and whether
    its dealer's hand was revealed."""

    settled_kinds = (FourCardWagerSettled, FourCardMysteryPaid)
    revealed = False

    def started(self) -> None:
        self.revealed = False

    def saw(self, ev: Any) -> None:
        if type(ev) is FourCardDealerRevealed:
            self.revealed = True


class FourCardMachine(SeatedMachine[FourCardSession]):
    """The live Four Card Poker table over a :class:`FourCardSession`."""

    _DECIDING_PHASES = frozenset({Phase.DECIDING})
    _OWN_SEAT = "a Four Card Poker terminal plays its own seat"
    _NO_INSURANCE = (
        NoInsurance,
        "Four Card Poker offers no insurance: fold, or play 1, 2 or 3 times",
    )
    _BETTING_CLOSED = (BettingClosed, "no more bets: wait for the next betting window")
    _NO_DECISION = (table_api.NotInRound, "there is no decision to make now")

    def __init__(
        self, session: FourCardSession, clock: ReactorTime, next_round_delay: float = 0.0
    ) -> None:
        super().__init__(session, clock, next_round_delay, log)
        self.results = Results(session)
        self._listeners.append(self.results)

    # ---------------------------------------------------------------- inputs

    def parse_action(self, terminal: str, action: str) -> Any:
        return parse_decision(action)

    def act(self, terminal: str, action: Any, hand: int, amount: int | None) -> None:
        decided, multiple = action if isinstance(action, tuple) else parse_decision(str(action))
        if multiple is None:
            multiple = amount or 0
        elif amount and amount != multiple:
            raise ActionNotAllowed(
                f"{decided.value}{multiple} takes no other amount than {multiple}"
            )
        self._run("act", self._act, terminal, decided, multiple)

    def _act(self, terminal: str, action: Action, multiple: int) -> None:
        self._log(self.session.decide(terminal, action, multiple))
        self._route()

    # ---------------------------------------------------------------- reading

    def rules(self, terminal: str) -> dict[str, Any]:
        from game_server.games.fourcard.info import rules_document

        return rules_document(self.session.config)

    def settlements(self, terminal: str) -> list[dict[str, Any]]:
        return self.results.of(terminal)

    def meters(self) -> dict[str, Any]:
        meters = super().meters()
        meters["progressives"] = {
            meter_id: self.session.meters.meter(meter_id).snapshot()
            for meter_id in self.session.meter_specs
            if meter_id in self.session.meters
        }
        return meters

    def view(self, terminal: str) -> dict[str, Any]:
        """What ``terminal`` may see now (module docstring)."""
        session = self.session
        seat = session._seat(terminal)
        rules = session.rules
        live = session.round
        game = live if live is not None else self.results.game
        revealed = game is not None and (
            game.phase is Phase.COMPLETE or (live is None and self.results.revealed)
        )
        pending = live.pending if live is not None else ()
        mine = game.seats.get(seat) if game is not None else None
        can_act = live is not None and seat in pending
        actions = (
            ["fold", *(f"play{m}" for m in self._affordable(terminal, mine))] if can_act else []
        )
        countdown = countdown_view(self.countdown, self.seconds_left(), "fold" if can_act else None)
        dealer_cards: list[Any] = []
        if game is not None and game.dealer:
            dealer_cards = [
                str(c) if revealed or i == 0 else None for i, c in enumerate(game.dealer)
            ]
        seats = []
        for number, state in sorted(game.seats.items()) if game is not None else []:
            own = number == seat
            # Another seat's cards are never sent, not even as face-down placeholders: the
            # terminal's common view reads a seat's cards as cards (see the report).
            cards = [str(c) for c in state.cards] if own else []
            seats.append(
                {
                    "seat": number,
                    "mine": own,
                    "wagers": dict(state.wagers),
                    "status": _status(state, pending),
                    "hands": [{"cards": cards}],
                    "cards_dealt": len(state.cards),
                }
            )
        limits: dict[str, Any] = {
            ANTE: {"min": rules.ante_limits.minimum, "max": rules.ante_limits.maximum}
        }
        if rules.aces_up_limits is not None:
            limits[ACES_UP] = {
                "min": rules.aces_up_limits.minimum,
                "max": rules.aces_up_limits.maximum,
            }
        for wager in PROGRESSIVES:
            offer = rules.progressive(wager)
            if offer is not None:
                amounts = list(offer.amounts)
                limits[wager] = {"min": amounts[0], "max": amounts[-1], "amounts": amounts}
        hand = None
        if mine is not None and mine.cards:
            hand = four_card_name(game.hand(seat)) if game is not None else None
        dealer_hand = None
        if revealed and game is not None and game.dealer:
            from game_server.games.fourcard.rules.hands import best_four

            dealer_hand = four_card_name(best_four(game.dealer))
        return {
            "v": 1,
            "game": "fourcard",
            "table": session.config.table_id,
            "state": str(self.state),
            "machine": str(self.machine_state),
            "reason": self.reason,
            "round": session.round_id,
            "phase": str(game.phase) if game is not None else None,
            "terminal": terminal,
            "seat": seat,
            "credits": session.balance(terminal),
            "limits": limits,
            "chips": list(session.config.chip_denominations),
            "countdown": countdown,
            "to_act": {"seat": seat, "hand": 0} if can_act else None,
            "actions": actions,
            "settlements": self.results.of(terminal),
            "dealer": {"cards": dealer_cards},
            "seats": seats,
            "meters": self._meters(),
            "fourcard": {
                "hand": hand,
                "dealer_hand": dealer_hand,
                "play_multiples": list(PLAY_MULTIPLES),
            },
        }

    def _meters(self) -> list[dict[str, Any]]:
        """The progressive meters shown on the layout (641b.1(b): the display says the
        Must-Hit-By Mystery Bonus is offered), in cents."""
        session, rules = self.session, self.session.rules
        out: list[dict[str, Any]] = []
        for wager in PROGRESSIVES:
            offer = rules.progressive(wager)
            if offer is not None and offer.meter is not None and offer.meter_id in session.meters:
                meter = session.meters.meter(offer.meter_id)
                out.append(
                    {
                        "wager": wager,
                        "name": offer.meter.name,
                        "amount": meter.amount_cents,
                        "must_hit_by": None,
                    }
                )
        mystery = rules.mystery
        if mystery is not None and mystery.meter_id in session.meters:
            out.append(
                {
                    "wager": "must_hit_by",
                    "name": "Must-Hit-By Mystery Bonus",
                    "amount": session.meters.meter(mystery.meter_id).amount_cents,
                    "must_hit_by": mystery.spec.must_hit_by,
                }
            )
        return out

    def _affordable(self, terminal: str, state: Any) -> list[int]:
        if state is None:
            return []
        credits = self.session.balance(terminal)
        return [m for m in PLAY_MULTIPLES if state.wagers[ANTE] * m <= credits]


def _status(state: Any, pending: tuple[int, ...]) -> str:
    if not state.cards:
        return "betting"
    if state.number in pending:
        return "waiting"
    if state.folded:
        return "folded"
    if "play" in state.wagers:
        return "played"
    return "dealt"


_ = DEALER
