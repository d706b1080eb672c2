"""The published Spanish 21 basic strategy, kept to compare the analysis' own chart with
(``etg strategy`` lists each difference with the analysis' values; the bots never play it).

Source: the Wizard of Odds (Michael Shackleford) Spanish 21 basic strategy for six to eight
decks, dealer hits soft 17 (wizardofodds.com, Spanish 21), whose chart is published as a
picture; read here from its machine-readable transcription in the public repository
Hannibal96/BlackjaclCpp, ``basic_strategy_tables/spanish21/h17.json`` (commit a9d00535),
which gives each cell per number of cards, 2 to 6 (6: six or more). Each cell below is the
five plays for 2, 3, 4, 5 and 6+ cards: ``H`` hit, ``S`` stand, ``D`` double (else hit),
``R`` surrender (else hit; the transcription's ``Xh``), ``P`` split, ``Q`` surrender else
split (its ``Xs``). Pairs have one play (two cards).

Not transcribed: the S17 chart (``s17.json`` of the same repository) and the after-double
chart (published only for redoubling rules, which these tables do not offer).

Entry points: :data:`HARD_H17`, :data:`SOFT_H17`, :data:`PAIRS_H17`, :data:`COLUMNS`.
"""

from __future__ import annotations

from typing import Final

__all__ = ["COLUMNS", "HARD_H17", "PAIRS_H17", "SOFT_H17"]

#: Dealer up cards in column order: 2..10, then the ace.
COLUMNS: Final = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)

_H = "HHHHH"
_S = "SSSSS"

#: Hard totals 4 to 21, against 2, 3, 4, 5, 6, 7, 8, 9, 10, A.
HARD_H17: Final = {
    **{t: (_H,) * 10 for t in range(4, 9)},
    9: (_H, _H, _H, _H, "DDDDD", _H, _H, _H, _H, _H),
    10: ("DDDHH", "DDDHH", "DDDDD", "DDDDD", "DDDDD", "DDHHH", "DHHHH", _H, _H, _H),
    11: ("DDHHH", "DDDHH", "DDDHH", "DDDHH", "DDDHH", "DDHHH", "DDHHH", "DDHHH", "DHHHH", "DHHHH"),
    12: (_H,) * 10,
    13: (_H, _H, _H, _H, "SSHHH", _H, _H, _H, _H, _H),
    14: (_H, _H, "SSHHH", "SSSHH", "SSSSH", _H, _H, _H, _H, _H),
    15: ("SSHHH", "SSSHH", "SSSSH", "SSSSH", _S, _H, _H, _H, _H, _H),
    16: ("SSSSH", "SSSSH", "SSSSH", _S, _S, _H, _H, _H, _H, "RRRRR"),
    17: (_S, _S, _S, _S, _S, _S, "SSSSH", "SSSSH", "SSSSH", "RRRRR"),
    **{t: (_S,) * 10 for t in range(18, 22)},
}
#: Soft totals 12 to 21.
SOFT_H17: Final = {
    12: (_H,) * 10,
    13: (_H,) * 10,
    14: (_H,) * 10,
    15: (_H, _H, _H, _H, "DDHHH", _H, _H, _H, _H, _H),
    16: (_H, _H, _H, "DHHHH", "DDHHH", _H, _H, _H, _H, _H),
    17: (_H, _H, "DHHHH", "DDHHH", "DDDHH", _H, _H, _H, _H, _H),
    18: ("SSHHH", "SSHHH", "DDHHH", "DDDHH", "DDDDH", "SSSSH", "SSHHH", _H, _H, _H),
    19: (_S, _S, _S, _S, _S, _S, _S, _S, "SSSSH", "SSSSH"),
    20: (_S,) * 10,
    21: (_S,) * 10,
}
#: Pairs by card value (1: aces), two cards.
PAIRS_H17: Final = {
    1: "PPPPPPPPPP",
    2: "PPPPPPPHHH",
    3: "PPPPPPPHHH",
    4: "HHHHHHHHHH",
    5: "DDDDDDDHHH",
    6: "HHPPPHHHHH",
    7: "PPPPPPHHHH",
    8: "PPPPPPPPPQ",
    9: "SPPPPSPPSS",
    10: "SSSSSSSSSS",
}
