"""The Five Card Hand Bonus Wager's settlement and exact return, shared by the games that
offer it: Ultimate Texas Hold 'Em (58 Pa. Code 653a.12(e)) and Caribbean Stud Poker (639a.1,
which defines the same wager with the Magic Card Bonus and the Lucky Bonus).

A game computes the (e)(1) line its hand wins (which cards form the hand is the game's) and
hands the rest here: the fold, the meter line shared equally by every wager on the dealer's
hand ((e)(2)), and the Magic Card or Lucky Bonus ((e)(3)), an award of its own with no stake.
The table's terms are read through :class:`FiveCardTerms`; the records are written through
the game's own callbacks, in the order the game logs them.

Entry points: :func:`settle_five_card`, :func:`five_card_return`, :data:`MAGIC_CARD`,
:data:`LUCKY_BONUS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Final, Protocol

from game_server.rules.returns import WagerReturn, assemble
from game_server.rules.wagers.base import LOST, WON, MeterSpec, Paytable, PaytableLine
from shared.cards import Card
from shared.money import ForOne, MeterShare

__all__ = [
    "EVERY_HAND",
    "LUCKY_BONUS",
    "MAGIC_CARD",
    "Bettor",
    "FiveCardTerms",
    "five_card_return",
    "settle_five_card",
]

#: 653a.12(e)(3): Magic Card and Lucky Bonus.
MAGIC_CARD: Final = PaytableLine("Magic Card", ForOne(20))
LUCKY_BONUS: Final = PaytableLine("Lucky Bonus", ForOne(5))

#: The wagers on the player's and on the dealer's hand, and the names of their bonus awards.
FIVE_CARD_PLAYER: Final = "five_card_player"
FIVE_CARD_DEALER: Final = "five_card_dealer"
MAGIC: Final = "_magic_card"
LUCKY: Final = "_lucky_bonus"
#: The ``bonus_on`` reading that pays the Magic Card or Lucky Bonus on every wager, not only
#: on a hand that won an (e)(1) line.
EVERY_HAND: Final = "every-hand"


class FiveCardTerms(Protocol):
    """What the settlement reads of a table's rules."""

    @property
    def seats(self) -> int: ...

    @property
    def magic_card_bonus(self) -> bool: ...

    @property
    def lucky_bonus(self) -> bool: ...

    @property
    def bonus_on(self) -> str: ...

    @property
    def side_wagers_settle_on_fold(self) -> bool: ...


class Bettor(Protocol):
    """One seat with a Five Card Hand Bonus Wager."""

    @property
    def number(self) -> int: ...

    @property
    def folded(self) -> bool: ...

    @property
    def wagers(self) -> Mapping[str, int]: ...


#: ``settled(seat, wager, stake, paid, outcome, line, from_meter)``: log one settlement.
Settled = Callable[[int, str, int, int, str, str, int], None]
#: ``award(meter id, percent, places)``: pay a meter share equally to places; each one's cents.
Award = Callable[[str, int, tuple[str, ...]], int]


def settle_five_card(
    terms: FiveCardTerms,
    bettors: Sequence[Bettor],
    wager: str,
    *,
    line: PaytableLine | None,
    cards: Sequence[Card],
    magic_card: Card | None,
    lucky: bool,
    meter_id: str,
    place: Callable[[int], str],
    award: Award,
    settled: Settled,
    fold_line: str,
    cite: str = "",
) -> None:
    """653a.12(e)(1)-(3): the Five Card Hand Bonus on one hand (a player's, or the dealer's
    for every player who wagered on it, sharing a meter line equally). A wager on the
    dealer's hand stays in action when its player folds (it is not the folded hand); the
    Magic Card or Lucky Bonus is paid as an award of its own, with no stake (an additional
    payout, 653a.1): "a for 1" includes the stake once, so after an (e)(1) line has returned
    the stake the award is a - 1 times the wager, and a times the wager on a hand that won no
    line (the ``every-hand`` reading).

    Args:
        terms: The table's rules.
        bettors: The seats with ``wager``, in seat order.
        wager: :data:`FIVE_CARD_PLAYER` or :data:`FIVE_CARD_DEALER`.
        line: The (e)(1) line the hand wins, None for no line.
        cards: The cards a Magic Card is looked for among.
        magic_card: The Magic Card drawn this round (None: none).
        lucky: Whether the Lucky Bonus position drawn is this hand's.
        meter_id: The Five Card Hand Bonus meter a meter line is paid from.
        place: A seat's betting position, as the meter records it.
        award: Pays a meter share (the game's meter step).
        settled: Logs one settlement.
        fold_line: The line of a wager lost with its folded hand.
        cite: What the lines cite before the 653a.12(e) paragraphs (``"639a.1; "``).
    """
    whose = "dealer's hand" if wager == FIVE_CARD_DEALER else "player's hand"
    live = [
        s
        for s in bettors
        if not (s.folded and wager == FIVE_CARD_PLAYER and not terms.side_wagers_settle_on_fold)
    ]
    for s in bettors:
        if s not in live:
            settled(s.number, wager, s.wagers[wager], 0, LOST, fold_line, 0)
    if not live:
        return
    text = (
        f"Five Card Hand Bonus ({whose}): "
        + ("no win" if line is None else f"{line.name} {line.pay}")
        + f" ({cite}653a.12(e)(1)-(2))"
    )
    if line is None:
        for s in live:
            settled(s.number, wager, s.wagers[wager], 0, LOST, text, 0)
    elif isinstance(line.pay, MeterShare):
        share = award(meter_id, line.pay.percent, tuple(place(s.number) for s in live))
        shared = f"{text}, shared by {len(live)}" if len(live) > 1 else text
        for s in live:
            stake = s.wagers[wager]
            settled(s.number, wager, stake, stake + share, WON, shared, share)
    else:
        for s in live:
            stake = s.wagers[wager]
            settled(s.number, wager, stake, line.pay.total_return(stake), WON, text, 0)
    paid_on_loss = terms.bonus_on == EVERY_HAND
    bonus = None
    if terms.magic_card_bonus and magic_card is not None and magic_card in cards:
        bonus = MAGIC_CARD
    elif terms.lucky_bonus and lucky:
        bonus = LUCKY_BONUS
    if bonus is None or (line is None and not paid_on_loss):
        return
    name = wager + (MAGIC if bonus is MAGIC_CARD else LUCKY)
    pay = bonus.pay
    assert isinstance(pay, ForOne)
    for s in live:
        stake = s.wagers[wager]
        # The (e)(1) line returned the stake already: the "for 1" adds a - 1 units.
        amount = pay.win(stake) if line is not None else pay.total_return(stake)
        said = f"{bonus.name} ({whose}) {pay} ({cite}653a.12(e)(3))"
        settled(s.number, name, 0, amount, WON, said, 0)


