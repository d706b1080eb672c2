"""What ONE terminal of a hybrid table may see: a versioned JSON view (``"v": 1``).

58 Pa. Code 633b.5. :func:`hybrid_view_for` builds it from a
:class:`~game_server.games.hybrid.machine.HybridMachine` (or a bare
:class:`~game_server.games.hybrid.session.HybridSession`, without countdowns). The top-level
fields are those of :func:`game_server.games.blackjack.views.view_for` that apply to a table without
seats; the cards are in the ``"hybrid"`` block, by table type:

- ``hybrid`` (633b.5(a)-(v)): every chosen position's two cards, the community cards dealt,
  which of them are in each of this terminal's hands, and the dealer's cards. The hole card is
  ``{"hidden": true}`` until the engine turns it up, and nothing in the view depends on its
  value (the dealer's total is None until then).
- ``hybrid-no-hole-card`` (633b.5(w)-(ee)): the shared first cards and up card, the community
  cards, and for THIS terminal only which of them went to his hands and which to HIS dealer
  hand (633b.5(y)(4), (aa), (bb)): two players may face different dealer hands.

A terminal that did not join the round sees the shared cards but no hands. Legal actions and
the insurance offer are given only to the terminal they concern, less a double down or split
its credits cannot pay for. The settlements come from a :class:`HybridResults` listener when
one is passed (neither the engines nor the machine keep them once logged); it also keeps the
round just completed, which the view then shows between rounds.

Entry point: :func:`hybrid_view_for`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from game_server.games.blackjack.rules.events import WagerSettled
from game_server.games.blackjack.views import table_actions
from game_server.games.hybrid.machine import HybridMachine
from game_server.games.hybrid.rules.events import Hybrid3WagerSettled
from game_server.games.hybrid.rules.no_hole_card import NoHoleCardRound
from game_server.games.hybrid.rules.three_position import ThreePositionRound
from game_server.games.hybrid.session import HybridSession
from game_server.rules.twenty_one import hand_total
from game_server.table.api import whole_seconds
from game_server.table.events import RoundStarted

__all__ = ["VIEW_VERSION", "HybridResults", "hybrid_view_for"]

VIEW_VERSION = 1

#: What each countdown does when it runs out (the decision countdown asks the engine).
_COUNTDOWN_THEN = {
    "betting": "deal",
    "insurance": "decline insurance",
    "next-round": "next round",
}


class HybridResults:
    """A :class:`~game_server.table.api.TableListener` that keeps each terminal's settlements
    of the last round in which it had any (the round in play once it settles a wager).

    Add it with ``machine.add_listener`` and pass it to :func:`hybrid_view_for`.
    """

    def __init__(self, session: HybridSession) -> None:
        self.session = session
        self.round: int | None = None
        #: Per terminal: the last round in which it had a settlement, and its settlements.
        self.settlements: dict[str, tuple[int | None, list[Any]]] = {}
        self._numbers: dict[int, str] = {}
        #: The round in play, or the last one (the session forgets it when it closes).
        self.game: Any = None
        self.game_round: int | None = None

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        """Record the settlements of a logged step under their terminal."""
        for ev in events:
            if type(ev) is RoundStarted:
                self.round, self._numbers = ev.round, {}
        game = self.session.round
        if game is not None and self.session.round_id == self.round:
            # The no-hole-card engine numbers its players; keep the numbers of this round
            # (the session forgets them when the round closes, before the step is sent).
            self._numbers.update(getattr(game, "terminals", {}))
        if game is not None:
            self.game, self.game_round = game, self.session.round_id
        for ev in events:
            if type(ev) is Hybrid3WagerSettled:
                self._add(ev.player, ev)
            elif type(ev) is WagerSettled and ev.seat in self._numbers:
                self._add(self._numbers[ev.seat], ev)

    def _add(self, terminal: str, ev: Any) -> None:
        held = self.settlements.get(terminal)
        if held is None or held[0] != self.round:
            held = self.settlements[terminal] = (self.round, [])
        held[1].append(ev)

    def of(self, terminal: str) -> list[dict[str, Any]]:
        """This terminal's settlements of its last round with any, as a view shows them."""
        round_id, settled = self.settlements.get(terminal, (None, []))
        return [
            {
                "round": round_id,
                "wager": ev.wager,
                "hand": ev.hand,
                "stake": ev.stake,
                "paid": ev.paid,
                "outcome": ev.outcome,
                "line": ev.line,
            }
            for ev in settled
        ]


