"""The basic strategy of the hybrid tables of 633b.5: the combinatorial analysis' chart of the
rules each table's engine plays (not the fully automated table's).

- The no-hole-card table (633b.5(w)-(ee)): no peek (the dealer's second card is a community
  card designated after the players' decisions); against a dealer Blackjack a player
  Blackjack pushes, other hands lose the original wager and a split hand's wager and a double
  down wager come back unless busted (633b.5(aa)(1)(i), (bb)(1)); the dealer stands on all
  17s ((bb)(2)); two hands at most, one card to split aces ((z), (aa)(3)(i)); doubling and
  surrender as the Rules Submission states.
- The three-position table (633b.5(a)-(v)): the dealer peeks ((o)), stands on all 17s
  ((c)(2)); no surrender (not in (a)-(v)); doubling and splitting as the Rules Submission
  states. Each player plays his own hand from the position's two cards: against one dealer
  the analysis of one hand is his.

Entry points: :func:`hybrid_model`, :func:`hybrid_strategy`.
"""

from __future__ import annotations

from game_server.games.blackjack.rules.analysis import Model
from game_server.games.blackjack.rules.charts import blackjack_model, chart_for, named
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.rules.strategy import BasicStrategy

__all__ = ["hybrid_model", "hybrid_strategy"]


def hybrid_model(rules: BlackjackRules, *, no_hole_card: bool) -> Model:
    """The rules a hybrid table's engine plays, as the analysis reads them."""
    from dataclasses import replace

    base = blackjack_model(rules)
    if no_hole_card:
        model = replace(
            base,
            hits_soft_17=False,
            peeks=False,
            max_hands=min(2, rules.max_split_hands),
            resplit_aces=False,
            hit_split_aces=False,
        )
    else:
        model = replace(base, hits_soft_17=False, peeks=True, surrender=False)
    return named(model)


def hybrid_strategy(rules: BlackjackRules, *, no_hole_card: bool) -> BasicStrategy:
    """The bots' strategy at a hybrid table of ``rules``."""
    return BasicStrategy(rules, chart_for(hybrid_model(rules, no_hole_card=no_hole_card)))
