"""What the Blackjack table's optional wagers return: each offered side wager (computed by the
shared :mod:`game_server.rules.returns`) and the Insurance wager, exactly; the player-edge
guard of its Rules Submission reads them.

Entry points: :func:`offered_returns`, :func:`insurance_return`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from game_server.games.blackjack.rules.rules import INSURANCE_PAYS, BlackjackRules
from game_server.rules.returns import MustHitByTerms, WagerReturn, assemble, side_wager_return
from game_server.rules.wagers.base import Paytable, PaytableLine

__all__ = ["INSURANCE_PAYTABLE", "insurance_return", "offered_returns"]


#: 633a.8, 633b.5(v)(2): the Insurance wager, one line.
INSURANCE_PAYTABLE: Final = Paytable("2 to 1", (PaytableLine("Dealer Blackjack", INSURANCE_PAYS),))


def insurance_return(decks: int) -> WagerReturn:
    """633a.8, 633b.5(v)(2): Insurance pays 2 to 1 when the dealer's hole card under his ace
    is a ten-value card: 16D of the 52D - 1 other cards (the player's own cards unknown)."""
    ten = Fraction(16 * decks, 52 * decks - 1)
    return assemble(
        wager="insurance",
        title="Insurance",
        section="58 Pa. Code 633a.8",
        paytable=INSURANCE_PAYTABLE,
        cite="58 Pa. Code 633a.8, 633b.5(v)(2)",
        chances={"Dealer Blackjack": ten, None: 1 - ten},
        stake=100,
        counted="the hole card under the dealer's ace, of the shoe less the ace",
        notes=("basic strategy never takes it: left out of the table's hold",),
    )


def offered_returns(
    rules: BlackjackRules, mystery: MustHitByTerms | None = None
) -> list[WagerReturn]:
    """The return of every side wager a Blackjack table offers, and of Insurance if offered
    (its main game is simulated by ``etg par``); a Must-Hit-By Mystery Bonus (633b.14) adds
    its meter to each qualifying wager."""
    out = []
    for offer in rules.side_wagers:
        extra = (
            (mystery.spec,)
            if mystery is not None and offer.wager.name in mystery.qualifying
            else ()
        )
        out.append(side_wager_return(offer, rules, extra))
    if rules.insurance:
        out.insert(0, insurance_return(rules.decks))
    return out
