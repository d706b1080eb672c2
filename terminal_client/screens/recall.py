"""Game recall at the terminal: this terminal's current game and the 9 before it, one page
each, newest first (GLI-11 "Game Recall"; AGCO Standards 13.1.1).

Each page shows what the log holds for that game: the table and round, the credits at its
start and end, the wagers by category, every decision (the countdown's marked as such) on
the left; the round's cards and each wager's result on the right, as its game draws them
(:meth:`~terminal_client.games.api.TerminalGame.draw_recall_cards`: the dealer's cards and
this terminal's hands by default, with whatever else the game's recall holds). Opening the
screen asks the server (``GetRecall``); the terminal never builds recall from its own memory.

Entry points: :class:`RecallScreen`, :func:`draw_card_rows`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import pygame

from terminal_client.model import Document, RecalledGame, TerminalModel, short_digest
from terminal_client.model.state import ModelGame
from terminal_client.render import Layout, draw_hand
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.render.qr import draw_qr
from terminal_client.screens.base import IntentSender
from terminal_client.screens.overlay import (
    PagedOverlay,
    draw_lines,
    fitting_size,
    lines_height,
    status_text,
)
from terminal_client.screens.scene import money, wager_name

#: One row of cards on a recall page: its label, its cards (None: face down) and its height
#: as a share of the page's card height.
CardRow = tuple[str, Sequence[str | None], float]


class RecallPage(ModelGame, Protocol):
    """What the recall page asks of a recalled round's game (its part of
    :class:`~terminal_client.games.api.TerminalGame`)."""

    def recall_rows(self, game: RecalledGame) -> list[tuple[str, str]]: ...

    def recall_place(self, game: RecalledGame) -> str: ...

    def recall_results(self, game: RecalledGame) -> list[tuple[str, str]]: ...

    def draw_recall_cards(
        self, surface: pygame.Surface, layout: Layout, area: pygame.Rect, game: RecalledGame
    ) -> None: ...


def _game_named(name: str) -> RecallPage:
    """The registered game ``name`` (the generic one when this terminal has none): the
    registry looked up at call time, as it sits below the screens."""
    from terminal_client import games

    return games.by_name(name)


class RecallScreen(PagedOverlay):
    """One page per recalled game, the newest (the current game) first."""

    design_size = (1700, 980)

    def __init__(self, model: TerminalModel, client: IntentSender) -> None:
        super().__init__(model, client)
        client.request_recall()

    def games(self) -> tuple[RecalledGame, ...]:
        recall = self.model.recall
        return () if recall is None else recall.games

    def title(self) -> str:
        games = self.games()
        if not games:
            return "GAME RECALL"
        game = games[min(self.page, len(games) - 1)]
        which = "LAST GAME" if self.page == 0 else f"{self.page + 1} GAMES AGO"
        if self.page == 0 and game.status != "complete":
            which = "CURRENT GAME"
        return f"GAME RECALL: {which}"

    def page_count(self) -> int:
        return max(1, len(self.games()))

    def page_label(self) -> str:
        games = self.games()
        return f"{self.page + 1} of {len(games)}" if games else ""

    def summary(self, game: RecalledGame) -> list[tuple[str, str]]:
        """The page's rows of text: credits, wagers, what the game adds (the shoe's rows,
        :func:`shoe_rows`, are drawn beside the receipt's QR code)."""
        drawn = _game_named(game.game)
        status = "" if game.status == "complete" else " (in progress)"
        rows = [
            (f"Table {game.table}, round {game.round}{drawn.recall_place(game)}{status}", ""),
            (f"Started {game.start[:19].replace('T', ' ')} UTC", ""),
            ("Credits at start", money(game.credits_start)),
            ("Credits at end", money(game.credits_end)),
        ]
        own = _game_named(game.game)
        rows += [(f"Wagered on {wager_name(n, own)}", money(c)) for n, c in game.wagers]
        rows.append(("Total paid back", money(game.paid)))
        return rows + drawn.recall_rows(game)

    def results(self, game: RecalledGame) -> list[tuple[str, str]]:
        """Each wager's result, as its game words it."""
        return _game_named(game.game).recall_results(game)

    def draw_page(self, surface: pygame.Surface, layout: Layout, box: pygame.Rect) -> None:
        s = layout.scale
        state = self.model.document(Document.RECALL)
        games_shown = self.games()
        if not games_shown:
            if state.waiting:
                text = "Loading this terminal's last games from the table ..."
            elif state.error:
                text = f"Game recall unavailable: {state.error}"
            else:
                text = "No games have been played at this terminal yet"
            status_text(surface, layout, box, text)
            return
        game = games_shown[min(self.page, len(games_shown) - 1)]
        half = box.width // 2 - round(20 * s)
        left = pygame.Rect(box.left, box.top, half, box.height)
        right = pygame.Rect(box.right - half, box.top, half, box.height)
        upper = left.copy()
        receipt = draw_receipt_block(surface, layout, left, game)
        if receipt is not None:
            upper.height = max(0, receipt.top - round(16 * s) - upper.top)
        # The rows, then the decisions: a page of many wagers draws them closer together.
        rows = self.summary(game)
        lines = [(d, "") for d in game.decisions] or [("No decisions (none were needed)", "")]
        pitch = max(24, min(38, int(upper.height / s / (len(rows) + 1.5 + min(len(lines), 3)))))
        shown = [*rows, ("", ""), ("Decisions", ""), *lines[:3]]
        size = min(round(pitch * 0.72), fitting_size(layout, upper, shown, 27))
        pitch = min(pitch, round(size / 0.72))
        end = draw_lines(surface, layout, upper, rows, size=size, pitch=pitch)
        decisions_top = end + round(pitch * 0.5 * s)
        decisions = pygame.Rect(
            upper.left, decisions_top, upper.width, max(0, upper.bottom - decisions_top)
        )
        if decisions.height >= round(2 * pitch * s):
            draw_text(
                surface,
                "Decisions",
                decisions.topleft,
                layout.text(size),
                GOLD,
                "topleft",
                True,
                least=layout.min_text,
            )
            body = pygame.Rect(
                decisions.left,
                decisions.top + round(pitch * s),
                decisions.width,
                decisions.height - round(pitch * s),
            )
            draw_lines(surface, layout, body, lines, size=min(size, 24), pitch=min(pitch, 32))
        _game_named(game.game).draw_recall_cards(surface, layout, right, game)


