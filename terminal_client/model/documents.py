"""The two documents a terminal asks the server for on demand: the game rules with every offered
wager's paytable (``GetRules``; 58 Pa. Code 633b.5(c)(2)), and game recall of this terminal's
current game and the 9 before it (``GetRecall``).

Both are read into frozen dataclasses by :func:`parse_rules` and :func:`parse_recall`; a
document of another version raises :class:`~terminal_client.model.view.ViewVersionError`, a
malformed one :class:`~terminal_client.model.view.MalformedView` (the screens then say so
rather than guess). Money is integer cents; a face-down card is ``None``.

A recalled game of an Ultimate Texas Hold 'Em table (``"game": "uth"``, 58 Pa. Code 653a;
``game_server.recall.terminal``) has this terminal's two cards as its one hand, the
community cards, each hand's name (the dealer's once revealed), and the Magic Card and
Lucky Bonus position drawn (653a.12(e)(3)).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from shared.errors import ETGError
from terminal_client.model import fields
from terminal_client.model.view import MalformedView, ViewVersionError

RULES_VERSION: Final = 1
RECALL_VERSION: Final = 1


@dataclass(frozen=True)
class PaytableLine:
    hand: str
    pays: str


@dataclass(frozen=True)
class WagerRules:
    """One wager as the rules screen shows it: its limits and its paytable."""

    wager: str
    title: str
    section: str
    minimum: int
    maximum: int
    paytable: str | None
    lines: tuple[PaytableLine, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class CountdownRule:
    """What a countdown does when it runs out."""

    kind: str
    seconds: int
    then: str


@dataclass(frozen=True)
class Rules:
    table: str
    game: str
    lines: tuple[str, ...]
    countdowns: tuple[CountdownRule, ...]
    wagers: tuple[WagerRules, ...]


@dataclass(frozen=True)
class RecalledResult:
    wager: str
    title: str
    hand: int
    stake: int
    paid: int
    outcome: str
    line: str


@dataclass(frozen=True)
class RecalledGame:
    """One of this terminal's past games, as the log holds it."""

    table: str
    round: int
    status: str
    start: str
    end: str
    seat: int
    credits_start: int | None
    credits_end: int | None
    wagered: int
    paid: int
    wagers: tuple[tuple[str, int], ...]
    hands: tuple[tuple[str, ...], ...]
    dealer_cards: tuple[str | None, ...]
    dealer_total: int | None
    decisions: tuple[str, ...]
    results: tuple[RecalledResult, ...]
    #: ``"uth"`` for an Ultimate Texas Hold 'Em game, else ``"blackjack"``.
    game: str = "blackjack"
    #: Ultimate Texas Hold 'Em: the community cards, the names of this terminal's hand and
    #: of the dealer's (``None`` when not shown), the Magic Card and Lucky Bonus position.
    board: tuple[str, ...] = ()
    hand_name: str | None = None
    dealer_hand_name: str | None = None
    magic_card: str | None = None
    lucky_position: int | None = None
    #: A hybrid Blackjack table (58 Pa. Code 633b.5): the player position chosen at the
    #: three-position table (None at the table without a hole card); ``board`` holds the
    #: round's community cards.
    hybrid: bool = False
    position: int | None = None


@dataclass(frozen=True)
class Recall:
    terminal: str
    games: tuple[RecalledGame, ...]


