"""An Ultimate Texas Hold 'Em game at the terminal's recall screen (653a).

A recalled game of this table (``"game": "uth"``; ``game_server.recall.terminal``) has this
terminal's two cards as its one hand, the community cards, each hand's name (the dealer's
once revealed), and the Magic Card and Lucky Bonus position drawn (653a.12(e)(3)).

Entry points: :class:`UthRecalledGame`, :func:`parse_uth_recalled` (the page is drawn by
:func:`terminal_client.games.uth.screens.draw_uth_recall`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from shared.cards import parse_card
from terminal_client.games.generic import OUTCOMES, money
from terminal_client.games.uth.model import uth_wager_title
from terminal_client.model import RecalledGame, fields
from terminal_client.model.documents import recalled_fields

__all__ = ["UthRecalledGame", "parse_uth_recalled", "uth_recall_results", "uth_recall_rows"]


@dataclass(frozen=True)
class UthRecalledGame(RecalledGame):
    """A recalled Ultimate Texas Hold 'Em game: the common fields, the community cards, the
    names of this terminal's hand and of the dealer's (``None`` when not shown), the Magic
    Card and the Lucky Bonus position."""

    board: tuple[str, ...] = ()
    hand_name: str | None = None
    dealer_hand_name: str | None = None
    magic_card: str | None = None
    lucky_position: int | None = None


def _hand_name(hand: Any) -> str | None:
    if hand is None:
        return None
    name = fields.as_str(hand["name"])
    return f"{name} (folded)" if hand.get("folded") is True else name


def parse_uth_recalled(g: Mapping[str, Any]) -> UthRecalledGame:
    """Read one recalled game of this table: its one hand is this terminal's two cards."""
    dealer = g["dealer"]
    magic = g["magic_card"]
    common = recalled_fields(
        {**g, "hands": [{"cards": g["cards"]}], "dealer": {"cards": dealer["cards"]}}, "uth"
    )
    return UthRecalledGame(
        **common,
        board=tuple(fields.as_str(c) for c in g["board"]),
        hand_name=_hand_name(g["hand"]),
        dealer_hand_name=_hand_name(dealer["hand"]),
        magic_card=None if magic is None else fields.as_str(magic),
        lucky_position=fields.opt_int(g["lucky_position"]),
    )


def uth_recall_rows(game: RecalledGame) -> list[tuple[str, str]]:
    """The draws the page adds: the Magic Card and the Lucky Bonus position."""
    rows = []
    if isinstance(game, UthRecalledGame):
        if game.magic_card is not None:
            rows.append(("Magic Card drawn (653a.12(e)(3))", parse_card(game.magic_card).symbol))
        if game.lucky_position is not None:
            lucky = game.lucky_position
            where = "dealer" if lucky == 0 else f"seat {lucky}"
            rows.append(("Lucky Bonus position drawn", where))
    return rows


def uth_recall_results(game: RecalledGame) -> list[tuple[str, str]]:
    """653a.12: each wager's short title (its line already names the wager's paytable)."""
    rows = []
    for result in game.results:
        outcome = OUTCOMES.get(result.outcome, result.outcome.upper())
        what = f"{uth_wager_title(result.wager)}: {outcome}"
        rows.append((f"{what} ({result.line})", f"paid {money(result.paid)}"))
    return rows
