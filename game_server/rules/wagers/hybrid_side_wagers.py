"""Royal Match 21, Bet the Set and King's Bounty: the optional wagers of the no-hole-card
hybrid table, 58 Pa. Code 633b.5(x), (dd), (ee)(3)-(5).

633b.5(x) lets a certificate holder offer "Royal Match 21, Bet the Set or Kings Bounty wagers as
provided in § 633a.6(e)(4)—(6)", settled under 633a.7(g)(4)-(6) (633b.5(dd)) and paid "as
provided in § 633a.13(f)", "(g)" and "(h)" (633b.5(ee)(3)-(5)). **None of 633a.6, 633a.7 or
633a.13 is in the regulation text this product holds** (see
the team's regulation notes, regs-633a.md), so the definitions and paytables below are the
commonly published ones of these wagers, **not regulation text**: the certificate holder's
Rules Submission (601a.10(a)) states the table it uses, and :func:`paytable_from_lines`
builds any other from line names and pays (``{"Royal Match": "25 to 1", ...}``).

Definitions used (the player's first two cards are, at this table, the first and third cards
of the round, which every player shares, 633b.5(y)(1), (3); the dealer's first two cards are
the dealer's up card and the hole card designated FOR THAT PLAYER, 633b.5(aa)-(bb)):

- **Royal Match 21** (:data:`ROYAL_MATCH_21`, 633a.6(e)(4)): wins when the player's first two
  cards are of one suit ("Easy Match"); more for a king and queen of one suit ("Royal
  Match"); on some tables more for a suited ace and ten-value card ("Suited Blackjack").
  633a.1 defines the "Crown Treasure bonus—An additional payout when both the player and
  dealer have a Royal Match" (verbatim in the notes); its amount was not found, so no default
  table has it and a Rules Submission adds it as the line ``"Crown Treasure Bonus"``, read as
  the whole pay of a hand where both have a Royal Match (the Royal Match pay included; only
  the highest line is paid). Sources: the Shuffle Master Royal Match "Version 1" (Royal
  Match 25 to 1, Easy Match 5 to 2; house edge 6.6658% with six decks), "Version 2"
  (10 to 1, 3 to 1) and "Version 3" (adds Suited Blackjack 5 to 1) on the Wizard of Odds'
  Royal Match page (wizardofodds.com/games/blackjack/side-bets/royal-match/, as mirrored);
  the same 25 to 1 / 5 to 2 table on casino rack cards (emeraldqueen.com/royal-match/,
  pokerstars.uk "How to Use the Royal Match Side Bet"). The wager settles when the player's
  dealer hand has its second card (:attr:`Moment.AFTER_HOLE_CARD`) so that the Crown
  Treasure line can be decided.
- **Bet the Set** (:data:`BET_THE_SET`, 633a.6(e)(5), "Bet the Set 21", also sold as "Pair
  Square" and "Any Pair"): wins when the player's first two cards are a pair (same rank),
  more when the pair is suited (same rank and suit); the dealer's cards do not matter ("It
  doesn't matter what the dealer has, not even blackjack": Gaming Today, "Betting the 'Set'",
  Dec. 27, 2005, which says the game has three paytables by deck count paying "anywhere from
  10- to 25-to-1"). The tables are the Wizard of Odds' Pair Square page
  (wizardofodds.com/games/blackjack/side-bets/pair-square/): "15-10" (suited pair 15 to 1,
  pair 10 to 1; six decks, named "much more common for the six-deck game" by E. Jacobson,
  "Beating the Pair Square (Bet the Set) Blackjack Side Bet", 888casino blog), "20-10",
  "12-10" (six decks) and "25-10" (two decks). A brief for this module also mentioned a
  three-of-a-kind with the dealer's up card; no published Bet the Set 21 table found pays
  one, so none is declared (a Rules Submission line name other than the two is refused).
  Settles right after the deal (:attr:`Moment.AFTER_DEAL`).
- **King's Bounty** (:data:`KINGS_BOUNTY`, 633a.6(e)(6)): wins on the player's first two cards
  totalling 20; only the highest line is paid: two kings of spades with a dealer Blackjack,
  two kings of spades, two suited kings, two suited queens, jacks or tens, a suited 20 (an
  ace and a nine count 20), two unsuited kings, an unsuited 20. Tables: six decks 1000 / 100 /
  30 / 20 / 9 / 6 / 4 to 1 (house edge 23.164%), two decks 1000 / 200 / 50 / 25 / 9 / 6 / 4
  to 1 (24.733%) (E. Jacobson, apheat.net 2013-06-08 "Card Counting the King's Bounty
  Blackjack Side Bet: 6 Decks" and advancedadvantageplay.com 2022 "...: 2 Decks"). Settles
  when the player's dealer hand has its second card (the "dealer blackjack" of the top
  line is the player's own dealer hand).

Exact counts (:func:`exact_counts` of each wager) are over ordered deals of the player's two
cards and the dealer's two cards from a shoe of ``decks`` decks: at this table the hole card
is a card nobody has seen when the first three are dealt, so it is distributed as a random
card of the rest of the shoe whatever the players choose.

Entry points: :data:`ROYAL_MATCH_21`, :data:`BET_THE_SET`, :data:`KINGS_BOUNTY`,
:data:`HYBRID_SIDE_WAGERS`, :func:`paytable_from_lines`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import partial

from game_server.rules.twenty_one import hand_total, is_blackjack
from game_server.rules.wagers.base import (
    NO_OPTIONS,
    Moment,
    Options,
    Paytable,
    PaytableLine,
    PaytableLinesError,  # noqa: F401 - this wager's error
    SideWager,
    SideWagerContext,
    TableType,
    stated_paytable,
)
from game_server.rules.wagers.math import win_per_unit
from shared.cards import CARDS, KING, QUEEN, SPADES, Card
from shared.money import ToOne

# ------------------------------------------------------------------------- line names

CROWN_TREASURE = "Crown Treasure Bonus"
ROYAL_MATCH = "Royal Match"
SUITED_BLACKJACK = "Suited Blackjack"
EASY_MATCH = "Easy Match"
ROYAL_MATCH_LINES = (CROWN_TREASURE, ROYAL_MATCH, SUITED_BLACKJACK, EASY_MATCH)

SUITED_PAIR = "Suited Pair"
PAIR = "Pair"
BET_THE_SET_LINES = (SUITED_PAIR, PAIR)

KS_PAIR_DEALER_BJ = "Pair of Kings of Spades with Dealer Blackjack"
KS_PAIR = "Pair of Kings of Spades"
SUITED_KINGS = "Suited Kings"
SUITED_QJT = "Suited Queens, Jacks or Tens"
SUITED_20 = "Suited 20"
UNSUITED_KINGS = "Unsuited Kings"
UNSUITED_20 = "Unsuited 20"
KINGS_BOUNTY_LINES = (
    KS_PAIR_DEALER_BJ,
    KS_PAIR,
    SUITED_KINGS,
    SUITED_QJT,
    SUITED_20,
    UNSUITED_KINGS,
    UNSUITED_20,
)

_NO_HOLE = frozenset({TableType.HYBRID_NO_HOLE_CARD})


def _table(name: str, lines: Sequence[tuple[str, ToOne]]) -> Paytable:
    return Paytable(name, tuple(PaytableLine(line, pay) for line, pay in lines))


# Commonly published tables, not regulation text: see the module docstring for sources.
ROYAL_MATCH_PAYTABLES = {
    t.name: t
    for t in (
        _table("Version 1", ((ROYAL_MATCH, ToOne(25)), (EASY_MATCH, ToOne(5, 2)))),
        _table("Version 2", ((ROYAL_MATCH, ToOne(10)), (EASY_MATCH, ToOne(3)))),
        _table(
            "Version 3",
            (
                (ROYAL_MATCH, ToOne(25)),
                (SUITED_BLACKJACK, ToOne(5)),
                (EASY_MATCH, ToOne(5, 2)),
            ),
        ),
    )
}
BET_THE_SET_PAYTABLES = {
    t.name: t
    for t in (
        _table("15-10", ((SUITED_PAIR, ToOne(15)), (PAIR, ToOne(10)))),
        _table("20-10", ((SUITED_PAIR, ToOne(20)), (PAIR, ToOne(10)))),
        _table("12-10", ((SUITED_PAIR, ToOne(12)), (PAIR, ToOne(10)))),
        _table("25-10", ((SUITED_PAIR, ToOne(25)), (PAIR, ToOne(10)))),
    )
}
KINGS_BOUNTY_PAYTABLES = {
    t.name: t
    for t in (
        _table(
            "Six Decks",
            tuple(zip(KINGS_BOUNTY_LINES, map(ToOne, (1000, 100, 30, 20, 9, 6, 4)), strict=True)),
        ),
        _table(
            "Two Decks",
            tuple(zip(KINGS_BOUNTY_LINES, map(ToOne, (1000, 200, 50, 25, 9, 6, 4)), strict=True)),
        ),
    )
}


# --------------------------------------------------------------------------- classify


def _suit(c: Card) -> int:
    return int(c) & 3


def _rank(c: Card) -> int:
    return (int(c) >> 2) + 2


def _is_royal_match(cards: Sequence[Card]) -> bool:
    """A king and a queen of one suit."""
    a, b = cards
    return _suit(a) == _suit(b) and {_rank(a), _rank(b)} == {KING, QUEEN}


def royal_match_lines(player: Sequence[Card], dealer: Sequence[Card]) -> tuple[str, ...]:
    """The Royal Match 21 lines the player's first two cards (and, for the Crown Treasure
    Bonus, the dealer's first two) satisfy, highest first."""
    a, b = player
    if _suit(a) != _suit(b):
        return ()
    found: list[str] = []
    if _is_royal_match(player):
        if len(dealer) >= 2 and _is_royal_match(dealer[:2]):
            found.append(CROWN_TREASURE)
        found.append(ROYAL_MATCH)
    if is_blackjack(player):
        found.append(SUITED_BLACKJACK)
    found.append(EASY_MATCH)
    return tuple(found)


