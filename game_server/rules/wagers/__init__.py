"""Wagers other than the main Blackjack wager: one module per wager, paytables as data.

Each module declares a :class:`~game_server.rules.wagers.base.SideWager` (regulation section,
settlement moment, required wagers, limits, paytables named as in the regulation) and a pure
``evaluate`` of the cards. :data:`REGISTRY` maps each wager's name to its declaration.
"""

from game_server.rules.wagers import lucky_aces
from game_server.rules.wagers.base import SideWager
from game_server.rules.wagers.lucky_aces import LUCKY_ACES
from game_server.rules.wagers.math import Exact, register

REGISTRY: dict[str, SideWager] = {w.name: w for w in (LUCKY_ACES,)}

register(
    LUCKY_ACES,
    Exact(lucky_aces.exact_counts, "ordered deals of the player's two cards and the dealer's two"),
)

__all__ = ["REGISTRY", "SideWager"]
