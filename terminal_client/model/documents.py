"""The two documents a terminal asks the server for on demand: the game rules with every offered
wager's paytable (``GetRules``; 58 Pa. Code 633b.5(c)(2)), and game recall of this terminal's
current game and the 9 before it (``GetRecall``).

Both are read into frozen dataclasses by :func:`parse_rules` and :func:`parse_recall`; a
document of another version raises :class:`~terminal_client.model.view.ViewVersionError`, a
malformed one :class:`~terminal_client.model.view.MalformedView` (the screens then say so
rather than guess). Money is integer cents; a face-down card is ``None``.

Each recalled game is read by its game (:func:`terminal_client.games.for_recall`): the
fields every game's recall has (:func:`recalled_fields`), and what its own adds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
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
    """One of this terminal's past games, as the log holds it: what every game's recall has
    (a game's own recall adds its fields in a subclass, e.g. the community cards).

    ``game`` names the game that read it (the recalled game's ``"game"``, else the game that
    claimed it). ``hands`` are this terminal's cards per hand; ``dealer_cards`` the dealer's
    (``None`` for a card still face down) and ``dealer_total`` its total where the game
    shows one.
    """

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
    game: str = ""
    #: Its shoe (``docs/shoe-spec.md``): ``number``, ``commitment``, the ``positions`` of
    #: the cards dealt, and its ``reveal`` once retired (else None); None from a server
    #: that sends none.
    shoe: Mapping[str, Any] | None = None
    #: The text of its receipt's QR code (``etg-receipt/1:<table>:<round>:<digest>``); "".
    receipt_qr: str = ""


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


def recalled_fields(g: Mapping[str, Any], game: str) -> dict[str, Any]:
    """The common fields of one recalled game (:class:`RecalledGame`'s), read from ``g`` as
    ``game_server.recall.terminal`` sends them: ``hands`` as ``[{"cards": [...]}]`` and
    ``dealer`` as ``{"cards", "total"}`` where the game has them (none: empty), a result's
    ``hand`` where the game logs one (none: 0).

    Raises:
        KeyError, TypeError, ValueError: ``g`` is not that shape.
    """
    dealer = g.get("dealer") or {}
    return {
        "table": fields.as_str(g["table"]),
        "round": fields.as_int(g["round"]),
        "status": fields.as_str(g["status"]),
        "start": fields.as_str(g["start"]),
        "end": fields.as_str(g["end"]),
        "seat": fields.as_int(g["seat"]),
        "credits_start": fields.opt_int(g["credits_start"]),
        "credits_end": fields.opt_int(g["credits_end"]),
        "wagered": fields.as_int(g["wagered"]),
        "paid": fields.as_int(g["paid"]),
        "wagers": tuple((fields.as_str(k), fields.as_int(v)) for k, v in dict(g["wagers"]).items()),
        "hands": tuple(tuple(fields.as_str(c) for c in h["cards"]) for h in g.get("hands", ())),
        "dealer_cards": tuple(
            None if c is None else fields.as_str(c) for c in dealer.get("cards", ())
        ),
        "dealer_total": fields.opt_int(dealer.get("total")),
        "decisions": tuple(fields.as_str(d) for d in g["decisions"]),
        "results": tuple(
            RecalledResult(
                wager=fields.as_str(r["wager"]),
                title=fields.as_str(r["title"]),
                hand=fields.as_int(r.get("hand", 0)),
                stake=fields.as_int(r["stake"]),
                paid=fields.as_int(r["paid"]),
                outcome=fields.as_str(r["outcome"]),
                line=fields.as_str(r["line"]),
            )
            for r in g["results"]
        ),
        "game": game,
        "shoe": _recalled_shoe(g.get("shoe")),
        "receipt_qr": fields.as_str((g.get("receipt") or {}).get("qr", "")),
    }


def _recalled_shoe(data: Any) -> Mapping[str, Any] | None:
    """A recalled game's ``shoe``, checked (None when the server sent none)."""
    if data is None:
        return None
    reveal = data["reveal"]
    return MappingProxyType(
        {
            "number": fields.as_int(data["number"]),
            "commitment": fields.as_str(data["commitment"]),
            "positions": tuple(fields.as_int(p) for p in data["positions"]),
            "reveal": None
            if reveal is None
            else MappingProxyType({str(k): v for k, v in dict(reveal).items()}),
        }
    )


def _game(g: Any) -> RecalledGame:
    if not isinstance(g, Mapping):
        raise TypeError(f"a recalled game is a JSON object, got {type(g).__name__}")
    from terminal_client import games

    return games.for_recall(g).parse_recalled(g)


def parse_recall(data: Any) -> Recall:
    """Read a ``GetRecall`` answer (see the module docstring)."""
    doc = _check(data, RECALL_VERSION, "game recall")
    try:
        return Recall(fields.as_str(doc["terminal"]), tuple(_game(g) for g in doc["games"]))
    except (KeyError, TypeError, ValueError, AttributeError, ETGError) as exc:
        raise MalformedView(
            f"the server sent game recall this terminal cannot read: {exc!r}"
        ) from None
