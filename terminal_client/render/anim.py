"""Card motion on the terminal: cards dealt from the shoe and the dealer's hole card flipped.

A pure presentation-state tracker: :meth:`CardAnimation.update` compares the model's view
with the cards it already knows, gives each newly dealt card a start time (in deal order,
:data:`DEAL_STAGGER` apart, :data:`DEAL_FLIGHT` long) and the dealer's face-down cards a
:data:`FLIP_TIME` flip when the server turns them up: several turn :data:`DEAL_STAGGER`
apart, overlapping as the deal's cards do (a poker table's four or five are face up in
well under a second, not one after another: the results wait for them), and a card the
dealer draws afterwards leaves the shoe once every flip has ended.

It reads the model and never changes it, reads no pygame events, and draws nothing; what the
drawing code reads is the immutable :class:`CardFrame` of :meth:`CardAnimation.frame`
(Tuxemon ``state.py``: draw never changes state).

Cards of the first view the tracker sees (at start and after a reconnect) are shown where
they lie: a terminal that reconnects mid-round does not replay the deal. A new round forgets
every card of the last one.

Entry points: :class:`CardAnimation`, :class:`CardFrame`, :class:`CardMotion`,
:func:`card_keys`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from terminal_client.model import ConnectionState, TerminalModel, View

#: Seconds between two cards leaving the shoe.
DEAL_STAGGER: Final = 0.12
#: Seconds a card takes from the shoe to its place.
DEAL_FLIGHT: Final = 0.3
#: Seconds a face-down card takes to turn face up (half showing the back, half the face);
#: several start :data:`DEAL_STAGGER` apart.
FLIP_TIME: Final = 0.3

#: ``("dealer", index)`` or ``("seat", seat, hand, index)``.
CardKey = tuple[Any, ...]


def dealer_key(index: int) -> CardKey:
    """The key of the dealer's ``index``-th card."""
    return ("dealer", index)


def seat_key(seat: int | None, hand: int, index: int) -> CardKey:
    """The key of card ``index`` of hand ``hand`` of seat ``seat``."""
    return ("seat", seat, hand, index)


def card_keys(view: View) -> Iterator[tuple[CardKey, str | None]]:
    """Every card of ``view`` with its text (``None`` for the hole card face down), in the
    order a dealer deals them: round by round, the seats from the dealer's left (seat 1)
    and their hands, then the dealer."""
    columns: list[list[tuple[CardKey, str | None]]] = []
    for seat in sorted(view.seats, key=lambda s: s.seat):
        for hand in seat.hands:
            columns.append(
                [(seat_key(seat.seat, hand.index, i), card) for i, card in enumerate(hand.cards)]
            )
    columns.append([(dealer_key(i), card) for i, card in enumerate(view.dealer.cards)])
    depth = max((len(c) for c in columns), default=0)
    for row in range(depth):
        for column in columns:
            if row < len(column):
                yield column[row]


def ease_out(t: float) -> float:
    """Cubic ease-out of ``t`` in [0, 1]: fast off the shoe, gentle landing."""
    t = min(1.0, max(0.0, t))
    return 1 - (1 - t) ** 3


@dataclass(frozen=True)
class CardMotion:
    """Where one card is in its animation at one moment.

    Attributes:
        flight: 0 at the shoe to 1 in place (eased); ``None`` while it waits in the shoe
            (not drawn yet).
        flip: 0 to 1 through the hole card's flip, ``None`` when not turning.
    """

    flight: float | None = 1.0
    flip: float | None = None

    @property
    def waiting(self) -> bool:
        """True while the card has not left the shoe (it is not drawn)."""
        return self.flight is None

    @property
    def landed(self) -> bool:
        """True once the card is in place face up (or face down for the hole card)."""
        return self.flight is not None and self.flight >= 1.0 and self.flip is None


#: A card at rest.
SETTLED: Final = CardMotion()


@dataclass(frozen=True)
class CardFrame:
    """The cards in motion at one moment (cards not named are at rest); immutable."""

    now: float = 0.0
    motions: Mapping[CardKey, CardMotion] = field(default_factory=lambda: MappingProxyType({}))

    def motion(self, key: CardKey) -> CardMotion:
        """How the card ``key`` moves now (:data:`SETTLED` when it does not)."""
        return self.motions.get(key, SETTLED)

    def landed(self, key: CardKey) -> bool:
        """True when the card ``key`` is in place and not turning."""
        return self.motion(key).landed

    @property
    def moving(self) -> bool:
        """True while any card moves or waits in the shoe."""
        return bool(self.motions)


