"""Drawing for the terminal: the :class:`Layout` of a window, pure drawing functions and the
cards' motion (:class:`CardAnimation`, read through its immutable :class:`CardFrame`)."""

from terminal_client.render.anim import CardAnimation, CardFrame, CardMotion
from terminal_client.render.draw import (
    chip_label,
    draw_button,
    draw_card,
    draw_card_turning,
    draw_chip,
    draw_countdown_ring,
    draw_felt,
    draw_text,
)
from terminal_client.render.fonts import get_font
from terminal_client.render.layout import ACTIONS, DENOMINATIONS, MIN_TOUCH_DESIGN, Layout
from terminal_client.render.table import SeatView, TableView, draw_hand, draw_table, hand_rects

__all__ = [
    "ACTIONS",
    "DENOMINATIONS",
    "MIN_TOUCH_DESIGN",
    "CardAnimation",
    "CardFrame",
    "CardMotion",
    "Layout",
    "SeatView",
    "TableView",
    "chip_label",
    "draw_button",
    "draw_card",
    "draw_card_turning",
    "draw_chip",
    "draw_countdown_ring",
    "draw_felt",
    "draw_hand",
    "draw_table",
    "draw_text",
    "get_font",
    "hand_rects",
]
