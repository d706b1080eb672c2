"""Drawing for the terminal: the :class:`Layout` of a window and pure drawing functions."""

from terminal_client.render.draw import (
    chip_label,
    draw_button,
    draw_card,
    draw_chip,
    draw_countdown_ring,
    draw_felt,
    draw_text,
)
from terminal_client.render.fonts import get_font
from terminal_client.render.layout import ACTIONS, DENOMINATIONS, MIN_TOUCH_DESIGN, Layout
from terminal_client.render.table import SeatView, TableView, draw_hand, draw_table

__all__ = [
    "ACTIONS",
    "DENOMINATIONS",
    "MIN_TOUCH_DESIGN",
    "Layout",
    "SeatView",
    "TableView",
    "chip_label",
    "draw_button",
    "draw_card",
    "draw_chip",
    "draw_countdown_ring",
    "draw_felt",
    "draw_hand",
    "draw_table",
    "draw_text",
    "get_font",
]
