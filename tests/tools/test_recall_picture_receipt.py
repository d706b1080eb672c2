"""``etg recall show --png`` draws the game's shoe and the receipt's QR code (docs/shoe-spec.md
section 7): the picture of a blackjack and of an Ultimate Texas Hold 'Em round carries, in
the receipt panel, the QR code of the terminal's receipt module for module, and the panel's
text names the shoe, its full commitment, the positions of the receipt's cards and the
reveal (or "still in use" while the shoe is not retired)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygame
import pytest
import segno
from click.testing import CliRunner

from game_server.eventlog import EventLogReader
from game_server.recall.query import fetch_round
from game_server.recall.receipt import build_receipt
from terminal_client.render.layout import Layout
from terminal_client.render.qr import QUIET_ZONE
from tools.recall_cli import recall
from tools.recall_pictures import draw_receipt_panel, ensure_pygame, receipt_lines

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pre_move"


def _receipt(db: Path, table: str, round_id: int, terminal: str) -> dict[str, Any]:
    with EventLogReader.open(db, immutable=True) as reader:
        logged = fetch_round(reader, table, round_id)
        assert logged is not None
        return build_receipt(reader, logged, terminal)


def _modules(path: Path, square: pygame.Rect, count: int) -> list[list[bool]]:
    """The QR modules read back from the PNG: each module's centre pixel, dark or not."""
    picture = pygame.image.load(str(path))
    pixel = square.width // count
    return [
        [
            sum(
                picture.get_at(
                    (square.left + x * pixel + pixel // 2, square.top + y * pixel + pixel // 2)
                )[:3]
            )
            < 3 * 128
            for x in range(count)
        ]
        for y in range(count)
    ]


@pytest.mark.parametrize(
    ("name", "table", "size"),
    [
        ("fully-automated-all-side-wagers", "BJ-09", (1920, 1080)),
        ("uth", "UTH-01", (1920, 1080)),
        ("uth", "UTH-01", (1080, 1920)),
    ],
)
def test_the_picture_carries_the_receipts_qr_code_and_shoe(
    name: str, table: str, size: tuple[int, int], tmp_path: Path
) -> None:
    db = FIXTURES / f"{name}.db"
    png = tmp_path / "round.png"
    result = CliRunner().invoke(
        recall,
        ["show", str(db), "3", "--png", str(png), "--size", f"{size[0]}x{size[1]}"],
    )
    assert result.exit_code == 0, result.output
    receipt = _receipt(db, table, 3, "T1")  # T1: the first terminal with a wager
    # Where the panel puts the code at this size (the layout alone decides it).
    ensure_pygame()
    square = draw_receipt_panel(pygame.Surface(size), Layout.for_window(size), receipt)
    assert pygame.Rect((0, 0), size).contains(square)
    expected = [
        list(row) for row in segno.make(receipt["qr"], error="m").matrix_iter(border=QUIET_ZONE)
    ]
    assert _modules(png, square, len(expected)) == expected
    # A different receipt's code differs: the comparison can fail.
    other = _receipt(db, table, 2, "T1")
    assert [list(r) for r in segno.make(other["qr"], error="m").matrix_iter(border=2)] != expected


def test_the_panel_text_names_the_shoe_positions_and_reveal() -> None:
    receipt = _receipt(FIXTURES / "uth.db", "UTH-01", 3, "T1")
    lines = receipt_lines(receipt)
    shoe = receipt["game"]["shoe"]
    assert lines[0] == f"SHOE {shoe['number']}  committed (SHA-256)"
    assert "".join(lines[1:5]).replace(" ", "") == shoe["commitment"]
    positions = [c["position"] for c in receipt["game"]["cards"]]
    assert lines[5] == "card positions: " + ", ".join(map(str, positions))
    assert receipt["reveal"]["entropy_input"][:16] in lines[6]

    in_use = _receipt(FIXTURES / "interrupted-fully-automated.db", "BJ-01", 3, "T1")
    assert in_use["reveal"] is None
    text = receipt_lines(in_use)
    assert text[-1] == "shoe still in use: seed and salt are revealed when it is retired"
    assert not any("revealed seed" in line or line.startswith("salt") for line in text)
