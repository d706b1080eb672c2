"""Wallets and meters as a fold over the log: the one definition of every balance.

The live table, crash recovery and ``etg verify`` all fold the same events through
:class:`Ledger`, so a wallet's balance is by construction the fold of the log (the [server]
requirement "a wallet's balance always equals the fold of the log").

Each game names its wager records (:meth:`~game_server.games.api.Game.placed_kinds`,
``settled_kinds``, ``completed_kinds``): a placed wager debits the terminal's wallet, a
settlement credits what it ``paid`` (the stake included; a ``from_meter`` part of it is what a
progressive meter paid, not the house), and a round's completion counts a game.

Meters follow 58 Pa. Code 605a.5(d): coin in (every wager), coin out (what winning wagers
paid), games played; per wager and per table; they are never reset.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from game_server.rules.errors import RulesError
from game_server.rules.meters import LinkedMeterAwarded, MeterAwarded, MysteryAwarded
from game_server.table.events import CreditsIn, CreditsOut
from shared.money import format_money


class LedgerError(RulesError):
    """The log implies an impossible balance (negative, or not the logged one)."""


PLACED: Final = "placed"
SETTLED: Final = "settled"
COMPLETED: Final = "completed"

_ROLES: dict[int, Mapping[type, str]] = {}


def wager_roles() -> Mapping[type, str]:
    """Each registered game's wager records by what they do to a wallet: :data:`PLACED`,
    :data:`SETTLED` or :data:`COMPLETED` (kept for the registry's generation).

    Raises:
        LedgerError: two games give one kind of record two roles.
    """
    from game_server import games

    generation = games.generation()
    roles = _ROLES.get(generation)
    if roles is None:
        found: dict[type, str] = {}
        for game in games.games():
            for role, kinds in (
                (PLACED, game.placed_kinds),
                (SETTLED, game.settled_kinds),
                (COMPLETED, game.completed_kinds),
            ):
                for kind in kinds:
                    if found.setdefault(kind, role) != role:
                        raise LedgerError(f"{kind.__name__} is {found[kind]} and {role}")
        _ROLES.clear()
        roles = _ROLES[generation] = found
    return roles


@dataclass
class WagerMeter:
    """Never-reset meters of one wager at one table."""

    placed: int = 0
    wagered: int = 0
    settled: int = 0
    paid: int = 0
    won: int = 0


@dataclass
class Ledger:
    """Wallet balances per terminal and meters, folded from events in log order."""

    wallets: dict[str, int] = field(default_factory=dict)
    meters: dict[str, WagerMeter] = field(default_factory=dict)
    credits_in: int = 0
    credits_out: int = 0
    games_played: int = 0
    progressive_paid: int = 0
    """What progressive meters paid into wallets (the meters are funded by the house: their
    seeds and the share of every progressive wager, which stays in ``house_result``)."""
    _roles: Mapping[type, str] = field(
        default_factory=wager_roles, init=False, repr=False, compare=False
    )

    #: Whether a meter's award (``meter_awarded``, ``mystery_awarded``) credits the wallets
    #: it names; False at a table whose settlement already carries what the meter paid
    #: (its ``from_meter``).
    awards_move_credits: ClassVar[bool] = True

    def apply(self, terminal: str | None, ev: Any) -> None:
        """Fold one event; ``terminal`` is the event's terminal in the log envelope."""
        kind = type(ev)
        role = self._roles.get(kind)
        if role is PLACED:
            who = self._terminal(terminal, ev)
            balance = self.wallets.get(who, 0) - ev.amount
            if balance < 0:
                raise LedgerError(
                    f"terminal {who} wagered {format_money(ev.amount)} with only "
                    f"{format_money(balance + ev.amount)} in credits"
                )
            self.wallets[who] = balance
            meter = self._meter(ev.wager)
            meter.placed += 1
            meter.wagered += ev.amount
        elif role is SETTLED:
            who = self._terminal(terminal, ev)
            self.wallets[who] = self.wallets.get(who, 0) + ev.paid
            from_meter = getattr(ev, "from_meter", 0)
            meter = self._meter(ev.wager)
            meter.settled += ev.stake
            meter.paid += ev.paid - from_meter
            if ev.paid > ev.stake:
                meter.won += 1
            self.progressive_paid += from_meter
        elif role is COMPLETED:
            self.games_played += 1
        elif kind is CreditsIn:
            balance = self.wallets.get(ev.terminal, 0) + ev.amount
            self._check_balance(ev, balance)
            self.wallets[ev.terminal] = balance
            self.credits_in += ev.amount
        elif kind is CreditsOut:
            balance = self.wallets.get(ev.terminal, 0) - ev.amount
            if balance < 0:
                raise LedgerError(
                    f"terminal {ev.terminal} cashed out {format_money(ev.amount)} with only "
                    f"{format_money(balance + ev.amount)}"
                )
            self._check_balance(ev, balance)
            self.wallets[ev.terminal] = balance
            self.credits_out += ev.amount
        elif not self.awards_move_credits:
            return
        elif kind is MeterAwarded or kind is LinkedMeterAwarded:
            for place in ev.places:
                self.wallets[place] = self.wallets.get(place, 0) + ev.share
            self.progressive_paid += ev.share * len(ev.places)
        elif kind is MysteryAwarded:
            self.wallets[ev.place] = self.wallets.get(ev.place, 0) + ev.paid
            self.progressive_paid += ev.paid

    def apply_all(self, items: Iterable[tuple[str | None, Any]]) -> None:
        for terminal, ev in items:
            self.apply(terminal, ev)

    @staticmethod
    def _terminal(terminal: str | None, ev: Any) -> str:
        if terminal is None:
            raise LedgerError(f"a {ev.kind} event has no terminal in the log")
        return terminal

    @staticmethod
    def _check_balance(ev: Any, balance: int) -> None:
        if ev.balance != balance:
            raise LedgerError(
                f"{ev.kind} for terminal {ev.terminal} logs a balance of "
                f"{format_money(ev.balance)} but the log folds to {format_money(balance)}"
            )

    def _meter(self, wager: str) -> WagerMeter:
        meter = self.meters.get(wager)
        if meter is None:
            meter = self.meters[wager] = WagerMeter()
        return meter

    @property
    def in_play(self) -> int:
        """Wagers placed and not yet settled."""
        return sum(m.wagered - m.settled for m in self.meters.values())

    @property
    def house_result(self) -> int:
        """Settled stakes minus what they paid: the table's win (negative when it lost)."""
        return sum(m.settled - m.paid for m in self.meters.values())

    def conserved(self) -> bool:
        """Credits in = credits out + wallets + wagers in play + house result - what the
        progressive meters paid (the house funds the meters)."""
        return self.credits_in == (
            self.credits_out
            + sum(self.wallets.values())
            + self.in_play
            + self.house_result
            - self.progressive_paid
        )

    def report(self) -> dict[str, Any]:
        """The never-reset meters (605a.5(d)) and the wallets, integer cents, JSON-ready:
        what every table's ``ReadMeters`` answers with (beside its own progressives)."""
        return {
            "games_played": self.games_played,
            "progressive_paid": self.progressive_paid,
            "credits_in": self.credits_in,
            "credits_out": self.credits_out,
            "in_play": self.in_play,
            "house_result": self.house_result,
            "wallets": dict(sorted(self.wallets.items())),
            "wagers": {
                name: {
                    "placed": m.placed,
                    "wagered": m.wagered,
                    "settled": m.settled,
                    "paid": m.paid,
                    "won": m.won,
                }
                for name, m in sorted(self.meters.items())
            },
        }