def bet_the_set_lines(player: Sequence[Card]) -> tuple[str, ...]:
    """The Bet the Set lines of the player's first two cards, highest first."""
    a, b = player
    if _rank(a) != _rank(b):
        return ()
    return (SUITED_PAIR, PAIR) if _suit(a) == _suit(b) else (PAIR,)


def kings_bounty_lines(player: Sequence[Card], dealer_blackjack: bool) -> tuple[str, ...]:
    """The King's Bounty lines of the player's first two cards, highest first."""
    total, _ = hand_total(player)
    if total != 20 or len(player) != 2:
        return ()
    a, b = player
    suited = _suit(a) == _suit(b)
    kings = _rank(a) == _rank(b) == KING
    found: list[str] = []
    if kings and suited and _suit(a) == SPADES:
        if dealer_blackjack:
            found.append(KS_PAIR_DEALER_BJ)
        found.append(KS_PAIR)
    if suited:
        if kings:
            found.append(SUITED_KINGS)
        elif _rank(a) == _rank(b):
            found.append(SUITED_QJT)
        found.append(SUITED_20)
        return tuple(found)
    if kings:
        found.append(UNSUITED_KINGS)
    found.append(UNSUITED_20)
    return tuple(found)


def highest_line(names: Sequence[str], paytable: Paytable) -> PaytableLine | None:
    """The paytable's first line (highest first) among ``names``, or None."""
    for line in paytable.lines:
        if line.name in names:
            return line
    return None


