"""Player input: pygame events in, :mod:`intents <terminal_client.input.intents>` out."""

from terminal_client.input.events import (
    KEY_NAMES,
    TOUCH_MOUSEID,
    HitTest,
    PressTracker,
    is_synthesised_from_touch,
    poll_intents,
    read_intents,
)
from terminal_client.input.intents import Intent, Key, Quit, Resize, Tap

__all__ = [
    "KEY_NAMES",
    "TOUCH_MOUSEID",
    "HitTest",
    "Intent",
    "Key",
    "PressTracker",
    "Quit",
    "Resize",
    "Tap",
    "is_synthesised_from_touch",
    "poll_intents",
    "read_intents",
]
