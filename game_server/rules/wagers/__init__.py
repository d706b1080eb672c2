"""Wagers other than the main Blackjack wager: one module per wager, paytables as data.

Each module declares a :class:`~game_server.rules.wagers.base.SideWager` (regulation section,
settlement moment, required wagers, limits, paytables named as in the regulation) and a pure
``evaluate`` of the cards. :data:`REGISTRY` maps each wager's name to its declaration; the
wagers that depend only on the cards are registered for exact math (``etg math``), Buster on
the dealer's final hand (:mod:`~game_server.rules.wagers.dealer`) among them; AxMan and the
Buzzer Beater read on the final hand depend on play and are measured by ``etg sim``.
"""

from game_server.rules.wagers import (
    blackjack_match,
    blazing_7s,
    dealer,
    hybrid_side_wagers,
    lucky_aces,
    super_4,
    three_card_poker,
    top_3,
    trilux,
)
from game_server.rules.wagers.axman import AXMAN
from game_server.rules.wagers.base import SideWager
from game_server.rules.wagers.blackjack_match import BLACKJACK_MATCH
from game_server.rules.wagers.blazing_7s import BLAZING_7S
from game_server.rules.wagers.buster import BUSTER
from game_server.rules.wagers.buzzer_beater import BUZZER_BEATER
from game_server.rules.wagers.lucky_aces import LUCKY_ACES
from game_server.rules.wagers.math import Exact, register
from game_server.rules.wagers.super_4 import SUPER_4
from game_server.rules.wagers.three_card_poker import THREE_CARD_POKER
from game_server.rules.wagers.top_3 import TOP_3
from game_server.rules.wagers.trilux import TRILUX

REGISTRY: dict[str, SideWager] = {
    w.name: w
    for w in (
        LUCKY_ACES,
        THREE_CARD_POKER,
        TOP_3,
        TRILUX,
        SUPER_4,
        BLACKJACK_MATCH,
        BLAZING_7S,
        AXMAN,
        BUSTER,
        BUZZER_BEATER,
    )
}

_FOUR = "ordered deals of the player's two cards and the dealer's two"
_THREE = "ordered deals of the player's two cards and the dealer's up card"
register(LUCKY_ACES, Exact(lucky_aces.exact_counts, _FOUR))
register(THREE_CARD_POKER, Exact(three_card_poker.exact_counts, _THREE))
register(TOP_3, Exact(top_3.exact_counts, _THREE))
register(TRILUX, Exact(trilux.exact_counts, _THREE))
register(SUPER_4, Exact(super_4.exact_counts, _FOUR, stake=500))
register(BLACKJACK_MATCH, Exact(blackjack_match.exact_counts, _FOUR))
register(
    BLAZING_7S,
    Exact(
        blazing_7s.exact_counts,
        "ordered deals of the player's first two cards and, after two sevens, the third "
        "card (basic strategy always takes one)",
    ),
)
register(
    BUZZER_BEATER,
    Exact(
        dealer.buzzer_beater_counts,
        "ordered deals of the position's two cards and the dealer's hand, each weighted to 16 "
        "cards (on the position's first two cards; on the final hand it depends on play)",
    ),
)
register(
    BUSTER,
    Exact(
        dealer.buster_counts,
        "ordered dealer hands, each weighted to 14 cards (the dealer stands on soft 17)",
    ),
)

# The optional wagers of the no-hole-card hybrid table (633b.5(x); 633a.13 paytables from the
# Rules Submission): known to the registry and etg math; the table types they allow keep them
# off the other tables.
for _wager in (
    hybrid_side_wagers.ROYAL_MATCH_21,
    hybrid_side_wagers.BET_THE_SET,
    hybrid_side_wagers.KINGS_BOUNTY,
):
    REGISTRY[_wager.name] = _wager
    register(
        _wager,
        Exact(
            hybrid_side_wagers.EXACT_COUNTS[_wager.name],
            "ordered deals of the player's two cards and the dealer's up and hole cards",
        ),
    )

__all__ = ["REGISTRY", "SideWager"]
