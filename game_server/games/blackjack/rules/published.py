"""The published basic strategy charts for Blackjack, kept to compare the analysis' own charts
with (``etg strategy`` lists where they differ; the bots never play these).

Source: the Wizard of Odds (Michael Shackleford) total-dependent basic strategy for 4 to 8
decks, "dealer stands on soft 17" and "dealer hits soft 17" charts (wizardofodds.com, Blackjack
strategy), with their notation:

- ``H`` hit, ``S`` stand;
- ``Dh`` double if allowed, otherwise hit; ``Ds`` double if allowed, otherwise stand;
- ``Rh`` / ``Rs`` surrender if allowed, otherwise hit / stand;
- ``P`` split; ``Ph`` split if doubling after a split is allowed, otherwise play the total;
  ``Rp`` surrender if allowed, otherwise split; ``-`` do not split, play the total.

Entry points: :data:`HARD_S17`, :data:`SOFT_S17`, :data:`PAIRS_S17` and the ``H17`` three,
:func:`published_play`.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "COLUMNS",
    "HARD_H17",
    "HARD_S17",
    "PAIRS_H17",
    "PAIRS_S17",
    "SOFT_H17",
    "SOFT_S17",
    "published_play",
]

#: Dealer upcards in chart column order: 2..10, then the ace (BJ value 1).
COLUMNS: Final = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)

# Each chart row lists the play against dealer 2, 3, 4, 5, 6, 7, 8, 9, 10, A.
# Hard totals 4-8 are all "H"; the rows start at 9. 17 and up always stand.
HARD_S17: Final = {
    9: "H  Dh Dh Dh Dh H  H  H  H  H",
    10: "Dh Dh Dh Dh Dh Dh Dh Dh H  H",
    11: "Dh Dh Dh Dh Dh Dh Dh Dh Dh H",
    12: "H  H  S  S  S  H  H  H  H  H",
    13: "S  S  S  S  S  H  H  H  H  H",
    14: "S  S  S  S  S  H  H  H  H  H",
    15: "S  S  S  S  S  H  H  H  Rh H",
    16: "S  S  S  S  S  H  H  Rh Rh Rh",
    17: "S  S  S  S  S  S  S  S  S  S",
}
HARD_H17: Final = HARD_S17 | {
    11: "Dh Dh Dh Dh Dh Dh Dh Dh Dh Dh",
    15: "S  S  S  S  S  H  H  H  Rh Rh",
    17: "S  S  S  S  S  S  S  S  S  Rs",
}

# Soft totals: 12 is A,A that may not be split; 13 is A,2 ... 20 is A,9; 21 always stands.
SOFT_S17: Final = {
    12: "H  H  H  H  H  H  H  H  H  H",
    13: "H  H  H  Dh Dh H  H  H  H  H",
    14: "H  H  H  Dh Dh H  H  H  H  H",
    15: "H  H  Dh Dh Dh H  H  H  H  H",
    16: "H  H  Dh Dh Dh H  H  H  H  H",
    17: "H  Dh Dh Dh Dh H  H  H  H  H",
    18: "S  Ds Ds Ds Ds S  S  H  H  H",
    19: "S  S  S  S  S  S  S  S  S  S",
    20: "S  S  S  S  S  S  S  S  S  S",
}
SOFT_H17: Final = SOFT_S17 | {
    18: "Ds Ds Ds Ds Ds S  S  H  H  H",
    19: "S  S  S  S  Ds S  S  S  S  S",
}

# Pairs, keyed by the BJ value of one card (1 = aces). Only whether to split; "-" plays the
# total (5,5 as hard 10, T,T as hard 20, 9,9 against 7 as hard 18, ...).
PAIRS_S17: Final = {
    1: "P  P  P  P  P  P  P  P  P  P",
    2: "Ph Ph P  P  P  P  -  -  -  -",
    3: "Ph Ph P  P  P  P  -  -  -  -",
    4: "-  -  -  Ph Ph -  -  -  -  -",
    5: "-  -  -  -  -  -  -  -  -  -",
    6: "Ph P  P  P  P  -  -  -  -  -",
    7: "P  P  P  P  P  P  -  -  -  -",
    8: "P  P  P  P  P  P  P  P  P  P",
    9: "P  P  P  P  P  -  P  P  -  -",
    10: "-  -  -  -  -  -  -  -  -  -",
}
PAIRS_H17: Final = PAIRS_S17 | {
    8: "P  P  P  P  P  P  P  P  P  Rp",
}


def published_play(code: str, *, das: bool, surrender: bool, double: bool) -> str:
    """A published cell's play for a table's rules as one letter (``R``, ``P``, ``D``,
    ``H``, ``S``; ``-`` for a pair cell that plays its total): the first it allows on the
    first two cards."""
    if code in ("Rh", "Rs", "Rp") and surrender:
        return "R"
    if code in ("P", "Rp") or (code == "Ph" and das):
        return "P"
    if code in ("Ph", "-"):
        return "-"
    if code in ("Dh", "Ds"):
        return "D" if double else code[1].upper()
    if code in ("Rh", "Rs"):
        return code[1].upper()
    return code