def evaluate_royal_match(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633a.6(e)(4) as commonly defined: the player's first two cards (and the dealer's first
    two for the Crown Treasure Bonus)."""
    return highest_line(royal_match_lines(ctx.player_cards, ctx.dealer_cards), paytable)


def evaluate_bet_the_set(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633a.6(e)(5) as commonly defined: a pair as the player's first two cards."""
    return highest_line(bet_the_set_lines(ctx.player_cards), paytable)


def evaluate_kings_bounty(ctx: SideWagerContext, paytable: Paytable) -> PaytableLine | None:
    """633a.6(e)(6) as commonly defined: a total of 20 as the player's first two cards."""
    return highest_line(kings_bounty_lines(ctx.player_cards, ctx.dealer_blackjack), paytable)


# ------------------------------------------------------------------ Rules Submission


def _builder(
    title: str, cite: str, line_names: tuple[str, ...]
) -> Callable[[str, Mapping[str, str]], Paytable]:
    # A partial of a module function (not a closure): offers travel to simulation workers.
    return partial(paytable_from_lines, title=title, cite=cite, line_names=line_names)


#: A paytable stated line by line in the Rules Submission (601a.10(a)), for one of the three
#: wagers: :func:`~game_server.rules.wagers.base.stated_paytable`.
paytable_from_lines = stated_paytable


