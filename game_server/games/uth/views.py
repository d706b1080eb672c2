"""What ONE terminal of an Ultimate Texas Hold 'Em table may see: a versioned JSON view.

58 Pa. Code 653a. :func:`uth_view_for` builds it from a
:class:`~game_server.games.uth.machine.UthMachine` (or a bare
:class:`~game_server.games.uth.session.UthSession`, without countdowns). The view is
``"v": 1`` with ``"game": "uth"`` (the Blackjack views carry no ``game`` key: a terminal
that sees ``"game": "uth"`` draws the Hold 'Em table). Only integers, strings, lists, dicts,
booleans and None; money in cents.

What a terminal never sees before the showdown (docs/design.md "One round, as data", step 5): the
other seats' two cards and the dealer's two cards. Until the engine reveals them they are
``{"hidden": true}`` placeholders (so the screen can draw the backs), and nothing in the view
depends on their values. This terminal's own two cards are shown from the deal. At the
showdown (phase ``"showdown"`` or ``"complete"``, and between rounds for the round just
completed: during the machine's ``"next-round"`` pause the view keeps that round, its
settlements and draws) every hand is shown with its best five cards and its category.

Top-level keys (as :func:`game_server.games.blackjack.views.view_for` where they apply):

- ``v`` (1), ``game`` ("uth"), ``table`` (table id), ``state`` ("open" | "closed" |
  "out-of-service", None without a machine), ``machine`` (the machine's state: "closed",
  "betting", "deciding", "next-round", "out-of-service"), ``round`` (round id or None),
  ``phase`` (engine phase: "betting", "preflop", "flop", "river", "showdown", "complete";
  None between rounds), ``terminal``, ``seat`` (this terminal's seat or None), ``credits``.
- ``limits``: per wager offered. Ante and Trips have ``{"min", "max"}`` (the Blind always
  equals the Ante: ``{"equals": "ante"}``); the fixed-amount wagers have ``{"amounts":
  [...]}`` (Progressive Payout 653a.12(d), Five Card Hand Bonus 653a.12(e) on the player's
  hand ``five_card_player`` and on the dealer's hand ``five_card_dealer``).
- ``chips``: the chip denominations.
- ``countdown``: None, or ``{"for": "betting" | "decision" | "next-round",
  "seconds_left": int, "then": "deal" | "check" | "fold" | "next round" | None}``. The
  decision countdown is SHARED by every seat of a street (one countdown per street, like the
  hybrid tables' stadium play): when it runs out every seat still to decide checks (preflop,
  flop) or folds (river). ``then`` says which, to a seat still to decide (None to the others).
  While nobody has wagered on the open round the betting window starts over at zero and
  deals nothing: no countdown is shown then.
- ``to_act``: the seats that still have to decide on this street (a list; every seat decides
  at the same time, in any order), [] when none.
- ``actions``: THIS terminal's legal decisions as strings, a subset of ["check", "bet",
  "fold"] ("bet" is the Play Wager; [] when it has none or it is not this seat's turn). The
  multiples are in ``uth.legal``. A Play it cannot pay for is left out.
- ``settlements``: this terminal's settlements of the round in play or, between rounds, of its
  last round: ``{"round", "wager", "hand", "stake", "paid", "from_meter", "outcome", "line"}``;
  ``paid`` includes the stake; ``line`` names the paytable and line with its paragraph
  ("Blind Paytable A: Flush 3 to 2 (653a.12(b))"). Awards with no stake (Envy Bonus
  ``progressive_envy``, Magic Card ``five_card_player_magic_card``, Lucky Bonus
  ``five_card_player_lucky_bonus``, ...) have ``stake`` 0.
- ``meters``: ``[{"wager": "progressive" | "five_card", "name", "amount"}]`` in cents.

The ``uth`` block:

- ``seats``: every seat with a hand this round, in seat order: ``{"seat", "mine", "wagers":
  {name: cents}, "status": "betting" | "waiting" | "decided" | "played" | "folded",
  "play_multiple": 0 | 1 | 2 | 3 | 4, "cards": [two cards or hidden placeholders],
  "hand": None | {"name", "five", "category"}}``. ``status``: "waiting" = still to decide on
  this street, "decided" = checked on this street, "played" = has its Play Wager.
  ``hand`` is given only at the showdown (and for this terminal's own seat once five
  community cards are out: its best five so far).
- ``hole``: this terminal's own two cards ([] before the deal or without a hand).
- ``board``: the community cards dealt so far (0, 3 or 5 cards, face up).
- ``dealer``: ``{"cards": [two hidden placeholders until the showdown, then the cards],
  "revealed": bool, "hand": None | {"name", "five", "category"}, "qualifies": None | bool}``.
- ``legal``: THIS terminal's decisions with their Play multiples: ``[{"action": "check"},
  {"action": "bet", "multiples": [3, 4], "amounts": [1500, 2000]}, {"action": "fold"}]``
  ([] when it has none). To decide, send the existing ``Act`` command: ``action`` "check",
  "bet" or "fold" ("play" is accepted for "bet"), ``hand`` 0, ``amount`` = the Play
  multiple (4, 3, 2 or 1; 0 for check and fold; a "bet" with 0 plays the largest multiple
  allowed). ``AnswerInsurance`` is refused.
- ``magic_card``: the Magic Card drawn for the round (653a.12(e)(3)), shown once drawn at the
  settlement (None before, or when the table does not pay it); ``lucky_position``: the seat
  drawn for the Lucky Bonus, 0 for the dealer's hand, None likewise.

Example (seat 2 on the flop, having checked preflop; dealer and seat 4 hidden)::

    {
      "v": 1, "game": "uth", "table": "uth-1", "state": "open", "machine": "deciding",
      "round": 12, "phase": "flop", "terminal": "T2", "seat": 2, "credits": 48500,
      "limits": {"ante": {"min": 500, "max": 50000}, "blind": {"equals": "ante"},
                 "trips": {"min": 500, "max": 50000}, "progressive": {"amounts": [100, 500]},
                 "five_card_player": {"amounts": [100, 500]},
                 "five_card_dealer": {"amounts": [100, 500]}},
      "chips": [100, 500, 2500, 10000],
      "countdown": {"for": "decision", "seconds_left": 12, "then": "check"},
      "to_act": [2, 4],
      "actions": ["bet", "check"],
      "settlements": [],
      "meters": [{"wager": "progressive", "name": "Progressive Payout", "amount": 1000000}],
      "uth": {
        "seats": [
          {"seat": 2, "mine": true, "wagers": {"ante": 500, "blind": 500, "trips": 500},
           "status": "waiting", "play_multiple": 0, "cards": ["AS", "KD"], "hand": null},
          {"seat": 4, "mine": false, "wagers": {"ante": 1000, "blind": 1000, "play": 4000},
           "status": "played", "play_multiple": 4,
           "cards": [{"hidden": true}, {"hidden": true}], "hand": null}
        ],
        "hole": ["AS", "KD"],
        "board": ["2C", "7H", "KS"],
        "dealer": {"cards": [{"hidden": true}, {"hidden": true}], "revealed": false,
                   "hand": null, "qualifies": null},
        "legal": [{"action": "check"}, {"action": "bet", "multiples": [2], "amounts": [1000]}],
        "magic_card": null, "lucky_position": null
      }
    }

At the showdown each seat's ``cards`` are its two cards and ``hand`` is e.g. ``{"name":
"Three-of-a-kind", "five": ["KD", "KS", "KH", "AS", "7H"], "category": "three_of_a_kind"}``;
``dealer.revealed`` is true with its cards, hand and ``qualifies``.

Entry point: :func:`uth_view_for`.
"""

