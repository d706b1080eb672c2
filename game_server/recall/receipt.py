"""Game receipts: one game's cards, positions and shoe, checkable without the log.

A receipt (``docs/shoe-spec.md`` section 7) is a small JSON document made from the event log
for one game: its ``game`` part (the table, round, game, engine version, Rules Submission
hash, the shoe's number, decks and commitment, and every card dealt with its position in
the shoe) and that part's SHA-256 ``digest`` (what the terminal's QR code shows as soon as
the game is over), then, once the shoe is retired, the shoe's ``reveal`` (its seed material
and salt). Anyone can check it with ``tools/verify_receipt.py``, one file with no import
from this project; :func:`check_receipt` is the project's own check of the same facts, with
the certified shoe code (``etg verify`` uses that code too): the digest, the QR code's text
made of the table, round and digest, the reveal's seq after the commitment and the cards,
the reveal against the commitment and every card at its position.

Nothing secret is in a receipt before the shoe is retired: the reveal is read from the
log's ``shoe_revealed`` only.

Entry points: :func:`build_receipt`, :func:`receipt_game`, :func:`receipt_digest`,
:func:`qr_payload`, :func:`check_receipt`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, Final

from game_server.eventlog import EventLogReader
from game_server.games import game_for, games
from game_server.recall.query import RecallError, shoe_reveal
from game_server.recall.rounds import Logged, LoggedRound, decode
from game_server.recall.timeline import reveal_fields
from game_server.rng.errors import BadDeckCount, BadSeedMaterial
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.table.events import RoundStarted
from shared.cards import parse_card
from shared.codec import canonical_json
from shared.errors import CardError

#: The ``format`` of a receipt (a change of its fields is a new format).
RECEIPT_FORMAT: Final = "etg-game-receipt/1"
#: What the QR code's text starts with: ``etg-receipt/1:<table>:<round>:<digest>``.
QR_PREFIX: Final = "etg-receipt/1"
#: How a receipt is checked, as the receipt tells its reader.
VERIFY_HINT: Final = (
    "python verify_receipt.py THIS_FILE (tools/verify_receipt.py: Python's standard library "
    "only; the algorithm is docs/shoe-spec.md)"
)


def receipt_digest(game: Mapping[str, Any]) -> str:
    """Hex SHA-256 of the canonical JSON of a receipt's ``game`` part."""
    return hashlib.sha256(canonical_json(dict(game))).hexdigest()


def qr_payload(game: Mapping[str, Any]) -> str:
    """The text of the receipt's QR code: the table, the round and the digest."""
    return f"{QR_PREFIX}:{game['table']}:{game['round']}:{receipt_digest(game)}"


def _shoe_card_kinds() -> frozenset[type]:
    """Every kind of record whose ``card`` left the shoe at ``position``, whatever the game
    (a table's log may hold rounds of the games it dealt before a stated change)."""
    return frozenset(kind for game in games() for kind in game.shoe_card_kinds)


def unseen_table_cards(logged: LoggedRound) -> frozenset[int]:
    """The seqs of the round's table cards (no terminal: the dealer's, the board's) that
    no player has seen so far: dealt face down and not (yet) turned up, as the game's own
    recall tells it (:meth:`~game_server.games.api.Game.describe` gives such a card as
    ``None``: a blackjack hole card before ``hole_card_revealed``, the UTH dealer's cards
    when every player folded)."""
    config = logged.config
    game = game_for(config)
    started = logged.started
    seats: dict[int, str] = {}
    if started is not None and game.seated(config):
        seats = dict(zip(started.seats, started.terminals, strict=False))
    labels = game.recall_labels(config, seats, logged.events)
    dealt = _shoe_card_kinds()
    unseen = set()
    for item in logged.events:
        if item.stored.terminal is not None or type(item.event) not in dealt:
            continue
        described = game.describe(config, item, labels)
        if described is not None and described[2].get("card", "") is None:
            unseen.add(item.seq)
    return frozenset(unseen)


def receipt_game(logged: LoggedRound, software: str, terminal: str | None) -> dict[str, Any]:
    """The ``game`` part of the receipt of ``logged``: for None every card (the operator's
    receipt); for ``terminal`` only the cards its player saw: its own and the table's that
    were shown (never another player's, nor a card of the table that no player has seen,
    :func:`unseen_table_cards`, so that neither the receipt nor its digest tells one:
    ``docs/shoe-spec.md`` section 7).

    Raises:
        RecallError: the round has no shoe commitment before it in the log.
    """
    shoe = logged.shoe
    if shoe is None:
        raise RecallError(
            f"round {logged.round_id} of table {logged.table_id} has no shoe commitment "
            "before it in the log: there is nothing to make a receipt of"
        )
    committed = shoe.committed.event
    started = logged.started
    dealt = _shoe_card_kinds()
    unseen = unseen_table_cards(logged) if terminal is not None else frozenset()
    cards = [
        {
            "position": item.event.position,
            "card": str(item.event.card),
            "holder": item.stored.terminal or "table",
            "kind": item.stored.kind,
            "seq": item.seq,
        }
        for item in logged.events
        if type(item.event) in dealt
        and (terminal is None or item.stored.terminal in (None, terminal))
        and item.seq not in unseen
    ]
    game = game_for(logged.config)
    return {
        "table": logged.table_id,
        "round": logged.round_id,
        "game": game.name,
        "title": game.title,
        "terminal": terminal,
        "software": software,
        "rules_hash": started.config_hash
        if isinstance(started, RoundStarted)
        else logged.config.config_hash(),
        "started": logged.events[0].stored.time,
        "complete": logged.complete,
        "shoe": {
            "number": committed.shoe,
            "decks": committed.decks,
            "cut_card": committed.cut_card,
            "commitment": committed.commitment,
            "committed_seq": shoe.committed.seq,
        },
        "cards": cards,
    }