# ---------------------------------------------------------------------- exact counts

_TEN_CODES = tuple(c for c in CARDS if _rank(c) in (10, 11, 12, KING))
_ACE_CODES = tuple(c for c in CARDS if _rank(c) == 14)


def _pair_weight(a: Card, b: Card, decks: int) -> int:
    """Ordered deals of ``a`` then ``b`` from ``decks`` decks."""
    return decks * (decks - 1) if a == b else decks * decks


def _remaining(card: Card, decks: int, removed: Sequence[Card]) -> int:
    return decks - sum(1 for r in removed if r == card)


def _dealer_count(decks: int, removed: Sequence[Card], wanted: Callable[[Card, Card], bool]) -> int:
    """Ordered deals of the dealer's two cards from the shoe less ``removed`` that satisfy
    ``wanted`` (only the few hands that need it call this)."""
    total = 0
    for a in CARDS:
        na = _remaining(a, decks, removed)
        if na <= 0:
            continue
        for b in CARDS:
            nb = _remaining(b, decks, removed) - (1 if a == b else 0)
            if nb > 0 and wanted(a, b):
                total += na * nb
    return total


def _four_card_counts(
    decks: int,
    paytable: Paytable,
    classify: Callable[[Card, Card], tuple[str, ...]],
    dealer_line: str | None,
    dealer_wanted: Callable[[Card, Card], bool],
    dealer_needed: Callable[[tuple[str, ...]], bool],
) -> dict[str | None, int]:
    """Per line of ``paytable``, ordered deals of the player's two and the dealer's two cards.

    ``classify`` gives the lines of the player's cards without the dealer; where
    ``dealer_needed`` says so, ``dealer_wanted`` dealer hands move the deal up to
    ``dealer_line``.
    """
    if decks < 1:
        raise ValueError(f"a shoe holds at least one deck, not {decks}")
    n = 52 * decks
    rest = (n - 2) * (n - 3)
    counts: dict[str | None, int] = {None: 0}
    counts.update({line.name: 0 for line in paytable.lines})
    for a in CARDS:
        for b in CARDS:
            weight = _pair_weight(a, b, decks)
            if weight <= 0:
                continue
            names = classify(a, b)
            with_dealer = 0
            if dealer_line is not None and dealer_needed(names):
                with_dealer = _dealer_count(decks, (a, b), dealer_wanted)
                line = highest_line((dealer_line, *names), paytable)
                key = None if line is None else line.name
                counts[key] += weight * with_dealer
            line = highest_line(names, paytable)
            key = None if line is None else line.name
            counts[key] += weight * (rest - with_dealer)
    return counts


def royal_match_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """Ordered deals of the player's two and the dealer's two cards, per Royal Match line."""
    return _four_card_counts(
        decks,
        paytable,
        lambda a, b: royal_match_lines((a, b), ()),
        CROWN_TREASURE if any(line.name == CROWN_TREASURE for line in paytable.lines) else None,
        lambda a, b: _is_royal_match((a, b)),
        lambda names: ROYAL_MATCH in names,
    )


def bet_the_set_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """Ordered deals of the player's two and the dealer's two cards, per Bet the Set line."""
    return _four_card_counts(
        decks, paytable, lambda a, b: bet_the_set_lines((a, b)), None, _never, _never_names
    )