from __future__ import annotations

from typing import Any

from game_server.games.uth.machine import UthMachine, UthResults
from game_server.games.uth.rules.events import (
    ANTE,
    BLIND,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    PROGRESSIVE,
    TRIPS,
)
from game_server.games.uth.rules.game import MULTIPLES, Action, Phase, UthRound
from game_server.games.uth.rules.hands import best_five, category_of, hand_name, rank7, rank_cards
from game_server.games.uth.session import UthSession
from game_server.table.api import whole_seconds
from shared.cards import Card

__all__ = ["HIDDEN", "VIEW_VERSION", "uth_view_for"]

VIEW_VERSION = 1
#: A card this terminal may not see yet.
HIDDEN: dict[str, bool] = {"hidden": True}
#: The Act command's action name of each engine decision.
_ACTION_NAME = {Action.CHECK: "check", Action.PLAY: "bet", Action.FOLD: "fold"}
_SHOWN = (Phase.SHOWDOWN, Phase.COMPLETE)


def uth_view_for(
    table: UthMachine | UthSession,
    terminal: str,
    *,
    results: UthResults | None = None,
) -> dict[str, Any]:
    """The JSON-ready view of an Ultimate Texas Hold 'Em ``table`` for ``terminal``."""
    machine = table if isinstance(table, UthMachine) else None
    session = table.session if isinstance(table, UthMachine) else table
    if results is None and machine is not None:
        results = machine.results
    config = session.config
    rules = session.rules
    game: UthRound | None = session.round
    round_id: int | None = session.round_id if game is not None else None
    if game is None and results is not None and results.session is session:
        game, round_id = results.game, results.game_round  # the round just completed
    seat = session.seats.get(terminal)
    credits = session.balance(terminal)
    limits: dict[str, Any] = {
        ANTE: {"min": rules.ante_limits.minimum, "max": rules.ante_limits.maximum},
        BLIND: {"equals": ANTE},
    }
    if rules.trips_paytable is not None:
        limits[TRIPS] = {"min": rules.trips_limits.minimum, "max": rules.trips_limits.maximum}
    if rules.progressive_amounts:
        limits[PROGRESSIVE] = {"amounts": list(rules.progressive_amounts)}
    if rules.five_card_amounts:
        limits[FIVE_CARD_PLAYER] = {"amounts": list(rules.five_card_amounts)}
        limits[FIVE_CARD_DEALER] = {"amounts": list(rules.five_card_amounts)}
    live = game is not None and game is session.round
    legal = _legal(game, seat, credits) if live and game is not None else []
    view: dict[str, Any] = {
        "v": VIEW_VERSION,
        "game": "uth",
        "table": config.table_id,
        "state": None if machine is None else str(machine.state),
        "machine": None if machine is None else str(machine.machine_state),
        "reason": None if machine is None else machine.reason,
        "round": round_id,
        "phase": None if game is None else str(game.phase),
        "terminal": terminal,
        "seat": seat,
        "credits": credits,
        "limits": limits,
        "chips": list(config.chip_denominations),
        "countdown": _countdown(machine, game if live else None, seat),
        "to_act": sorted(game.pending) if live and game is not None else [],
        "actions": sorted({entry["action"] for entry in legal}),
        "settlements": [] if results is None else results.of(terminal),
        "meters": _meters(session),
        "uth": _uth_block(game, seat, legal, results),
    }
    return view