def draw_receipt_block(
    surface: pygame.Surface, layout: Layout, column: pygame.Rect, game: RecalledGame
) -> pygame.Rect | None:
    """The bottom of the page's left ``column``: the game receipt's QR code
    (``docs/shoe-spec.md`` section 7) and beside it the game's shoe (:func:`shoe_rows`);
    returns the block's area (None: the game has neither)."""
    rows = shoe_rows(game)
    if not rows and not game.receipt_qr:
        return None
    s = layout.scale
    side = round(230 * s)
    if game.receipt_qr:
        rows = [*rows, ("Game receipt: scan to keep its digest", "")]
    pitch = 32
    beside = column.width - side - round(16 * s) >= round(440 * s)
    if game.receipt_qr and not beside:
        # A narrow column (portrait): the rows above the code, at the column's width, as
        # tall as they are wrapped.
        size = min(22, round(pitch * 0.72))
        wanted = lines_height(layout, pygame.Rect(0, 0, column.width, 0), rows, size, pitch)
        block = pygame.Rect(column.left, 0, column.width, side + wanted)
        block.bottom = column.bottom
        text = pygame.Rect(block.left, block.top, block.width, block.height - side)
        draw_qr(surface, game.receipt_qr, pygame.Rect(block.left, block.bottom - side, side, side))
    else:
        block = pygame.Rect(column.left, column.bottom - side, column.width, side)
        text_left = block.left
        if game.receipt_qr:
            draw_qr(surface, game.receipt_qr, pygame.Rect(block.left, block.top, side, side))
            text_left = block.left + side + round(16 * s)
        text = pygame.Rect(text_left, block.top, block.right - text_left, side)
        pitch = min(pitch, int(side / s / max(len(rows), 1)))
    draw_lines(surface, layout, text, rows, size=min(22, round(pitch * 0.72)), pitch=pitch)
    return block


def shoe_rows(game: RecalledGame) -> list[tuple[str, str]]:
    """The game's shoe (``docs/shoe-spec.md``): its commitment, the positions of its cards
    and, once the shoe is retired, the reveal that proves them."""
    shoe = game.shoe
    if shoe is None:
        return []
    positions = shoe["positions"]
    where = ", ".join(str(p) for p in positions[:8]) + (" ..." if len(positions) > 8 else "")
    rows = [
        (f"Shoe {shoe['number']} committed", short_digest(shoe["commitment"], 4)),
        (f"Card positions {where}", ""),
    ]
    reveal = shoe["reveal"]
    if reveal is None:
        rows.append(("Shoe still in use: revealed when retired", ""))
    else:
        rows.append(("Revealed seed", short_digest(str(reveal["entropy_input"]), 4)))
    return rows


def draw_card_rows(
    surface: pygame.Surface,
    layout: Layout,
    area: pygame.Rect,
    rows: Sequence[CardRow],
    results: list[tuple[str, str]],
) -> None:
    """Rows of cards down ``area``, each under its label (a full-height row's label larger),
    then the ``results`` (or "Not settled yet")."""
    s = layout.scale
    card_h = round(150 * s)
    y = area.top
    for label, cards, share in rows:
        full = share >= 0.7
        height = card_h if share == 1 else round(card_h * share)
        draw_text(
            surface,
            label,
            (area.left, y),
            layout.text(27 if full else 25),
            GOLD,
            "topleft",
            True,
            least=layout.min_text,
        )
        draw_hand(
            surface,
            pygame.Rect(area.left, y + round((36 if full else 32) * s), area.width, height),
            tuple(cards),
            height,
        )
        y += height + round((50 if full else 44) * s)
    box = pygame.Rect(area.left, y, area.width, area.bottom - y)
    draw_lines(surface, layout, box, results, size=24, pitch=32)
    if not results:
        draw_text(
            surface,
            "Not settled yet",
            box.topleft,
            layout.text(24),
            CREAM,
            "topleft",
            least=layout.min_text,
        )
