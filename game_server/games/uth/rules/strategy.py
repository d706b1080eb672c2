"""A near-optimal Ultimate Texas Hold 'Em playing strategy, for the simulator and bots.

The well-known simple strategy (published by the Wizard of Odds; about 0.1% of the Ante
worse than perfect play):

- preflop, Play 4x with: a pair of threes or better; any ace; a king with a suited card or
  a five or better; a queen with a suited six or better or an offsuit eight or better; a jack
  with a suited eight or better or an offsuit ten;
- flop, Play 2x with: two pair or better that uses a hole card; a hidden pair (a hole card
  pairs, or a pocket pair) except pocket deuces; four to a flush with a hidden ten or better
  of that suit;
- river, Play 1x with a hidden pair or better (the hole cards make more than kickers over
  the board's own hand), or when fewer
  than 21 of the unseen cards would give the dealer (with the board) a better hand; fold
  otherwise.

Pure functions of card codes (``Card`` or ``int``). Entry points: :func:`preflop_multiple`,
:func:`flop_plays`, :func:`river_plays`, :func:`decide`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from game_server.games.uth.rules.hands import CATEGORY_SHIFT, count_better, rank_cards
from game_server.rules.poker import Category5

if TYPE_CHECKING:
    from game_server.games.uth.rules.game import Action, UthRound

_PAIR = Category5.PAIR << CATEGORY_SHIFT
_TWO_PAIR = Category5.TWO_PAIR << CATEGORY_SHIFT
#: River: Play 1x when the dealer has fewer than this many outs.
DEALER_OUTS_LIMIT = 21


def _rank(card: int) -> int:
    return (card >> 2) + 2


def preflop_multiple(hole: Sequence[int]) -> int:
    """4 to Play 4x the Ante preflop, 0 to check."""
    hi, lo = sorted((_rank(hole[0]), _rank(hole[1])), reverse=True)
    suited = hole[0] & 3 == hole[1] & 3
    if hi == lo:
        return 4 if hi >= 3 else 0
    if hi == 14:
        return 4
    if hi == 13:
        return 4 if suited or lo >= 5 else 0
    if hi == 12:
        return 4 if lo >= (6 if suited else 8) else 0
    if hi == 11:
        return 4 if lo >= (8 if suited else 10) else 0
    return 0


def _board_ranks_value(board: Sequence[int]) -> int:
    """The category value of the board cards alone (pairs and trips only)."""
    counts: dict[int, int] = {}
    for c in board:
        counts[c >> 2] = counts.get(c >> 2, 0) + 1
    most = max(counts.values())
    if most >= 3:
        return Category5.THREE_OF_A_KIND << CATEGORY_SHIFT
    pairs = sum(1 for n in counts.values() if n == 2)
    if pairs >= 2:
        return _TWO_PAIR
    return _PAIR if pairs else 0


def flop_plays(hole: Sequence[int], flop: Sequence[int]) -> bool:
    """Whether to Play 2x on the flop (after checking preflop)."""
    value = rank_cards([*hole, *flop])
    board = _board_ranks_value(flop)
    category = value >> CATEGORY_SHIFT
    if value >= _TWO_PAIR and category > board >> CATEGORY_SHIFT:
        return True
    hole_ranks = {c >> 2 for c in hole}
    flop_ranks = {c >> 2 for c in flop}
    pocket_pair = hole[0] >> 2 == hole[1] >> 2
    if pocket_pair and _rank(hole[0]) > 2:
        return True
    if hole_ranks & flop_ranks:
        return True
    for suit in range(4):
        suited = [c for c in (*hole, *flop) if c & 3 == suit]
        if len(suited) >= 4 and any(c & 3 == suit and _rank(c) >= 10 for c in hole):
            return True
    return False


#: How many leading tie-break ranks are the hand's made part (not kickers), per category.
_MADE = {0: 0, 1: 1, 2: 2, 3: 1, 4: 1, 5: 5, 6: 2, 7: 1, 8: 1, 9: 1}


def _hidden(player: int, board: int) -> bool:
    """Whether the player's hole cards make the hand better than the board's own hand in
    more than the kickers: a higher category, or the same category with other made ranks
    (a hidden pair, trips, two pair, ...)."""
    category = player >> CATEGORY_SHIFT
    if category != board >> CATEGORY_SHIFT:
        return category > board >> CATEGORY_SHIFT
    made = _MADE[category]
    shift = 4 * (5 - made)
    return made > 0 and (player >> shift) != (board >> shift)


def river_plays(hole: Sequence[int], board: Sequence[int]) -> bool:
    """Whether to Play 1x at the river rather than fold (after checking twice)."""
    player = rank_cards([*hole, *board])
    if player >= _PAIR and _hidden(player, rank_cards(board)):
        return True
    seen = {*hole, *board}
    unseen = [c for c in range(52) if c not in seen]
    return count_better(board, unseen, player, DEALER_OUTS_LIMIT) < DEALER_OUTS_LIMIT


def decide(game: UthRound, seat: int) -> tuple[Action, int]:
    """The strategy's decision for ``seat`` in a live round (bots, the demo, the sim)."""
    from game_server.games.uth.rules.game import Action, Phase

    hole = game.seats[seat].cards
    if game.phase is Phase.PREFLOP:
        multiple = preflop_multiple(hole)
        return (Action.PLAY, multiple) if multiple else (Action.CHECK, 0)
    if game.phase is Phase.FLOP:
        return (Action.PLAY, 2) if flop_plays(hole, game.board) else (Action.CHECK, 0)
    return (Action.PLAY, 1) if river_plays(hole, game.board) else (Action.FOLD, 0)