def _legal(game: UthRound, seat: int | None, credits: int) -> list[dict[str, Any]]:
    """This seat's decisions, a Play it cannot pay for left out."""
    if seat is None or seat not in game.seats:
        return []
    ante = game.seats[seat].wagers.get(ANTE, 0)
    out: list[dict[str, Any]] = []
    plays = [m for m in game.legal_plays(seat) if ante * m <= credits]
    for action, _ in game.legal_actions(seat):
        if action is Action.PLAY:
            continue
        out.append({"action": _ACTION_NAME[action]})
    if plays:
        out.insert(
            1 if out and out[0]["action"] == "check" else 0,
            {"action": "bet", "multiples": plays, "amounts": [ante * m for m in plays]},
        )
    return out


def _countdown(
    machine: UthMachine | None, game: UthRound | None, seat: int | None
) -> dict[str, Any] | None:
    """The running countdown; a decision countdown says what it does only to a seat that
    still has to decide (for the others it does nothing)."""
    if machine is None or machine.countdown is None:
        return None
    kind = machine.countdown
    if kind == "betting" and not machine.wagered():
        return None  # nobody's wager: the window starts over at zero and deals nothing
    then = {"betting": "deal", "next-round": "next round"}.get(kind)
    if kind == "decision" and game is not None and seat in game.pending:
        then = "fold" if game.phase is Phase.RIVER else "check"
    return {"for": kind, "seconds_left": whole_seconds(machine.seconds_left()), "then": then}


