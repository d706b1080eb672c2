"""The terminal's screens: a :class:`ScreenStack` of :class:`Screen` s, and
:func:`screen_for`, which picks the base screen from the model each frame.

Entry points: :func:`screen_for`, :class:`ScreenStack`; the app is
:class:`terminal_client.app.TerminalApp`.
"""

from terminal_client.screens.base import Handled, IntentSender, Screen, ScreenStack
from terminal_client.screens.choose import screen_for
from terminal_client.screens.rules import RulesScreen
from terminal_client.screens.status import (
    AttractScreen,
    ConnectionLostScreen,
    NeedsUpdateScreen,
    RefusedScreen,
)
from terminal_client.screens.table import (
    BettingScreen,
    PlayScreen,
    ResultsScreen,
    betting_open,
    enabled_actions,
)

__all__ = [
    "AttractScreen",
    "BettingScreen",
    "ConnectionLostScreen",
    "Handled",
    "IntentSender",
    "NeedsUpdateScreen",
    "PlayScreen",
    "RefusedScreen",
    "ResultsScreen",
    "RulesScreen",
    "Screen",
    "ScreenStack",
    "betting_open",
    "enabled_actions",
    "screen_for",
]
