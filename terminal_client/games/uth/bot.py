"""The demo bot's play at an Ultimate Texas Hold 'Em table (653a): what it stakes and a tiny
strategy (the terminal may not import the server's).

Entry points: :func:`uth_strategy`, :func:`uth_demo_wagers`, :func:`uth_demo_play`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shared.cards import parse_card
from terminal_client.games.uth.model import (
    ANTE,
    BET,
    BLIND,
    CHECK,
    FOLD,
    PLAY,
    Decision,
    UthView,
)
from terminal_client.model import IntentKind

if TYPE_CHECKING:
    from terminal_client.games.api import DemoPlayer
    from terminal_client.model import TerminalModel

__all__ = ["uth_demo_play", "uth_demo_wagers", "uth_strategy"]


def _ranks(cards: tuple[str, ...]) -> list[int]:
    return [parse_card(c).rank for c in cards]


def uth_strategy(
    hole: tuple[str, ...], board: tuple[str, ...], street: str | None, legal: tuple[Decision, ...]
) -> Decision | None:
    """A tiny Ultimate Texas Hold 'Em strategy (the terminal may not import the server's),
    limited to the ``legal`` decisions; ``None`` when nothing is legal.

    Pre-flop: bet 4x (else 3x) with a pair or an ace, else check. Flop: bet 2x with a pair
    made with a hole card (a pocket pair, or a hole card's rank on the board), else check.
    Turn and river: bet 1x with a pair or better made with a hole card, else fold. A wanted
    decision that is not legal falls back to check, then fold, then the first legal one.
    """
    if not legal:
        return None
    holes = _ranks(hole)
    boards = set(_ranks(board))
    pocket_pair = len(holes) == 2 and holes[0] == holes[1]
    paired = pocket_pair or any(r in boards for r in holes)
    wanted: list[tuple[str, int]] = []
    if street == "preflop" and (pocket_pair or 14 in holes):
        wanted += [(BET, 4), (BET, 3)]
    elif street == "flop" and paired:
        wanted.append((BET, 2))
    elif street == "river" and paired:
        wanted.append((BET, 1))
    wanted += [(CHECK, 0), (FOLD, 0)]
    for action, multiple in wanted:
        for decision in legal:
            if decision.action == action and decision.multiple == multiple:
                return decision
    return legal[0]


def uth_demo_wagers(model: TerminalModel, uth: UthView) -> dict[str, int]:
    """The Ante with its equal Blind, Trips, and the smallest fixed amount of each bonus
    wager, so that a newcomer sees each of them played; the Ante and Blind alone with too
    few credits for all of them; nothing when the Ante and Blind are not affordable."""
    view = uth.view
    credits = view.credits
    ante = view.limits.get(ANTE)
    if ante is None or credits < 2 * ante.minimum:
        return {}
    wagers = {ANTE: ante.minimum, BLIND: ante.minimum}
    for name, limits in view.limits.items():
        if name in wagers or name == PLAY:
            continue
        fixed = uth.amounts.get(name)
        wagers[name] = min(fixed) if fixed else limits.minimum
    if sum(wagers.values()) > credits:
        wagers = {ANTE: ante.minimum, BLIND: ante.minimum}
    return wagers


def uth_demo_play(bot: DemoPlayer, model: TerminalModel, uth: UthView) -> None:
    """Join each round it can (its demo wagers), then decide by :func:`uth_strategy` once
    per street."""
    view = uth.view
    if not uth.joined:
        if view.phase == "betting" or view.machine == "betting":
            bot.place(model, ("uth-bet", view.round, view.phase), None)
        return
    bot.forget("uth-bet")  # in the round: the next round's betting (whatever its id) bets again
    if not model.my_turn or model.is_waiting(IntentKind.ACT):
        return
    decision = uth_strategy(uth.hole, uth.board, uth.street, uth.legal)
    if decision is not None and bot.once(("uth-act", view.round, view.phase)):
        bot.client.act(decision.action, 0, decision.multiple)
