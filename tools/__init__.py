"""Operator and investigator commands behind the one ``etg`` command."""

import os

# pygame prints a banner on import; the commands' standard output is data (``--json``).
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