#: Nothing moves.
STILL: Final = CardFrame()


@dataclass(frozen=True)
class _Scheduled:
    start: float
    flip: bool  # a flip rather than a flight


class CardAnimation:
    """Notices the cards newly dealt or turned up in the model's view and times their motion.

    Args:
        stagger: Seconds between two cards dealt together.
        flight: Seconds of one card's flight.
        flip: Seconds of the hole card's flip.
    """

    def __init__(
        self,
        stagger: float = DEAL_STAGGER,
        flight: float = DEAL_FLIGHT,
        flip: float = FLIP_TIME,
    ) -> None:
        self.stagger = stagger
        self.flight = flight
        self.flip = flip
        self._view: View | None = None
        self._round: Any = None
        self._known: dict[CardKey, str | None] = {}
        self._scheduled: dict[CardKey, _Scheduled] = {}
        self._next = float("-inf")  # when the next card may leave the shoe or turn
        self._turned = float("-inf")  # when the last flip scheduled ends
        self._fresh = True  # the next view is absorbed without motion
        self._stale: View | None = None  # the view held while the connection was down
        self._frame = STILL

    def reset(self) -> None:
        """Forget every card: the next view is shown at rest (a reconnect)."""
        self._known.clear()
        self._scheduled.clear()
        self._next = float("-inf")
        self._turned = float("-inf")
        self._fresh = True
        self._frame = STILL

    def update(self, model: TerminalModel, now: float) -> bool:
        """Take the model's view at ``now``; True while a card moves (the screen must be
        redrawn), False when every card is at rest."""
        if model.connection.state is not ConnectionState.CONNECTED and not self._fresh:
            self._stale = model.view
            self.reset()
        view = model.view
        if view is not None and view is not self._view and view is not self._stale:
            self._take(view, now)
        self._frame = self._frame_at(now)
        return self._frame.moving

    def frame(self) -> CardFrame:
        """The cards in motion as of the last :meth:`update` (immutable)."""
        return self._frame

    # Inside ---------------------------------------------------------------------------------

    def _take(self, view: View, now: float) -> None:
        self._view = view
        if self._fresh:
            self._fresh = False
            self._stale = None
            self._round = view.round
            self._known = dict(card_keys(view))
            return
        if view.round != self._round:
            self._round = view.round
            self._known.clear()
            self._scheduled.clear()
        seen: dict[CardKey, str | None] = {}
        for key, card in card_keys(view):
            seen[key] = card
            if key not in self._known:
                self._schedule(key, now, flip=False)
            elif self._known[key] != card:
                # The hole card turned up is flipped; any other changed card (a split
                # moves a card to a new hand) comes from the shoe again.
                turned = self._known[key] is None and key[0] == "dealer"
                self._schedule(key, now, flip=turned)
        self._known = seen
        for key in [k for k in self._scheduled if k not in seen]:
            del self._scheduled[key]

    def _schedule(self, key: CardKey, now: float, flip: bool) -> None:
        # Flips follow one another a stagger apart, as dealt cards do; a card from the shoe
        # waits until the cards turning have turned (a dealer's draw follows his hole card).
        start = max(now, self._next) if flip else max(now, self._next, self._turned)
        self._scheduled[key] = _Scheduled(start, flip)
        self._next = start + self.stagger
        if flip:
            self._turned = max(self._turned, start + self.flip)

    def _frame_at(self, now: float) -> CardFrame:
        motions: dict[CardKey, CardMotion] = {}
        for key, scheduled in list(self._scheduled.items()):
            elapsed = now - scheduled.start
            if scheduled.flip:
                if elapsed >= self.flip:
                    del self._scheduled[key]
                else:
                    motions[key] = CardMotion(flip=max(0.0, elapsed / self.flip))
            elif elapsed >= self.flight:
                del self._scheduled[key]
            elif elapsed < 0:
                motions[key] = CardMotion(flight=None)
            else:
                motions[key] = CardMotion(flight=ease_out(elapsed / self.flight))
        if not self._scheduled:
            self._next = self._turned = float("-inf")
        return CardFrame(now, MappingProxyType(motions))
