"""The view of a Four Card Poker table, as its screens read it: :class:`FourCardView`.

The server's view (``game_server.games.fourcard.machine``) is the seated table's shape
(``dealer`` with ``None`` for a face-down card, ``seats`` with this terminal's five cards
as its one hand, the other seats' cards never sent), read by
:func:`~terminal_client.model.view.parse_common_view`; to it the view adds the fixed
amounts of the progressive wagers in ``limits`` (``{"min", "max", "amounts": [...]}``) and a
``"fourcard"`` block: this terminal's best four-card hand's name (``hand``), the dealer's
once shown (``dealer_hand``) and the Play multiples offered (``play_multiples``). A block
that is not that shape raises :class:`~terminal_client.model.view.MalformedView`; nothing
missing is guessed.

Entry points: :func:`parse_fourcard_view`, :func:`fourcard_of`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from terminal_client.model import fields
from terminal_client.model.view import MalformedView, SeatedView, parse_common_view

if TYPE_CHECKING:
    from terminal_client.model.state import TerminalModel

__all__ = ["FourCardView", "fourcard_of", "parse_fourcard_view"]

#: The view's ``"game"`` of a Four Card Poker table.
FOURCARD_GAME: Final = "fourcard"
# The wagers as the view names them.
ANTE: Final = "ante"
PLAY: Final = "play"
ACES_UP: Final = "aces_up"
FOUR_CARD_PROGRESSIVE: Final = "four_card_progressive"
FIVE_CARD_PROGRESSIVE: Final = "five_card_progressive"
FOLD: Final = "fold"


@dataclass(frozen=True)
class FourCardView(SeatedView):
    """One Four Card Poker view: the common :class:`View` and what the table adds."""

    #: This terminal's best four-card hand's name ("Pair"), once dealt.
    hand: str | None
    #: The dealer's best four-card hand's name, once his cards are shown.
    dealer_hand: str | None
    #: The Play multiples of the Ante the table offers (1, 2, 3).
    play_multiples: tuple[int, ...]
    #: The fixed amounts of the wagers that take only those (the progressive wagers).
    amounts: Mapping[str, tuple[int, ...]]
    #: This terminal's seat's status as the server gives it ("waiting", "played",
    #: "folded"), None without a seat.
    status: str | None = None

    @property
    def folded(self) -> bool:
        """Whether this terminal folded its hand."""
        return self.status == "folded"

    @property
    def play_multiple(self) -> int:
        """The Play wager as a multiple of the Ante (0 before it is made)."""
        ante = self.wagers.get(ANTE, 0)
        return self.wagers.get(PLAY, 0) // ante if ante else 0


def _amounts(limits: Any) -> dict[str, tuple[int, ...]]:
    amounts = {}
    for name, raw in fields.as_dict(limits).items():
        entry = fields.as_dict(raw)
        if "amounts" in entry:
            offered = tuple(sorted({fields.as_int(a) for a in fields.as_list(entry["amounts"])}))
            if not offered or offered[0] <= 0:
                raise MalformedView(f"wager {name!r} offers no positive fixed amount: {offered!r}")
            amounts[name] = offered
    return amounts


def parse_fourcard_view(data: Any) -> FourCardView:
    """Read a Four Card Poker view dict into a :class:`FourCardView`.

    Raises:
        ViewVersionError: ``data["v"]`` is not the version this terminal reads.
        MalformedView: a common key, or the ``"fourcard"`` block, is not its shape.
    """
    view = parse_common_view(data)
    try:
        block = fields.as_dict(data["fourcard"])
        mine = [fields.as_dict(seat) for seat in data["seats"] if fields.as_dict(seat)["mine"]]
        return FourCardView(
            view=view,
            hand=fields.opt_str(block["hand"]),
            dealer_hand=fields.opt_str(block["dealer_hand"]),
            play_multiples=tuple(fields.as_int(m) for m in fields.as_list(block["play_multiples"])),
            amounts=MappingProxyType(_amounts(data["limits"])),
            status=fields.as_str(mine[0]["status"]) if mine else None,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise MalformedView(
            f"the server sent a Four Card Poker view this terminal cannot read: {exc!r}"
        ) from None


def fourcard_of(model: TerminalModel) -> FourCardView | None:
    """The model's last view when it is of a Four Card Poker table; else None."""
    read = model.game_view
    return read if isinstance(read, FourCardView) else None
