"""Money: integer cents, and the two ways the regulations state a payout.

All amounts are ``int`` cents; floats never hold money. The regulations write payouts two
ways (docs/design.md "Money"):

- ``ToOne(a, b)`` -- "a to b": a winning wager ``w`` keeps its stake and wins ``w * a // b``.
- ``ForOne(a)`` -- "a for 1": the player receives ``w * a`` *including* the stake, so the win
  is ``w * (a - 1)``.

``Fixed(cents)`` pays a set amount on top of the stake, and ``MeterShare(percent)`` pays a
share of a progressive meter (resolved by the meter, not here).

Entry points: :func:`parse_money`, :func:`format_money`, :func:`parse_pay`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from shared.errors import MoneyError

CENTS_PER_DOLLAR: Final = 100
MILLICENTS_PER_CENT: Final = 1000

_MONEY_RE: Final = re.compile(r"^\$?(?P<dollars>\d{1,12})(?:\.(?P<cents>\d{2}))?$")


def parse_money(text: str | int) -> int:
    """Parse a dollar amount into cents: ``"25"``, ``"$25.00"``, ``"1,000.50"``.

    An ``int`` is taken as cents already. Negative amounts, fractions of a cent and
    anything that is not a number raise :class:`MoneyError`.
    """
    if isinstance(text, bool):
        raise MoneyError(f"{text!r} is not an amount of money")
    if isinstance(text, int):
        if text < 0:
            raise MoneyError(f"amount {text} cents is negative")
        return text
    if not isinstance(text, str):
        raise MoneyError(f"{text!r} is not an amount of money: write it as text like '25.00'")
    match = _MONEY_RE.match(text.strip().replace(",", ""))
    if match is None:
        raise MoneyError(
            f"{text!r} is not an amount of money: write dollars with at most two decimals, "
            "e.g. '25' or '$25.50'"
        )
    return int(match["dollars"]) * CENTS_PER_DOLLAR + int(match["cents"] or 0)


def format_money(cents: int) -> str:
    """``2550 -> "$25.50"``, ``-100 -> "-$1.00"``, with thousands separators."""
    sign = "-" if cents < 0 else ""
    dollars, rest = divmod(abs(cents), CENTS_PER_DOLLAR)
    return f"{sign}${dollars:,}.{rest:02d}"


@dataclass(frozen=True, slots=True)
class ToOne:
    """A payout of ``a`` to ``b``: the stake comes back and ``stake * a // b`` is won."""

    a: int
    b: int = 1

    def __post_init__(self) -> None:
        if self.a < 0 or self.b <= 0:
            raise MoneyError(f"payout {self.a} to {self.b} is not valid")

    def win(self, stake: int) -> int:
        """The amount won on top of the returned stake."""
        return stake * self.a // self.b

    def total_return(self, stake: int) -> int:
        """Stake plus winnings: what a winning wager puts back in the player's credits."""
        return stake + stake * self.a // self.b

    def exact_for(self, stake: int) -> bool:
        """True when this payout on ``stake`` needs no rounding."""
        return stake * self.a % self.b == 0

    def __str__(self) -> str:
        return f"{self.a} to {self.b}"


@dataclass(frozen=True, slots=True)
class ForOne:
    """A payout of ``a`` for 1: the player receives ``stake * a`` including the stake."""

    a: int

    def __post_init__(self) -> None:
        if self.a < 1:
            raise MoneyError(f"payout {self.a} for 1 is not valid: it must be at least 1 for 1")

    def win(self, stake: int) -> int:
        return stake * (self.a - 1)

    def total_return(self, stake: int) -> int:
        return stake * self.a

    def exact_for(self, stake: int) -> bool:
        return True

    def __str__(self) -> str:
        return f"{self.a} for 1"


@dataclass(frozen=True, slots=True)
class Fixed:
    """A fixed amount in cents won on top of the returned stake."""

    cents: int

    def __post_init__(self) -> None:
        if self.cents < 0:
            raise MoneyError(f"fixed payout {self.cents} cents is negative")

    def win(self, stake: int) -> int:
        return self.cents

    def total_return(self, stake: int) -> int:
        return stake + self.cents

    def exact_for(self, stake: int) -> bool:
        return True

    def __str__(self) -> str:
        return format_money(self.cents)


@dataclass(frozen=True, slots=True)
class MeterShare:
    """A share of a progressive meter, in percent (resolved against the meter at pay time).

    ``meter`` names the meter when a paytable has several (633b.6(i): "Star Progressive",
    "Heart Progressive", ...); empty for a wager's only meter."""

    percent: int
    meter: str = ""

    def __post_init__(self) -> None:
        if not 0 < self.percent <= 100:
            raise MoneyError(f"meter share {self.percent}% is not within 1..100")

    def __str__(self) -> str:
        if self.meter:
            return f"{self.percent}% of the {self.meter}"
        return f"{self.percent}% of meter"


Pay = ToOne | ForOne | Fixed | MeterShare
#: Pays that resolve from the stake alone (no meter).
StakePay = ToOne | ForOne | Fixed

_PAY_RE: Final = re.compile(
    r"^\s*(?:(?P<a>\d+)\s+to\s+(?P<b>\d+)|(?P<f>\d+)\s+for\s+1|(?P<p>\d+)\s*%(?:\s+of\s+meter)?)\s*$",
    re.IGNORECASE,
)


def parse_pay(text: str) -> Pay:
    """Parse a payout as the regulations write it: ``"3 to 2"``, ``"25 for 1"``, ``"10%"``."""
    match = _PAY_RE.match(text.replace(",", ""))
    if match is None:
        raise MoneyError(f"{text!r} is not a payout: write 'a to b', 'a for 1' or 'p% of meter'")
    if match["a"] is not None:
        return ToOne(int(match["a"]), int(match["b"]))
    if match["f"] is not None:
        return ForOne(int(match["f"]))
    return MeterShare(int(match["p"]))