def _meters(session: UthSession) -> list[dict[str, Any]]:
    shown = []
    for meter_id, spec in session.meter_specs.items():
        if meter_id not in session.meters:
            continue
        wager = PROGRESSIVE if meter_id == session.rules.progressive_meter_id else "five_card"
        shown.append(
            {
                "wager": wager,
                "name": spec.name,
                "amount": session.meters.meter(meter_id).amount_cents,
            }
        )
    return shown


def _hand(cards: list[Card]) -> dict[str, Any]:
    value = rank7(cards) if len(cards) == 7 else rank_cards(cards)
    return {
        "name": hand_name(value),
        "five": [str(c) for c in best_five(cards)],
        "category": category_of(value).name.lower(),
    }


def _status(game: UthRound, number: int) -> str:
    state = game.seats[number]
    if state.folded:
        return "folded"
    if state.play_multiple:
        return "played"
    if game.phase is Phase.BETTING:
        return "betting"
    if game.phase in MULTIPLES:
        return "decided" if state.decided else "waiting"
    return "decided"


def _uth_block(
    game: UthRound | None,
    mine: int | None,
    legal: list[dict[str, Any]],
    results: UthResults | None,
) -> dict[str, Any]:
    block: dict[str, Any] = {
        "seats": [],
        "hole": [],
        "board": [],
        "dealer": {"cards": [], "revealed": False, "hand": None, "qualifies": None},
        "legal": legal,
        "magic_card": None,
        "lucky_position": None,
    }
    if game is None:
        return block
    shown = game.phase in _SHOWN
    board = list(game.board)
    block["board"] = [str(c) for c in board]
    for number, state in sorted(game.seats.items()):
        own = number == mine
        visible = own or shown
        hand = None
        if state.cards and (shown or (own and len(board) == 5)):
            hand = _hand([*state.cards, *board])
        block["seats"].append(
            {
                "seat": number,
                "mine": own,
                "wagers": dict(state.wagers),
                "status": _status(game, number),
                "play_multiple": state.play_multiple,
                "cards": [str(c) if visible else dict(HIDDEN) for c in state.cards],
                "hand": hand,
            }
        )
        if own:
            block["hole"] = [str(c) for c in state.cards]
    if game.dealer:
        if shown:
            block["dealer"] = {
                "cards": [str(c) for c in game.dealer],
                "revealed": True,
                "hand": _hand([*game.dealer, *board]),
                "qualifies": game.dealer_qualifies(),
            }
        else:
            block["dealer"]["cards"] = [dict(HIDDEN) for _ in game.dealer]
    if game.phase is Phase.COMPLETE and results is not None:
        drawn = results.draws.get(results.game_round)
        if drawn is not None:
            block["magic_card"] = drawn.magic_card[0] if drawn.magic_card else None
            block["lucky_position"] = drawn.lucky_position
    if isinstance(block["magic_card"], Card):
        block["magic_card"] = str(block["magic_card"])
    return block
