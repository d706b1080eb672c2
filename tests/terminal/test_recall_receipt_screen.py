"""The terminal's recall page with the game receipt's QR code (docs/shoe-spec.md section 7):
at every window size, for a blackjack game with ten wagers and an Ultimate Texas Hold 'Em
game, the code is the receipt's, module for module, every row of the page is drawn, and no
text is drawn over the code (a phone must read it off the screen)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame
import pytest
import segno

from game_server.eventlog import EventLogReader
from game_server.recall.pictures import round_views
from game_server.recall.query import fetch_round
from game_server.recall.terminal import terminal_recall
from terminal_client.model import Document
from terminal_client.model.state import ConnectionState, TerminalModel
from terminal_client.render import Layout
from terminal_client.render.qr import QUIET_ZONE
from terminal_client.screens import overlay, recall
from terminal_client.screens.recall import RecallScreen

pytestmark = pytest.mark.usefixtures("headless")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pre_move"


def _screen(name: str, table: str) -> RecallScreen:
    """T1's recall screen over the fixture log, on its last game."""
    with EventLogReader.open(FIXTURES / f"{name}.db", immutable=True) as reader:
        document = terminal_recall(reader, "T1")
        logged = fetch_round(reader, table, document["games"][0]["round"])
        assert logged is not None
        view = round_views(logged, "T1")[-1]
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(view)
    model.apply_document_requested(Document.RECALL)
    model.apply_document(Document.RECALL, document)

    class Client:
        def request_recall(self) -> bool:
            return True

    return RecallScreen(model, Client())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "table"), [("fully-automated-all-side-wagers", "BJ-09"), ("uth", "UTH-01")]
)
@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (1080, 1920)])
def test_the_receipts_qr_code_is_drawn_clear_of_every_row(
    name: str, table: str, size: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    screen = _screen(name, table)
    game = screen.games()[0]
    assert game.receipt_qr is not None and game.receipt_qr.startswith("etg-receipt/1:")
    texts: list[tuple[str, pygame.Rect]] = []
    codes: list[pygame.Rect] = []

    def recording(module: Any) -> Any:
        real = module.draw_text

        def draw_text(surface: pygame.Surface, text: str, *args: Any, **kw: Any) -> pygame.Rect:
            rect: pygame.Rect = real(surface, text, *args, **kw)
            texts.append((text, rect))
            return rect

        return draw_text

    real_qr = recall.draw_qr

    def draw_qr(surface: pygame.Surface, text: str, area: pygame.Rect) -> pygame.Rect:
        square: pygame.Rect = real_qr(surface, text, area)
        codes.append(square)
        return square

    monkeypatch.setattr(overlay, "draw_text", recording(overlay))
    monkeypatch.setattr(recall, "draw_text", recording(recall))
    monkeypatch.setattr(recall, "draw_qr", draw_qr)
    surface = pygame.Surface(size)
    screen.draw(surface, Layout.for_window(size))

    (square,) = codes
    assert pygame.Rect((0, 0), size).contains(square)
    for text, rect in texts:
        assert not rect.colliderect(square), f"{text!r} is drawn over the QR code"
    # A row too long for its column is wrapped: its lines are drawn one after the other.
    joined = " ".join(text for text, _ in texts)
    for left, right in [*screen.summary(game), *recall.shoe_rows(game)]:
        assert left in joined, f"the row {left!r} is not drawn"
        assert not right or right in joined
    assert "Game receipt: scan to keep its digest" in joined
    # The code on the screen is the receipt's, module for module.
    matrix = [list(row) for row in segno.make(game.receipt_qr, error="m").matrix_iter(border=2)]
    assert QUIET_ZONE == 2
    pixel = square.width // len(matrix)
    seen = [
        [
            sum(
                surface.get_at(
                    (square.left + x * pixel + pixel // 2, square.top + y * pixel + pixel // 2)
                )[:3]
            )
            < 384
            for x in range(len(matrix))
        ]
        for y in range(len(matrix))
    ]
    assert seen == matrix
