"""One exit for hidden cards: what each viewer may see of a round, and the one redaction.

A card dealt face down (the dealer's hole cards) is seen by nobody until the record that
turns it up; a player's own card in a poker game (Caribbean Stud, Four Card Poker, Ultimate
Texas Hold 'Em) by that player's terminal only; every other card by everyone. A closed round
is shown whole. That rule is the platform's, not a game's: a game *declares* which of its
records deal a card and who sees it (:class:`Dealt`), and which records turn cards up
(:class:`TurnedUp`), in one :class:`Secrecy` (:meth:`Game.secrecy
<game_server.games.api.Game.secrecy>`); everything else is done here, once, for every game
and every exit:

- **The log** (:class:`RoundSight`, fed by the table session with every logged record): a
  card nobody else may see yet is written *sealed*, its ``card`` null and its shoe position
  kept (the card is in the committed, sealed shoe). The step that closes the round also logs
  :class:`~game_server.table.events.CardsUnsealed`, every sealed position with its card.
  So neither the SQLite file nor the floor store it is shipped to holds a card of a round in
  play in clear, whoever reads them.
- **What is read from a log** (:func:`sight_round`, the only maker of the rounds recall,
  the console, the CLI, receipts, pictures and the demo's narration are built from): a
  closed round's sealed cards are filled in from its ``cards_unsealed``; a round in play
  keeps them sealed, and a card a log of an older build holds in clear is sealed here.
- **What a terminal is sent** (:func:`redact_view`): its view, encoded, with any card it
  may not see masked; the wire's view argument takes only what this returns
  (:class:`~shared.protocol.RedactedView`).

Viewers: :data:`PUBLIC` (the staff's roles, the log, the tools: the round as the table shows
it to everyone) or a terminal's id (the public view and its own cards).

Entry points: :class:`Secrecy`, :class:`RoundSight`, :func:`sight_round`,
:func:`redact_view`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from game_server.table.events import CardsUnsealed, RoundClosed
from shared.cards import Card
from shared.protocol import RedactedView, json_bytes

#: The viewer who is no terminal: the staff's roles, the log and the floor store, the tools.
PUBLIC: Final = None
#: Who views: :data:`PUBLIC` or a terminal's id.
Viewer = str | None


class Seen(StrEnum):
    """Who sees a card when it is dealt."""

    #: Face up: everyone.
    ALL = "all"
    #: A player's own card: the terminal its record names, and nobody else until turned up.
    OWNER = "owner"
    #: Face down: nobody until turned up.
    NOBODY = "nobody"


def _no_hand(record: Any) -> object:
    return None


@dataclass(frozen=True, slots=True)
class Dealt:
    """How one kind of a game's records deals a card from the shoe.

    Attributes:
        seen: Who sees the card when it is dealt (``record -> Seen``).
        hand: Whose hand it joins (``record -> key``, e.g. the seat; the dealer's is what a
            :class:`TurnedUp` of the dealer names).
        card: The field holding the card.
        position: The field holding its 0-based place in the shoe.
    """

    seen: Callable[[Any], Seen]
    hand: Callable[[Any], object] = _no_hand
    card: str = "card"
    position: str = "position"


def _none(record: Any) -> tuple[Any, ...]:
    return ()


@dataclass(frozen=True, slots=True)
class TurnedUp:
    """How one kind of record turns cards face up for everyone.

    Attributes:
        positions: The shoe positions it turns up (``record -> positions``).
        hands: The hands whose every card dealt so far it turns up (``record -> keys``).
        cards: The cards it shows, in the order of the positions it turns up (``positions``
            first, then each hand's in the order they were dealt), when it shows them all:
            what a reader of a log fills the turned-up sealed cards in with before the round
            closes. None: it shows them otherwise (a best five).
    """

    positions: Callable[[Any], Iterable[int]] = _none
    hands: Callable[[Any], Iterable[object]] = _none
    cards: Callable[[Any], Sequence[Card]] | None = None


@dataclass(frozen=True, slots=True)
class Secrecy:
    """A game's declaration of its hidden cards (``docs/adding-a-game.md``).

    Every card of a record not named in ``dealt`` is logged in clear and is public: a game
    that deals a card face down, or to one player's eyes only, names the record here.

    Attributes:
        dealt: The records that deal a card, by kind.
        turned_up: The records that turn cards up, by kind.
        stand_in: A card that may stand in for a sealed one when a round in play is replayed
            through the engine to rebuild its views (recall pictures, a terminal's recall):
            one no public record of the round contradicts before the card is turned up,
            which the game's views never show (``record -> card``). None: a round in play
            is not replayed.
    """

    dealt: Mapping[type, Dealt] = field(default_factory=dict)
    turned_up: Mapping[type, TurnedUp] = field(default_factory=dict)
    stand_in: Callable[[Any], Card] | None = None


#: A game that hides nothing (every card face up).
OPEN_CARDS: Final = Secrecy()

#: The dealer's seat in every game's records.
DEALER_SEAT: Final = 0


def face_down_to_all(record: Any) -> Seen:
    """A card face up is everyone's; face down (``face_up`` False), nobody's (the
    dealer's hole card at twenty-one)."""
    return Seen.ALL if record.face_up else Seen.NOBODY


def face_down_to_others(record: Any) -> Seen:
    """A card face up is everyone's; a player's face down (``seat`` from 1) is his own; the
    dealer's face down (``seat`` 0), nobody's (the poker games)."""
    if record.face_up:
        return Seen.ALL
    return Seen.OWNER if record.seat > DEALER_SEAT else Seen.NOBODY


def seat_of(record: Any) -> object:
    """The hand a card joins: its record's ``seat`` (0 the dealer's)."""
    return record.seat


def position_of(record: Any) -> tuple[int]:
    """The one card a record turns up: its ``position``."""
    return (record.position,)


def card_of(record: Any) -> tuple[Card]:
    """The one card a record shows: its ``card``."""
    return (record.card,)


def cards_of(record: Any) -> tuple[Card, ...]:
    """The cards a record shows: its ``cards``."""
    return tuple(record.cards)


def dealers_hand(record: Any) -> tuple[int]:
    """A record that turns up the dealer's whole hand."""
    return (DEALER_SEAT,)


def seats_hand(record: Any) -> tuple[object]:
    """A record that turns up its ``seat``'s whole hand."""
    return (record.seat,)


@dataclass(slots=True)
class _DealtCard:
    card: Card | None
    seen: Seen
    owner: str | None
    hand: object


def _cards_of(value: Any) -> Iterable[Card]:
    """Every card in a record's field (a card, or tuples of them, nested)."""
    if isinstance(value, Card):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _cards_of(item)


class RoundSight:
    """What each viewer may see of one round, record by record, as the round goes.

    The table session feeds it every record it logs (:meth:`observe`), then asks it how to
    log each (:meth:`seal`) and, at the round's close, for the records that unseal what was
    sealed (:meth:`unsealing`). :func:`redact_view` asks it what a terminal may see.
    """

    def __init__(self, secrecy: Secrecy) -> None:
        self.secrecy = secrecy
        self._dealt: dict[int, _DealtCard] = {}
        self._hands: dict[object, list[int]] = {}
        self._up: set[int] = set()
        #: Cards a turning-up record showed, by position.
        self.shown_at: dict[int, Card] = {}
        #: Cards of the records that deal none (logged in clear: everyone's).
        self._shown: set[str] = set()
        #: Positions logged sealed (their card null in the log).
        self.sealed: set[int] = set()
        self.closed = False

    def observe(self, terminal: str | None, record: Any) -> None:
        """Take in one record (in log order) with the terminal its envelope names."""
        kind = type(record)
        rule = self.secrecy.dealt.get(kind)
        if rule is not None:
            position = getattr(record, rule.position)
            hand = rule.hand(record)
            self._dealt[position] = _DealtCard(
                getattr(record, rule.card), rule.seen(record), terminal, hand
            )
            self._hands.setdefault(hand, []).append(position)
            return
        up = self.secrecy.turned_up.get(kind)
        if up is not None:
            turned = list(up.positions(record))
            for hand in up.hands(record):
                turned += self._hands.get(hand, ())
            self._up.update(turned)
            cards = None if up.cards is None else tuple(up.cards(record))
            if cards is not None and len(cards) == len(turned):
                self.shown_at.update(zip(turned, cards, strict=True))
        if kind is RoundClosed:
            self.closed = True
        if kind is CardsUnsealed:
            return  # the close's own record: the cards it names are the dealt ones
        self._shown.update(str(card) for value in record for card in _cards_of(value))

    @property
    def dealt(self) -> bool:
        """Whether the round has dealt a card."""
        return bool(self._dealt)

    def can_see(self, position: int, viewer: Viewer) -> bool:
        """Whether ``viewer`` may see the card dealt at ``position`` now."""
        dealt = self._dealt.get(position)
        if dealt is None or self.closed or position in self._up or dealt.seen is Seen.ALL:
            return True
        return dealt.seen is Seen.OWNER and viewer is not None and viewer == dealt.owner

    def seal(self, record: Any, viewer: Viewer = PUBLIC) -> Any:
        """``record`` as ``viewer`` may see it now: a dealt card it may not see is None."""
        rule = self.secrecy.dealt.get(type(record))
        if rule is None:
            return record
        position = getattr(record, rule.position)
        if self.can_see(position, viewer) or getattr(record, rule.card) is None:
            return record
        return record._replace(**{rule.card: None})

    def log_form(self, record: Any) -> Any:
        """What the log holds of ``record`` (:meth:`seal` for :data:`PUBLIC`), noting each
        position it seals."""
        logged = self.seal(record)
        if logged is not record:
            rule = self.secrecy.dealt[type(record)]
            self.sealed.add(getattr(record, rule.position))
        return logged

    def unsealing(self) -> CardsUnsealed | None:
        """The record that unseals, at the round's close, every card logged sealed (None
        when none was)."""
        known = sorted((p, d.card) for p in self.sealed if (d := self._dealt[p]).card is not None)
        if not known:
            return None
        return CardsUnsealed(tuple(p for p, _ in known), tuple(c for _, c in known))

    def visible(self, viewer: Viewer) -> set[str]:
        """The faces of the cards ``viewer`` may see now (``"AS"``)."""
        dealt = {
            str(d.card)
            for position, d in self._dealt.items()
            if d.card is not None and self.can_see(position, viewer)
        }
        return dealt | self._shown


def sight_of(secrecy: Secrecy, items: Iterable[tuple[str | None, Any]]) -> RoundSight:
    """A round's sight after ``items`` (``(terminal, record)`` in log order)."""
    sight = RoundSight(secrecy)
    for terminal, record in items:
        sight.observe(terminal, record)
    return sight


# -------------------------------------------------------------------- rounds read from a log


def unsealed_cards(records: Iterable[Any]) -> dict[int, Card]:
    """Position -> card of a round's ``cards_unsealed`` (empty while the round is in play)."""
    found: dict[int, Card] = {}
    for record in records:
        if type(record) is CardsUnsealed:
            found.update(zip(record.positions, record.cards, strict=True))
    return found


def unsealed(items: Iterable[tuple[str | None, Any]]) -> list[tuple[str | None, Any]]:
    """``(terminal, record)`` pairs read back from a log in order, each round's sealed cards
    (a ``card`` None beside a ``position``) filled in from that round's ``cards_unsealed``;
    a round still in play keeps them sealed. For a reader that wants a log's records whole
    (a test, a tool), not the public's view of a live round (:func:`sight_round`)."""
    out = list(items)
    pending: dict[int, int] = {}
    for index, (_, record) in enumerate(out):
        kind = type(record)
        if kind is CardsUnsealed:
            for position, card in zip(record.positions, record.cards, strict=True):
                at = pending.pop(position, None)
                if at is not None:
                    held_by, sealed = out[at]
                    out[at] = (held_by, sealed._replace(card=card))
        elif kind is RoundClosed:
            pending.clear()
        elif getattr(record, "card", 0) is None and hasattr(record, "position"):
            pending[record.position] = index
    return out


class StillSealed(Exception):
    """A round in play whose game names no stand-in for its sealed cards: it is not
    replayed until it closes."""


def stood_in(secrecy: Secrecy, records: list[Any]) -> list[Any]:
    """A round's records with each sealed card replaced by the game's stand-in (what a round
    in play is replayed with to rebuild its views; they never show the card).

    Raises:
        StillSealed: a card is sealed and the game names no stand-in.
    """
    out = []
    for record in records:
        rule = secrecy.dealt.get(type(record))
        if rule is not None and getattr(record, rule.card) is None:
            if secrecy.stand_in is None:
                raise StillSealed(
                    "the round is in play: its face-down cards are sealed until it closes"
                )
            record = record._replace(**{rule.card: secrecy.stand_in(record)})
        out.append(record)
    return out


def from_shoe(secrecy: Secrecy, records: list[Any], order: Sequence[Card]) -> list[Any]:
    """A round in play's records with each sealed card read from its shoe's ``order`` (what
    the holder of the shoe-sealing key sees: ``etg verify --sealing-key``, a server that
    resumes the round)."""
    out = []
    for record in records:
        rule = secrecy.dealt.get(type(record))
        if rule is not None and getattr(record, rule.card) is None:
            position = getattr(record, rule.position)
            if 0 <= position < len(order):
                record = record._replace(**{rule.card: order[position]})
        out.append(record)
    return out


def still_sealed(secrecy: Secrecy, records: Iterable[Any]) -> bool:
    """Whether any of a round's records holds a card sealed (a round in play)."""
    for record in records:
        rule = secrecy.dealt.get(type(record))
        if rule is not None and getattr(record, rule.card) is None:
            return True
    return False


def fill_unsealed(secrecy: Secrecy, records: list[Any]) -> list[Any]:
    """One round's records read from a log, each card it logged sealed filled in from its
    ``cards_unsealed`` (a round in play has none yet: its records come back as logged)."""
    unsealed = unsealed_cards(records)
    if not unsealed:
        return records
    out = []
    for record in records:
        rule = secrecy.dealt.get(type(record))
        if rule is not None and getattr(record, rule.card) is None:
            card = unsealed.get(getattr(record, rule.position))
            if card is not None:
                record = record._replace(**{rule.card: card})
        out.append(record)
    return out


def sight_round(
    secrecy: Secrecy, items: list[tuple[str | None, Any]], viewer: Viewer = PUBLIC
) -> list[Any]:
    """The records of one round read from a log, as ``viewer`` may see them: a closed round
    whole (its sealed cards filled in from its ``cards_unsealed``), a round in play with
    every card ``viewer`` may not see yet sealed (also one a log of an older build holds in
    clear), and each card a record turned up filled in from it. ``items`` are
    ``(terminal, record)`` in log order; the records come back in the same order.
    """
    records = fill_unsealed(secrecy, [record for _, record in items])
    filled = [(terminal, record) for (terminal, _), record in zip(items, records, strict=True)]
    sight = sight_of(secrecy, filled)
    if sight.closed:
        return records
    out = []
    for record in records:
        rule = secrecy.dealt.get(type(record))
        if rule is not None and getattr(record, rule.card) is None:
            card = sight.shown_at.get(getattr(record, rule.position))
            if card is not None:  # turned up in the round in play, its card shown then
                record = record._replace(**{rule.card: card})
        out.append(sight.seal(record, viewer))
    return out


# ------------------------------------------------------------------- what a terminal is sent

#: A card's text as a JSON string of a view ("AS", "10D" or "TD").
_CARD_TEXT: Final = re.compile(rb'"((?:[2-9]|10|[TJQKA])[SHDC])"')


class ViewLeak(Exception):
    """A view held a card its terminal may not see (masked before it was sent)."""


def redact_view(
    view: dict[str, Any],
    sight: RoundSight | None,
    terminal: str,
    also: RoundSight | None = None,
    on_masked: Callable[[str, list[str]], None] | None = None,
) -> RedactedView:
    """``terminal``'s view encoded for the wire, with every card it may not see masked.

    A game's view already leaves out what its terminal may not see; this is the platform's
    check on every view that leaves the server, from the same declaration as the log's
    seals. The cards of the encoded view are found (one regular expression over the bytes);
    a card ``terminal`` may not see anywhere at the table, in the round in play (``sight``)
    or, until that round deals a card, the last closed one (``also``, whose results a view
    may still show), is masked (null) wherever it appears, ``on_masked(terminal, cards)``
    is told and the view is encoded again. (A face-down card with the same face as one the
    terminal sees, in a shoe of several decks, is not told apart here: the property test of
    every game's views is.)
    """
    data = json_bytes(view)
    if sight is None and also is None:
        return RedactedView(data)
    shown = {m.decode() for m in _CARD_TEXT.findall(data)}
    if not shown:
        return RedactedView(data)
    allowed: set[str] = set()
    if sight is not None:
        allowed.update(sight.visible(terminal))
    if also is not None and (sight is None or not sight.dealt):
        # The last round's results, shown until the round in play deals its first card.
        allowed.update(also.visible(terminal))
    hidden = shown - allowed
    if not hidden:
        return RedactedView(data)

    def mask(value: Any) -> Any:
        if isinstance(value, str):
            return None if value in hidden else value
        if isinstance(value, dict):
            return {k: mask(v) for k, v in value.items()}
        if isinstance(value, list):
            return [mask(v) for v in value]
        return value

    cleaned = mask(view)
    if on_masked is not None:
        on_masked(terminal, sorted(hidden))
    return RedactedView(json_bytes(cleaned))