def five_card_return(
    terms: FiveCardTerms,
    *,
    wager: str,
    whose: str,
    section: str,
    cite: str,
    bonus_cite: str,
    chances: Mapping[str | None, Fraction],
    paytable: Paytable,
    meter: MeterSpec,
    stake: int,
    magic_in_hand: Fraction,
    counted: str,
    field_name: str,
    readings: Sequence[str] = (),
    reading_field: str = "",
    reading_cite: str = "",
    notes: Sequence[str] = (),
) -> WagerReturn:
    """The exact return of a Five Card Hand Bonus Wager on one hand (653a.12(e)(1)-(3)): the
    (e)(1) ``paytable`` (its meter lines on ``meter``) at their ``chances``, and the Magic
    Card (drawn among the hand's cards ``magic_in_hand`` of the time) or the Lucky Bonus (the
    hand's position, 1 in seats + 1): on a winning hand "a for 1" counts the stake the line
    returned, so it adds a - 1 units; on a hand that won no line (``every-hand``) a units.

    ``readings`` are the game's own readings; the bonus's is added, and an ``every-hand``
    reading names ``<field_name>.bonus_on`` unless ``reading_field`` names another field.
    """
    extras = []
    bonus = MAGIC_CARD if terms.magic_card_bonus else (LUCKY_BONUS if terms.lucky_bonus else None)
    said = list(readings)
    every = terms.bonus_on == EVERY_HAND
    if bonus is not None:
        drawn = magic_in_hand if bonus is MAGIC_CARD else Fraction(1, terms.seats + 1)
        pay = bonus.pay
        assert isinstance(pay, ForOne)
        winning = 1 - chances[None]
        extras.append(
            (
                f"{bonus.name} with a winning hand",
                bonus_cite,
                str(pay),
                drawn * winning,
                Fraction(pay.a - 1),
            )
        )
        if every:
            extras.append(
                (
                    f"{bonus.name} with a hand that wins no line",
                    bonus_cite,
                    str(pay),
                    drawn * chances[None],
                    Fraction(pay.a),
                )
            )
        which = "every hand" if every else "a winning hand"
        said.append(f'the {bonus.name} on {which}, bonus_on = "{terms.bonus_on}"')
    field, field_cite = "", ""
    if bonus is not None and every:
        field, field_cite = f"{field_name}.bonus_on", bonus_cite
    if reading_field:
        field, field_cite = reading_field, reading_cite
    lucky_note = (
        [f"{bonus.name} position drawn among {terms.seats} seats and the dealer"]
        if bonus is LUCKY_BONUS
        else []
    )
    return assemble(
        wager=wager,
        title=f"Five Card Hand Bonus ({whose} hand)",
        section=section,
        paytable=Paytable(paytable.name, paytable.lines, (meter,)),
        cite=cite,
        chances=chances,
        stake=stake,
        counted=counted,
        reading="; ".join(said),
        field_name=field or field_name,
        reading_cite=field_cite,
        extras=extras,
        notes=(*lucky_note, *notes),
    )