def reveal_part(revealed: Logged | None) -> dict[str, Any] | None:
    """The receipt's ``reveal`` from the log's ``shoe_revealed`` (None: not retired yet)."""
    if revealed is None:
        return None
    return {**reveal_fields(revealed), "revealed_seq": revealed.seq}


def software_of(reader: EventLogReader, logged: LoggedRound) -> str:
    """The engine version of the ``table_opened`` the round was played under."""
    stored = reader.event(logged.config_seq)
    if stored is None:  # pragma: no cover - fetch_round read it in the same snapshot
        raise RecallError(f"the log has no event at seq {logged.config_seq}")
    return str(decode(stored).software)


def build_receipt(
    reader: EventLogReader, logged: LoggedRound, terminal: str | None = None
) -> dict[str, Any]:
    """The receipt of one game (see the module docstring), read in one snapshot.

    Raises:
        RecallError: the round has no shoe commitment, or ``terminal`` took no part in it.
    """
    with reader.snapshot():
        if terminal is not None:
            started = logged.started
            if started is None or terminal not in started.terminals:
                raise RecallError(
                    f"terminal {terminal} took no part in round {logged.round_id} of table "
                    f"{logged.table_id}"
                )
        game = receipt_game(logged, software_of(reader, logged), terminal)
        revealed = shoe_reveal(reader, logged)
        return {
            "format": RECEIPT_FORMAT,
            "game": game,
            "digest": receipt_digest(game),
            "qr": qr_payload(game),
            "reveal": reveal_part(revealed),
            "log": {"log_id": reader.log_id},
            "verify": VERIFY_HINT,
        }


def check_receipt(receipt: Any) -> list[str]:
    """The project's own check of a receipt (the same facts as ``tools/verify_receipt.py``,
    with the certified shoe code): every reason it fails, empty when it checks out."""
    if not isinstance(receipt, dict) or receipt.get("format") != RECEIPT_FORMAT:
        return [f"not a game receipt of format {RECEIPT_FORMAT!r}"]
    problems = []
    game = receipt.get("game")
    if not isinstance(game, dict):
        return ["the receipt has no game part"]
    try:
        digest = receipt_digest(game)
    except ValueError as exc:  # a float or NaN: no canonical JSON
        return [f"the receipt cannot be read: {exc}"]
    if receipt.get("digest") != digest:
        problems.append("the game part does not hash to the receipt's digest")
    reveal = receipt.get("reveal")
    try:
        stated = f"{QR_PREFIX}:{game['table']}:{game['round']}:{receipt['digest']}"
        if receipt.get("qr") != stated:
            problems.append(f"the QR text is not {stated!r}, the one the receipt makes")
        if not isinstance(reveal, dict):
            return [*problems, "the shoe is not revealed yet"]
        problems += _revealed_after(reveal["revealed_seq"], game)
        shoe = game["shoe"]
        seed = ShoeSeed.from_dict(
            {k: reveal[k] for k in ("entropy_input", "nonce", "personalization")}
        )
        salt = bytes.fromhex(reveal["salt"])
        regenerated = Shoe(shoe["decks"], seed)
        expected = f"{game['table']}/{shoe['number']}".encode()
        cards = [(int(c["position"]), parse_card(c["card"])) for c in game["cards"]]
    except (KeyError, TypeError, ValueError, BadSeedMaterial, BadDeckCount, CardError) as exc:
        return [*problems, f"the receipt cannot be read: {exc}"]
    if seed.personalization != expected:
        problems.append(f"the seed is personalized {seed.personalization!r}, not {expected!r}")
    if regenerated.commitment(salt) != str(shoe["commitment"]).lower():
        return [*problems, "the revealed seed and salt do not make the committed shoe"]
    order = regenerated.order
    for position, card in cards:
        if not 0 <= position < len(order) or order[position] != card:
            problems.append(f"{card} is not the shoe's card at position {position}")
    return problems


def _revealed_after(revealed_seq: Any, game: Mapping[str, Any]) -> list[str]:
    """Why ``revealed_seq`` cannot be the reveal's seq: a shoe is revealed once retired,
    between rounds, so after its commitment and after every card of the game."""
    if not isinstance(revealed_seq, int) or isinstance(revealed_seq, bool):
        return [f"the reveal's seq {revealed_seq!r} is not an integer"]
    last = max([int(game["shoe"]["committed_seq"])] + [int(c["seq"]) for c in game["cards"]])
    if revealed_seq <= last:
        return [f"the reveal's seq {revealed_seq} is not after seq {last} (commitment, cards)"]
    return []
