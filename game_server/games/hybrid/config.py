"""The hybrid tables' Rules Submission (58 Pa. Code 633b.5): the Blackjack sections, with the
rules a hybrid table imposes on them.

A hybrid table states the same ``[table]``, ``[limits]``, ``[blackjack]``, ``[timers]``,
``[terminal]`` and ``[wagers]`` sections as the fully automated table
(:mod:`game_server.games.blackjack.config`), with ``type = "hybrid"`` (633b.5(a)-(v)) or
``"hybrid-no-hole-card"`` (633b.5(w)-(ee)); :func:`table_type_problems` adds what the type
requires of the Blackjack options.

Entry points: :func:`build_config`, :func:`table_type_problems`; the logged form is
Blackjack's (:func:`logged_config`, :func:`file_shape`).
"""

from __future__ import annotations

from collections.abc import Mapping

from game_server.config import TableConfig
from game_server.games.blackjack.config import BlackjackBuilder, file_shape, logged_config
from game_server.games.blackjack.rules.rules import BlackjackRules, CountdownDefault
from game_server.rules.wagers.base import TableType

__all__ = ["build_config", "file_shape", "logged_config", "table_type_problems"]


def build_config(data: Mapping[str, object], source: str) -> TableConfig:
    """A hybrid table's Rules Submission, checked (the Blackjack sections and the rules of
    its table type)."""
    return BlackjackBuilder(data, source, table_type_problems).build()


def table_type_problems(table_type: TableType, rules: BlackjackRules) -> list[str]:
    """The rules a type of table imposes on the Blackjack options, as problems (empty if none).

    A fully automated table is dealt under its approved Rules Submission, and the dealer may
    hit soft 17 there if the submission says so. A hybrid table (58 Pa. Code 633b.5) may not:
    its game rules icon states that the dealer stands on all soft 17s (633b.5(c)(2)), it uses
    six or eight decks (633b.5(f)), and with a hole card a player who lets the countdown run
    out stands (633b.5(p)(2)) and the dealer peeks under an ace or a ten-value card (633b.5(o)).
    Without a hole card (633b.5(w)) there is no peek, and a pair splits into two hands at most
    (633b.5(z)).

    Args:
        table_type: the kind of table.
        rules: the Blackjack options stated for it.

    Returns:
        One ``"field: sentence (section)"`` per broken rule.
    """
    problems: list[str] = []
    if table_type in (TableType.HYBRID, TableType.HYBRID_NO_HOLE_CARD):
        if rules.dealer_hits_soft_17:
            problems.append(
                "blackjack.dealer_hits_soft_17: the dealer stands on all soft 17s at a hybrid "
                "table; set dealer_hits_soft_17 = false (58 Pa. Code 633b.5(c)(2))"
            )
        if rules.decks not in (6, 8):
            problems.append(
                f"table.decks: Blackjack on a hybrid table is played with six or eight decks, "
                f"not {rules.decks} (58 Pa. Code 633b.5(f))"
            )
    if table_type is TableType.HYBRID:
        if not rules.dealer_peeks:
            problems.append(
                "blackjack.dealer_peeks: at a hybrid table with a hole card the dealer checks "
                "it for Blackjack under an ace or ten-value up card; set dealer_peeks = true "
                "(58 Pa. Code 633b.5(o))"
            )
        if rules.countdown_default is not CountdownDefault.STAND:
            problems.append(
                "timers.countdown_default: at a hybrid table with a hole card a player who "
                "takes no action by the end of the countdown stands; set "
                'countdown_default = "stand" (58 Pa. Code 633b.5(p)(2))'
            )
    if table_type is TableType.HYBRID_NO_HOLE_CARD:
        if rules.dealer_peeks:
            problems.append(
                "blackjack.dealer_peeks: a hybrid table without a hole card has no hole card "
                "to peek at; set dealer_peeks = false (58 Pa. Code 633b.5(w), (aa))"
            )
        if rules.max_split_hands > 2:
            problems.append(
                f"blackjack.max_split_hands: without a hole card a pair splits into two hands "
                f"at most, not {rules.max_split_hands}; set max_split_hands = 2 "
                "(58 Pa. Code 633b.5(z))"
            )
    return problems