def hybrid_view_for(
    table: HybridMachine | HybridSession,
    terminal: str,
    *,
    results: HybridResults | None = None,
) -> dict[str, Any]:
    """The JSON-ready view of a hybrid ``table`` for ``terminal`` (integers, strings, lists,
    dicts, None)."""
    machine = table if isinstance(table, HybridMachine) else None
    session = table.session if isinstance(table, HybridMachine) else table
    config = session.config
    rules = config.rules
    game = session.round
    round_id: int | None = session.round_id if game is not None else None
    if game is None and results is not None and results.session is session:
        game, round_id = results.game, results.game_round  # the round just completed
    engine: Any = None if game is None else game.engine
    player: Any = None if game is None else game.player_of(terminal)
    credits = session.balance(terminal)
    view: dict[str, Any] = {
        "v": VIEW_VERSION,
        "table": config.table_id,
        "table_type": str(config.table_type),
        "state": None if machine is None else str(machine.state),
        "machine": None if machine is None else str(machine.machine_state),
        "reason": None if machine is None else machine.reason,
        "round": round_id,
        "phase": None if engine is None else str(engine.phase),
        "terminal": terminal,
        "joined": player is not None,
        "credits": credits,
        "limits": {
            "blackjack": {"min": rules.main_limits.minimum, "max": rules.main_limits.maximum},
            **{
                offer.wager.name: {"min": offer.limits.minimum, "max": offer.limits.maximum}
                for offer in rules.side_wagers
            },
        },
        "chips": list(config.chip_denominations),
        "countdown": None,
        "to_act": None,
        "actions": [],
        "table_actions": table_actions(config.rules),
        "insurance": None,
        "settlements": [] if results is None else results.of(terminal),
        # This terminal's wagers in the round (cents by wager name), from its join on.
        "wagers": {} if player is None else _wagers(engine, player),
        "hybrid": _cards(engine, player),
    }
    if game is not None and player is not None:
        hand = engine.to_act(player)
        if hand is not None:
            view["to_act"] = {"hand": hand}
            stake = game.stake(terminal)
            # A double down or split costs the Blackjack wager again: not offered when the
            # credits fall short (the session would refuse it with InsufficientCredits).
            view["actions"] = sorted(
                str(a)
                for a in engine.legal_actions(player)
                if str(a) not in ("double", "split") or stake <= credits
            )
        if terminal in game.pending_insurance():
            # At most half the Blackjack wager (633a.8), and no more than the credits hold.
            most = min(game.stake(terminal) // 2, credits)
            view["insurance"] = {
                "can_insure": engine.can_insure(player) and most > 0,
                "max": most,
                "can_take_even_money": isinstance(engine, ThreePositionRound)
                and engine.can_take_even_money(player),
            }
    idle = machine is not None and machine.countdown == "betting" and not machine.wagered()
    if machine is not None and machine.countdown is not None and not idle:
        # An idle betting window (nobody's wager) deals nothing at zero: no countdown shown.
        kind = machine.countdown
        then = _COUNTDOWN_THEN.get(kind)
        if kind == "decision":
            # 633b.5(p)(2), (z): what the countdown does for this terminal's hand to act.
            then = None if view["to_act"] is None else _decision_default(engine, player)
        view["countdown"] = {
            "for": kind,
            "seconds_left": whole_seconds(machine.seconds_left()),
            "then": then,
        }
    return view


def _wagers(engine: Any, player: Any) -> dict[str, int]:
    state = engine.players[player]
    wagers = dict(state.wagers)
    if state.insurance:
        wagers["insurance"] = state.insurance
    return wagers


def _decision_default(engine: Any, player: Any) -> str:
    if isinstance(engine, NoHoleCardRound):
        return str(engine.countdown_action(player))  # stand, or hit a hard 11 or less
    return "stand"  # 633b.5(p)(2)


def _cards(engine: Any, player: Any) -> dict[str, Any]:
    if isinstance(engine, ThreePositionRound):
        return _three_position(engine, player)
    if isinstance(engine, NoHoleCardRound):
        return _no_hole_card(engine, player)
    return {}


def _three_position(game: ThreePositionRound, player: str | None) -> dict[str, Any]:
    """633b.5(n), (q): the positions' cards, the community cards, the dealer's cards."""
    if game.hole_revealed:
        dealer = {
            "cards": [str(c) for c in game.dealer],
            "total": game.dealer_total(),
            "hole_revealed": True,
        }
    else:
        # The hole card never leaves the server before it is turned up (633b.5(s)).
        shown: list[Any] = [str(c) for c in game.dealer[:1]]
        if len(game.dealer) > 1:
            shown.append({"hidden": True})
        dealer = {"cards": shown, "total": None, "hole_revealed": False}
    chosen: dict[str, int] = {}
    for state in game.players.values():
        chosen[str(state.position)] = chosen.get(str(state.position), 0) + 1
    out: dict[str, Any] = {
        "position": None,
        # How many players chose each position so far (633b.5(l)); who they are is theirs.
        "chosen": dict(sorted(chosen.items())),
        "positions": [
            {"position": n, "cards": [str(c) for c in cards]}
            for n, cards in sorted(game.positions.items())
        ],
        "community": [{"number": k, "card": str(c)} for k, c in enumerate(game.community, 1)],
        "used": [],
        "hands": [],
        "dealer": dealer,
    }
    if player is not None:
        mine = game.view(player)
        out["position"] = mine.position
        out["used"] = list(mine.used)
        out["hands"] = [
            {
                "index": h.index,
                "cards": [str(c) for c in h.cards],
                "community": list(h.community),
                "total": h.total,
                "soft": h.soft,
                "wagers": dict(h.wagers),
                "done": h.done,
                "settled": h.settled,
            }
            for h in mine.hands
        ]
    return out


def _no_hole_card(game: NoHoleCardRound, player: int | None) -> dict[str, Any]:
    """633b.5(y): the shared cards, and where each community card went FOR this player."""
    out: dict[str, Any] = {
        "first_cards": [str(c) for c in game.first_cards],
        "up_card": None if game.up_card is None else str(game.up_card),
        "community": [{"position": p, "card": str(c)} for p, c in game.community],
        "designations": [],
        "hands": [],
        "dealer": None,
        "status": None,
    }
    if player is not None:
        mine = game.view(player)
        state = game.players[player]
        out["designations"] = [
            {"position": p, "to": target, "index": index} for p, target, index in mine.designations
        ]
        out["hands"] = [
            {
                "index": h.index,
                "cards": [str(c) for c in h.cards],
                "total": h.total,
                "soft": hand_total(h.cards)[1],
                "wagers": dict(h.wagers),
                "done": h.done,
                "settled": h.settled,
            }
            for h in state.hands
        ]
        out["dealer"] = {
            "cards": [str(c) for c in mine.dealer],
            "total": hand_total(mine.dealer)[0] if mine.dealer else None,
        }
        out["status"] = str(mine.status)
    return out
