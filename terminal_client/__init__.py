"""The pygame touchscreen player terminal: screens, touch input, the reconnecting AMP client."""

import os

# pygame prints a banner on import; a kiosk's log is for the terminal's own lines.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
