"""Ultimate Texas Hold 'Em Poker (58 Pa. Code 653a) as a pure rules engine.

- :mod:`.hands`: the fast best-five-of-seven evaluator (653a.6) and exact category counts;
- :mod:`.paytables`: every 653a.12 paytable as data, named as the regulation names them;
- :mod:`.rules`: :class:`UthRules`, the validated Rules Submission of one table;
- :mod:`.game`: :class:`UthRound`, one round (wagers, deal, decisions, settlement), and
  :func:`replay`;
- :mod:`.events`: the round's event records;
- :mod:`.strategy`: a near-optimal playing strategy (bots, simulation);
- :mod:`.math`: exact Trips, Progressive and Five Card Hand Bonus figures and the Blind
  simulation (``etg math uth_trips``).

Entry point for the table: :class:`UthRound`.
"""

from game_server.games.uth.rules.game import Action, Phase, StackedDeck, UthRound, replay
from game_server.games.uth.rules.rules import FiveCardHand, UthRules, UthRulesError

__all__ = [
    "Action",
    "FiveCardHand",
    "Phase",
    "StackedDeck",
    "UthRound",
    "UthRules",
    "UthRulesError",
    "replay",
]