def _check(data: Any, version: int, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise MalformedView(f"the server sent {what} that is not a JSON object")
    if data.get("v") != version:
        raise ViewVersionError(
            f"the server sent {what} of version {data.get('v')!r}, this terminal reads "
            f"version {version}: this terminal needs an update"
        )
    return data


def parse_rules(data: Any) -> Rules:
    """Read a ``GetRules`` answer (see the module docstring)."""
    doc = _check(data, RULES_VERSION, "rules")
    try:
        return Rules(
            table=fields.as_str(doc["table"]),
            game=fields.as_str(doc["game"]),
            lines=tuple(fields.as_str(line) for line in doc["lines"]),
            countdowns=tuple(
                CountdownRule(
                    fields.as_str(c["for"]), fields.as_int(c["seconds"]), fields.as_str(c["then"])
                )
                for c in doc["countdowns"]
            ),
            wagers=tuple(
                WagerRules(
                    wager=fields.as_str(w["wager"]),
                    title=fields.as_str(w["title"]),
                    section=fields.as_str(w["section"]),
                    minimum=fields.as_int(w["min"]),
                    maximum=fields.as_int(w["max"]),
                    paytable=None if w["paytable"] is None else fields.as_str(w["paytable"]),
                    lines=tuple(
                        PaytableLine(fields.as_str(line["hand"]), fields.as_str(line["pays"]))
                        for line in w["lines"]
                    ),
                    notes=tuple(fields.as_str(n) for n in w.get("notes", ())),
                )
                for w in doc["wagers"]
            ),
        )
    except (KeyError, TypeError, ValueError, AttributeError, ETGError) as exc:
        raise MalformedView(f"the server sent rules this terminal cannot read: {exc!r}") from None


def _hand_name(hand: Any) -> str | None:
    if hand is None:
        return None
    name = fields.as_str(hand["name"])
    return f"{name} (folded)" if hand.get("folded") is True else name


def _uth_game(g: dict[str, Any]) -> RecalledGame:
    """An Ultimate Texas Hold 'Em game (653a): its one hand is this terminal's two cards."""
    dealer = g["dealer"]
    magic = g["magic_card"]
    return RecalledGame(
        table=fields.as_str(g["table"]),
        round=fields.as_int(g["round"]),
        status=fields.as_str(g["status"]),
        start=fields.as_str(g["start"]),
        end=fields.as_str(g["end"]),
        seat=fields.as_int(g["seat"]),
        credits_start=fields.opt_int(g["credits_start"]),
        credits_end=fields.opt_int(g["credits_end"]),
        wagered=fields.as_int(g["wagered"]),
        paid=fields.as_int(g["paid"]),
        wagers=tuple((fields.as_str(k), fields.as_int(v)) for k, v in dict(g["wagers"]).items()),
        hands=(tuple(fields.as_str(c) for c in g["cards"]),),
        dealer_cards=tuple(None if c is None else fields.as_str(c) for c in dealer["cards"]),
        dealer_total=None,
        decisions=tuple(fields.as_str(d) for d in g["decisions"]),
        results=tuple(
            RecalledResult(
                wager=fields.as_str(r["wager"]),
                title=fields.as_str(r["title"]),
                hand=0,
                stake=fields.as_int(r["stake"]),
                paid=fields.as_int(r["paid"]),
                outcome=fields.as_str(r["outcome"]),
                line=fields.as_str(r["line"]),
            )
            for r in g["results"]
        ),
        game="uth",
        board=tuple(fields.as_str(c) for c in g["board"]),
        hand_name=_hand_name(g["hand"]),
        dealer_hand_name=_hand_name(dealer["hand"]),
        magic_card=None if magic is None else fields.as_str(magic),
        lucky_position=fields.opt_int(g["lucky_position"]),
    )


def _game(g: dict[str, Any]) -> RecalledGame:
    if g.get("game") == "uth":
        return _uth_game(g)
    return RecalledGame(
        table=fields.as_str(g["table"]),
        round=fields.as_int(g["round"]),
        status=fields.as_str(g["status"]),
        start=fields.as_str(g["start"]),
        end=fields.as_str(g["end"]),
        seat=fields.as_int(g["seat"]),
        credits_start=fields.opt_int(g["credits_start"]),
        credits_end=fields.opt_int(g["credits_end"]),
        wagered=fields.as_int(g["wagered"]),
        paid=fields.as_int(g["paid"]),
        wagers=tuple((fields.as_str(k), fields.as_int(v)) for k, v in dict(g["wagers"]).items()),
        hands=tuple(tuple(fields.as_str(c) for c in h["cards"]) for h in g["hands"]),
        dealer_cards=tuple(None if c is None else fields.as_str(c) for c in g["dealer"]["cards"]),
        dealer_total=fields.opt_int(g["dealer"]["total"]),
        board=tuple(fields.as_str(c) for c in g.get("community", ())),
        hybrid="community" in g,
        position=fields.opt_int(g.get("position")),
        decisions=tuple(fields.as_str(d) for d in g["decisions"]),
        results=tuple(
            RecalledResult(
                wager=fields.as_str(r["wager"]),
                title=fields.as_str(r["title"]),
                hand=fields.as_int(r["hand"]),
                stake=fields.as_int(r["stake"]),
                paid=fields.as_int(r["paid"]),
                outcome=fields.as_str(r["outcome"]),
                line=fields.as_str(r["line"]),
            )
            for r in g["results"]
        ),
    )


def parse_recall(data: Any) -> Recall:
    """Read a ``GetRecall`` answer (see the module docstring)."""
    doc = _check(data, RECALL_VERSION, "game recall")
    try:
        return Recall(fields.as_str(doc["terminal"]), tuple(_game(g) for g in doc["games"]))
    except (KeyError, TypeError, ValueError, AttributeError, ETGError) as exc:
        raise MalformedView(
            f"the server sent game recall this terminal cannot read: {exc!r}"
        ) from None