def kings_bounty_counts(
    decks: int, paytable: Paytable, options: Options = NO_OPTIONS
) -> dict[str | None, int]:
    """Ordered deals of the player's two and the dealer's two cards, per King's Bounty line."""
    return _four_card_counts(
        decks,
        paytable,
        lambda a, b: kings_bounty_lines((a, b), False),
        KS_PAIR_DEALER_BJ,
        lambda a, b: is_blackjack((a, b)),
        lambda names: KS_PAIR in names,
    )


def _never(a: Card, b: Card) -> bool:
    return False


def _never_names(names: tuple[str, ...]) -> bool:
    return False


def house_edge(counts: Mapping[str | None, int], paytable: Paytable) -> Fraction:
    """Minus the expected result of one unit staked."""
    total = sum(counts.values())
    expected = Fraction(-counts.get(None, 0), total)
    for line in paytable.lines:
        win = win_per_unit(line.pay, None)
        if win is None:
            raise ValueError(f"{paytable.name} line {line.name!r} pays a meter share")
        expected += Fraction(counts.get(line.name, 0), total) * win
    return -expected


# ------------------------------------------------------------------------ declarations

SECTION = "58 Pa. Code 633a.6(e)"

ROYAL_MATCH_21 = SideWager(
    name="royal_match_21",
    title="Royal Match 21",
    section="58 Pa. Code 633a.6(e)(4)",
    settles_at=Moment.AFTER_HOLE_CARD,
    paytables=ROYAL_MATCH_PAYTABLES,
    evaluate=evaluate_royal_match,
    paytable_from_lines=_builder("Royal Match 21", "633a.6(e)(4)", ROYAL_MATCH_LINES),
    requires=("blackjack",),
    table_types=_NO_HOLE,
    cites={"requires": " and 633b.5(x)", "table_types": "633b.5(x)"},
)
BET_THE_SET = SideWager(
    name="bet_the_set",
    title="Bet the Set",
    section="58 Pa. Code 633a.6(e)(5)",
    settles_at=Moment.AFTER_DEAL,
    paytables=BET_THE_SET_PAYTABLES,
    evaluate=evaluate_bet_the_set,
    paytable_from_lines=_builder("Bet the Set", "633a.6(e)(5)", BET_THE_SET_LINES),
    requires=("blackjack",),
    table_types=_NO_HOLE,
    cites={"requires": " and 633b.5(x)", "table_types": "633b.5(x)"},
)
KINGS_BOUNTY = SideWager(
    name="kings_bounty",
    title="King's Bounty",
    section="58 Pa. Code 633a.6(e)(6)",
    settles_at=Moment.AFTER_HOLE_CARD,
    paytables=KINGS_BOUNTY_PAYTABLES,
    evaluate=evaluate_kings_bounty,
    paytable_from_lines=_builder("King's Bounty", "633a.6(e)(6)", KINGS_BOUNTY_LINES),
    requires=("blackjack",),
    table_types=_NO_HOLE,
    cites={"requires": " and 633b.5(x)", "table_types": "633b.5(x)"},
)

#: The only side wagers 633b.5(x) allows at the no-hole-card table, by name.
HYBRID_SIDE_WAGERS: dict[str, SideWager] = {
    w.name: w for w in (ROYAL_MATCH_21, BET_THE_SET, KINGS_BOUNTY)
}
#: Each wager's default paytable (the first published one listed above).
DEFAULT_PAYTABLES = {
    ROYAL_MATCH_21.name: "Version 1",
    BET_THE_SET.name: "15-10",
    KINGS_BOUNTY.name: "Six Decks",
}
#: Exact counts per wager name: ``(decks, paytable, options) -> {line or None: count}``.
EXACT_COUNTS: dict[str, Callable[[int, Paytable, Options], dict[str | None, int]]] = {
    ROYAL_MATCH_21.name: royal_match_counts,
    BET_THE_SET.name: bet_the_set_counts,
    KINGS_BOUNTY.name: kings_bounty_counts,
}
