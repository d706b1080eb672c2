"""The terminal's screens: a :class:`ScreenStack` of :class:`Screen` s, and
:func:`screen_for`, which picks the base screen from the model each frame.

Entry points: :func:`screen_for`, :class:`ScreenStack`; the app is
:class:`terminal_client.app.TerminalApp`.
"""

from terminal_client.screens.base import Handled, IntentSender, Screen, ScreenStack
from terminal_client.screens.choose import screen_for
from terminal_client.screens.credits import CashOutScreen
from terminal_client.screens.overlay import PagedOverlay, menu_buttons
from terminal_client.screens.recall import RecallScreen
from terminal_client.screens.rules import RulesScreen
from terminal_client.screens.status import (
    AttractScreen,
    ConnectionLostScreen,
    NeedsUpdateScreen,
    OutOfServiceScreen,
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
    "CashOutScreen",
    "ConnectionLostScreen",
    "Handled",
    "IntentSender",
    "NeedsUpdateScreen",
    "OutOfServiceScreen",
    "PagedOverlay",
    "PlayScreen",
    "RecallScreen",
    "RefusedScreen",
    "ResultsScreen",
    "RulesScreen",
    "Screen",
    "ScreenStack",
    "betting_open",
    "enabled_actions",
    "menu_buttons",
    "screen_for",
]
