"""What ONE terminal may see of the table: a versioned JSON view (``"v": 1``).

:func:`view_for` builds it from the round machine (or a bare session, without countdowns and
history). The dealer's hole card never leaves the server before the engine turns it up
(``hole_revealed``): until then it is ``{"hidden": true}``, and nothing in the view depends on
its value (docs/design.md "One round, as data", step 5). Legal actions and the insurance offer are
given only to the terminal they concern. ``table_actions`` lists every decision the table
offers under its Rules Submission (:func:`table_actions`), so that a terminal draws a button
for each of them only. The view stays far below AMP's 64 KiB value limit.

Entry points: :func:`view_for` (:func:`views_for`: several terminals' at once, what they
share built once), :func:`table_actions`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from game_server.floor.errors import StoreUnavailable
from game_server.games.blackjack.machine import RoundMachine, RoundResult
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import WagerSettled
from game_server.games.blackjack.rules.round import BlackjackRound
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.session import TableSession
from game_server.table.api import whole_seconds

VIEW_VERSION = 1

#: How many completed rounds the view repeats (for reconnects and the results screen).
RECENT_IN_VIEW = 5


def table_actions(rules: BlackjackRules) -> list[str]:
    """The decisions a Blackjack table offers at all under ``rules``: hit, stand, double
    down and split; late surrender where the Rules Submission allows it (633a.9); the
    TriLux Deluxe Press where TriLux Deluxe is offered (633b.11(f)). Which of them is legal
    for a hand at a moment is ``actions``."""
    offered = [Action.HIT, Action.STAND, Action.DOUBLE, Action.SPLIT]
    if rules.late_surrender:
        offered.append(Action.SURRENDER)
    if any(offer.wager.name == "trilux" for offer in rules.side_wagers):
        offered.append(Action.PRESS)
    return [str(action) for action in offered]


def views_for(table: RoundMachine | TableSession, terminals: Sequence[str]) -> dict[str, Any]:
    """The views of several terminals of ``table`` (each as :func:`view_for` builds it), the
    parts every terminal sees built once and shared between them (the same objects)."""
    shared: dict[str, Any] = {}
    return {terminal: view_for(table, terminal, shared) for terminal in terminals}


def view_for(
    table: RoundMachine | TableSession, terminal: str, shared: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON-ready view of ``table`` for ``terminal`` (integers, strings, lists, dicts).

    ``shared``: the parts of the table every terminal sees (the limits, the dealer's cards,
    the seats' hands, the countdown, the meters) as built for another terminal's view of the
    same moment, reused as they are (:func:`views_for`); nothing of one terminal (its
    credits, actions, insurance offer, settlements, results) is kept there.
    """
    if shared is None:
        shared = {}
    if isinstance(table, RoundMachine):
        machine: RoundMachine | None = table
        session = table.session
        game = table.game
        round_id = table.game_id
        state = str(table.state)
        machine_state: str | None = table.machine_state
    else:
        machine = None
        session = table
        game = table.round
        round_id = table.round_id if game is not None else None
        state = None
        machine_state = None
    config = session.config
    rules = config.rules
    seat = session.seats.get(terminal)
    if "dealer" not in shared:
        shared.update(
            limits={
                "blackjack": {"min": rules.main_limits.minimum, "max": rules.main_limits.maximum},
                **{
                    offer.wager.name: {"min": offer.limits.minimum, "max": offer.limits.maximum}
                    for offer in rules.side_wagers
                },
            },
            chips=list(config.chip_denominations),
            countdown=_countdown(machine, game),
            dealer=_dealer(game),
            seats=_seat_parts(game),
            table_actions=table_actions(rules),
            meters=_meters(session),
        )
    view: dict[str, Any] = {
        "v": VIEW_VERSION,
        "table": config.table_id,
        "state": state,
        "machine": machine_state,
        "reason": None if machine is None else machine.reason,
        "round": round_id,
        "phase": None if game is None else str(game.phase),
        "terminal": terminal,
        "seat": seat,
        "credits": session.balance(terminal),
        "limits": shared["limits"],
        "chips": shared["chips"],
        "countdown": shared["countdown"],
        "dealer": shared["dealer"],
        "seats": [{**part, "mine": part["seat"] == seat} for part in shared["seats"]],
        "to_act": None,
        "actions": [],
        "table_actions": shared["table_actions"],
        "insurance": None,
        "settlements": [],
        "recent": [],
        "meters": shared["meters"],
    }
    if game is not None:
        hand = game.to_act
        if hand is not None:
            view["to_act"] = {"seat": hand.seat, "hand": hand.index}
            if hand.seat == seat:
                view["actions"] = _affordable(game, seat, hand.index, view["credits"])
        if seat is not None and seat in game.pending_insurance:
            main = game.seats[seat].wagers.get("blackjack", 0)
            # At most half the Blackjack wager (633a.8), and no more than the credits hold:
            # the terminal's INSURE button takes the largest insurance the table accepts.
            most = min(main // 2, view["credits"])
            view["insurance"] = {
                "can_insure": game.can_insure(seat) and most > 0,
                "max": most,
                "can_take_even_money": game.can_take_even_money(seat),
            }
    if machine is not None:
        view["settlements"] = [settlement_view(ev) for ev in machine.settlements(terminal)]
        view["recent"] = machine.recent_view(terminal, _recent)
    return view


def _recent(results: list[RoundResult]) -> list[dict[str, Any]]:
    """The ``recent`` part of a view: the last :data:`RECENT_IN_VIEW` rounds a terminal
    had a settlement in, newest first."""
    return [
        {
            "round": result.round,
            "dealer": list(result.dealer),
            "dealer_total": result.dealer_total,
            "settlements": [settlement_view(ev) for _, ev in result.settlements],
            "net": sum(ev.paid - ev.stake for _, ev in result.settlements),
        }
        for result in results[:RECENT_IN_VIEW]
    ]


def _meters(session: TableSession) -> list[dict[str, Any]]:
    """The table's progressive meters as the players see them: name, wager and amount in
    whole cents (a Must-Hit-By meter also shows its maximum; never its trigger). A meter
    linked across the floor that the store cannot give now shows no amount, and why
    (``unavailable``): its wager is refused until it is back."""
    shown = []
    for meter_id, (wager, spec) in session.meter_specs.items():
        if meter_id not in session.meters:
            continue
        entry: dict[str, Any] = {"wager": wager, "name": spec.name, "must_hit_by": spec.must_hit_by}
        try:
            entry["amount"] = session.meters.meter(meter_id).amount_cents
        except StoreUnavailable as exc:
            entry |= {"amount": None, "unavailable": str(exc)}
        shown.append(entry)
    return shown


def _affordable(game: BlackjackRound, seat: int, hand: int, credits: int) -> list[str]:
    """The legal actions this terminal can pay for: a double down, a split and a TriLux
    Deluxe Press stake more from the credits, so none is offered when the credits fall short
    (the table would refuse it with InsufficientCredits)."""
    costs = {
        "double": lambda: game.double_cost(seat, hand),
        "split": lambda: game.split_cost(seat, hand),
        "press": lambda: game.press_limit(seat),
    }
    return sorted(
        str(a) for a in game.legal_actions() if str(a) not in costs or costs[str(a)]() <= credits
    )


def _countdown(machine: RoundMachine | None, game: BlackjackRound | None) -> dict[str, Any] | None:
    if machine is None or machine.countdown is None:
        return None
    kind = machine.countdown
    default = {"betting": "deal", "insurance": "decline", "next-round": "next round"}.get(kind)
    if kind == "decision" and game is not None and game.to_act is not None:
        # 633b.5(p)(2), (z): what the countdown does when the player does not act.
        default = str(game.countdown_action())
    return {"for": kind, "seconds_left": whole_seconds(machine.seconds_left()), "then": default}


def _dealer(game: BlackjackRound | None) -> dict[str, Any]:
    if game is None or not game.dealer:
        return {"cards": [], "total": None, "hole_revealed": False}
    if game.hole_revealed:
        return {
            "cards": [str(c) for c in game.dealer],
            "total": game.dealer_total(),
            "hole_revealed": True,
        }
    shown: list[Any] = [str(game.dealer[0])]
    if len(game.dealer) > 1:
        shown.append({"hidden": True})
    return {"cards": shown, "total": None, "hole_revealed": False}


def _seat_parts(game: BlackjackRound | None) -> list[dict[str, Any]]:
    """Each seat's part of the view but ``mine`` (which each terminal's view adds)."""
    if game is None:
        return []
    out = []
    for number, state in sorted(game.seats.items()):
        out.append(
            {
                "seat": number,
                "wagers": dict(state.wagers),
                "insurance_decided": state.insurance_decided,
                "hands": [
                    {
                        "index": hand.index,
                        "cards": [str(c) for c in hand.cards],
                        "total": hand.total,
                        "soft": hand.soft,
                        "wagers": dict(hand.wagers),
                        "done": hand.done,
                        "settled": hand.settled,
                    }
                    for hand in state.hands
                ],
            }
        )
    return out


def settlement_view(ev: WagerSettled) -> dict[str, Any]:
    """A settlement as a terminal's view shows it (also used by recall pictures)."""
    return {
        "wager": ev.wager,
        "hand": ev.hand,
        "stake": ev.stake,
        "paid": ev.paid,
        "outcome": ev.outcome,
        "line": ev.line,
    }
