"""What the Spanish 21 table's optional wagers return, exactly: Match the Dealer (635b.1) and
Insurance from a Spanish shoe. The player-edge guard of the Rules Submission reads them and
``etg par`` states them; the base game is simulated by ``etg par`` and ``etg sim``.

Entry points: :func:`optional_returns`, :func:`match_the_dealer_return`,
:func:`insurance_return`.
"""

from __future__ import annotations

from fractions import Fraction

from game_server.games.blackjack.rules.returns import INSURANCE_PAYTABLE
from game_server.games.spanish21.rules import match_the_dealer as mtd
from game_server.games.spanish21.rules.rules import Spanish21Rules
from game_server.rules.returns import WagerReturn, assemble
from game_server.rules.wagers.base import Paytable

__all__ = ["insurance_return", "match_the_dealer_return", "optional_returns"]


def match_the_dealer_return(paytable: Paytable, decks: int, stake: int) -> WagerReturn:
    """635b.1: the return of a ``stake`` wager on ``paytable`` of the ``decks``-deck tables,
    from :func:`~.match_the_dealer.exact_counts` (its meter lines at the meter's reset)."""
    counts = mtd.exact_counts(decks)
    total = sum(counts.values())
    return assemble(
        wager=mtd.NAME,
        title=mtd.TITLE,
        section=mtd.SECTION,
        paytable=paytable,
        cite=f"{mtd.SECTION}(a), (i)",
        chances={line: Fraction(n, total) for line, n in counts.items()},
        stake=stake,
        counted=f"{total:,} {mtd.COUNTED} from {decks} 48-card decks",
        notes=(
            "reading: two winners of the meter in one round are each paid their own share, "
            "in seat order, from the meter as it stands (635b.1 is silent)",
        ),
    )


def insurance_return(decks: int) -> WagerReturn:
    """Insurance pays 2 to 1 when the dealer's hole card under his ace is a face card: 12d of
    the 48d - 1 other cards of a Spanish shoe (the player's own cards unknown)."""
    face = Fraction(12 * decks, 48 * decks - 1)
    return assemble(
        wager="insurance",
        title="Insurance",
        section="58 Pa. Code 635a",
        paytable=INSURANCE_PAYTABLE,
        cite="58 Pa. Code 635a (secondary source)",
        chances={"Dealer Blackjack": face, None: 1 - face},
        stake=100,
        counted="the hole card under the dealer's ace, of the Spanish shoe less the ace",
        notes=("basic strategy never takes it: left out of the table's hold",),
    )


def optional_returns(rules: Spanish21Rules) -> list[WagerReturn]:
    """Insurance if offered, and Match the Dealer if offered (its smallest and only stake)."""
    out = [insurance_return(rules.decks)] if rules.insurance else []
    for offer in rules.side_wagers:
        out.append(match_the_dealer_return(offer.paytable, rules.decks, offer.limits.minimum))
    return out
