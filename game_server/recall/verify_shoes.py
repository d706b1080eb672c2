"""``etg verify``'s checks of shoes and cards: each shoe's commitment and reveal, the order
regenerated from its seed (or unsealed with the sealing key), each dealt card against that
order at its position, after the last card dealt from the shoe, and what a game drew from a
deck's seed (the walk, :mod:`game_server.recall.verify_walk`, mixes these in).

Entry point: :class:`ShoeChecks`.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from game_server.config import TableConfig
from game_server.eventlog import (
    StoredEvent,
)
from game_server.games.api import (
    RecalledGame,
)
from game_server.keys import SealError, unseal
from game_server.recall.verify_report import Findings
from game_server.rng.errors import BadDeckCount, BadSeedMaterial
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.wagers.base import TableType
from game_server.table.session import seal_context
from shared.cards import Card

#: The check of one kind of record: ``(stored event, its record)``.
Handler = Callable[[StoredEvent, Any], None]

#: The seat of the dealer in every game's records.
DEALER: Final = 0

# ----------------------------------------------------------------------------- shoes


@dataclass
class _Shoe:
    """What the log says about one shoe, and what is known of its order."""

    table_id: str
    number: int
    decks: int
    commitment: str
    sealed: str
    committed_seq: int
    revealed_seq: int | None = None
    order: tuple[Card, ...] | None = None
    #: The reveal did not regenerate the commitment: its order is not trusted.
    bad_reveal: bool = False
    last_position: int = -1
    rounds: int = 0
    #: Cards waiting for the order: (seq, kind, position, card).
    pending: list[tuple[int, str, int, Card]] = field(default_factory=list)
    #: The seed, once revealed or unsealed (what a game draws from it is checked by it).
    seed: ShoeSeed | None = None
    #: The order unsealed with the sealing key before the walk's end, to replay a round in
    #: play whose face-down cards the log holds sealed (settled at the end as any other).
    sealed_order: tuple[Card, ...] | None = None
    #: Draws from the seed waiting for it: (seq, game, config in force, record).
    draws: list[tuple[int, RecalledGame, TableConfig, Any]] = field(default_factory=list)


@dataclass
class _Table:
    """One table's state in the walk."""

    shoes: dict[int, _Shoe] = field(default_factory=dict)
    dealing: _Shoe | None = None
    last_round: int | None = None
    last_shoe: int | None = None
    terminal_of: dict[int, str] = field(default_factory=dict)
    terminals: tuple[str, ...] = ()
    #: Between round_started and round_closed.
    round_open: bool = False
    #: The type of the table in force (from the last table_opened).
    table_type: TableType = TableType.FULLY_AUTOMATED
    #: The checks of each kind of event at this table's game and type.
    handlers: dict[type, Handler] = field(default_factory=dict)
    #: No-hole-card table, this round: player number -> terminal, and back (633b.5(w)-(ee)).
    players: dict[int, str] = field(default_factory=dict)
    numbers: dict[str, int] = field(default_factory=dict)
    #: The game in force (from the last table_opened).
    game: RecalledGame | None = None
    #: Its config, for a game that checks draws from the seed (None otherwise).
    config: TableConfig | None = None
    #: The round's cards logged sealed (position -> (seq, kind)), until its cards_unsealed.
    sealed: dict[int, tuple[int, str]] = field(default_factory=dict)


class _CommitmentMismatch(ValueError):
    """A regenerated shoe whose commitment is not the logged one."""

    def __init__(self, regenerated: str, committed: str) -> None:
        super().__init__(
            f"the seed regenerates a shoe whose commitment is {regenerated}, not the committed "
            f"{committed}"
        )


def _regenerate(decks: int, seed: ShoeSeed, salt: bytes, commitment: str) -> tuple[Card, ...]:
    """The order of ``Shoe(decks, seed)``, checked: ``SHA-256(order || salt)`` must be
    ``commitment`` (what :func:`game_server.rng.shoe.verify_reveal` does, keeping the order).

    Raises:
        _CommitmentMismatch: the regenerated shoe has another commitment.
        BadDeckCount: not a deck count a shoe can hold.
    """
    shoe = Shoe(decks, seed)
    regenerated = shoe.commitment(salt)
    if not hmac.compare_digest(regenerated, commitment.lower()):
        raise _CommitmentMismatch(regenerated, commitment)
    return shoe.order


class ShoeChecks:
    """The walk's checks of shoes and cards (mixed into its one pass over the log)."""

    f: Findings
    sealing_key: bytes | None
    cards_checked: int
    shoes_checked: int
    _table: _Table

    def _envelope(self, stored: StoredEvent, seat: int) -> None:
        expected = None if seat == DEALER else self._table.terminal_of.get(seat)
        if stored.terminal != expected:
            self.f.fail(
                stored.seq,
                "rounds",
                f"{stored.kind} at seq {stored.seq} is for seat {seat} "
                f"({'the dealer' if seat == DEALER else f'terminal {expected}'}) but its "
                f"envelope names terminal {stored.terminal}",
            )

    def _dealer(self, stored: StoredEvent, ev: Any) -> None:
        if stored.terminal is not None:
            self._envelope(stored, DEALER)

    def _card(self, stored: StoredEvent, position: int, card: Card | None) -> None:
        if card is None:
            # Sealed (dealt face down, game_server.table.secrecy): checked when the round's
            # cards_unsealed names it.
            self._table.sealed[position] = (stored.seq, stored.kind)
            return
        shoe = self._table.dealing
        if shoe is None:
            if not self._table.round_open:  # else round_started was found at fault already
                self.f.fail(
                    stored.seq,
                    "rounds",
                    f"{stored.kind} at seq {stored.seq} is outside any round (between "
                    "round_closed and the next round_started)",
                )
            return
        order = shoe.order
        if order is not None:
            self._compare(shoe, order, stored.seq, stored.kind, position, card)
        elif not shoe.bad_reveal:
            shoe.pending.append((stored.seq, stored.kind, position, card))

    def _compare(
        self,
        shoe: _Shoe,
        order: tuple[Card, ...],
        seq: int,
        kind: str,
        position: int,
        card: Card,
    ) -> None:
        self.cards_checked += 1
        if not 0 <= position < len(order):
            self.f.fail(
                seq,
                "cards",
                f"{kind} at seq {seq}: position {position} is outside shoe {shoe.number}'s "
                f"{len(order)} cards",
            )
        elif order[position] != card:
            self.f.fail(
                seq,
                "cards",
                f"{kind} at seq {seq}: the log says {card} at position {position} of shoe "
                f"{shoe.number}, but the shoe holds {order[position]} there (a card that did not "
                "come from the committed shoe)",
            )

    def _card_dealt(self, stored: StoredEvent, ev: Any) -> None:
        table = self._table
        if stored.terminal != table.terminal_of.get(ev.seat):
            self._envelope(stored, ev.seat)
        self._dealt(stored, ev.position, ev.card)

    def _dealt(self, stored: StoredEvent, position: int, card: Card) -> None:
        """A card that left the shoe: after the last one dealt from it, and the shoe's card."""
        shoe = self._table.dealing
        if shoe is not None:
            if position <= shoe.last_position:
                self.f.fail(
                    stored.seq,
                    "rounds",
                    f"{stored.kind} at seq {stored.seq} is at position {position} of shoe "
                    f"{shoe.number}, not after the last card dealt from it (position "
                    f"{shoe.last_position})",
                )
            else:
                shoe.last_position = position
        self._card(stored, position, card)

    def _seat_card(self, stored: StoredEvent, ev: Any) -> None:
        """A card of a seat (1..) names its terminal; a card of the dealer or the board (a
        seat below 1) names none."""
        seat = ev.seat if ev.seat >= 1 else DEALER
        expected = None if seat == DEALER else self._table.terminal_of.get(seat)
        if stored.terminal != expected:
            self._envelope(stored, seat)
        self._dealt(stored, ev.position, ev.card)

    def _seeded(self, stored: StoredEvent, ev: Any) -> None:
        """A record of what the table game system drew from the seed of the round's deck
        (a bonus card, a lucky position): its game checks it against that seed once the seed
        is known (revealed, or unsealed with the sealing key)."""
        self._dealer(stored, ev)
        table = self._table
        shoe = table.dealing
        if shoe is None or table.game is None or table.config is None:
            return
        shoe.draws.append((stored.seq, table.game, table.config, ev))
        if shoe.seed is not None:
            self._check_draws(shoe)

    def _check_draws(self, shoe: _Shoe) -> None:
        seed = shoe.seed
        if seed is None:
            return
        for seq, game, config, ev in shoe.draws:
            self.cards_checked += 1
            problem = game.seeded_draw_problem(seed, config, ev, seq, shoe.number)
            if problem is not None:
                self.f.fail(seq, "cards", problem)
        shoe.draws = []

    # ------------------------------------------------------ tables in stadium play

    def _table_card(self, stored: StoredEvent, ev: Any) -> None:
        """A card of the dealer, of every player or of the community box: no terminal's."""
        if stored.terminal is not None:
            self.f.fail(
                stored.seq,
                "rounds",
                f"{stored.kind} at seq {stored.seq} is a card of the table (the dealer's, every "
                f"player's or a community card) but its envelope names terminal "
                f"{stored.terminal}",
            )
        self._dealt(stored, ev.position, ev.card)

    def _cards_unsealed(self, stored: StoredEvent, ev: Any) -> None:
        """The close of a round unseals every card it logged sealed, each the shoe's card at
        its position; it names no position that was not sealed, and is the table's record."""
        table = self._table
        if stored.terminal is not None:
            self.f.fail(
                stored.seq,
                "rounds",
                f"cards_unsealed at seq {stored.seq} is the table's record, but its envelope "
                f"names terminal {stored.terminal}",
            )
        for position, card in zip(ev.positions, ev.cards, strict=False):
            sealed = table.sealed.pop(position, None)
            if sealed is None:
                self.f.fail(
                    stored.seq,
                    "cards",
                    f"cards_unsealed at seq {stored.seq} unseals position {position}, which no "
                    "record of the round logged sealed",
                )
                continue
            seq, kind = sealed
            shoe = table.dealing
            if shoe is None:
                continue
            if shoe.order is not None:
                self._compare(shoe, shoe.order, seq, kind, position, card)
            elif not shoe.bad_reveal:
                shoe.pending.append((seq, kind, position, card))
        if len(ev.positions) != len(ev.cards):
            self.f.fail(
                stored.seq,
                "cards",
                f"cards_unsealed at seq {stored.seq} names {len(ev.positions)} positions and "
                f"{len(ev.cards)} cards",
            )

    def _unsealed_at_close(self, stored: StoredEvent) -> None:
        """At the round's close every sealed card must have been unsealed."""
        table = self._table
        if table.sealed:
            positions = ", ".join(str(p) for p in sorted(table.sealed))
            self.f.fail(
                stored.seq,
                "cards",
                f"round_closed at seq {stored.seq}: the round logged {len(table.sealed)} "
                f"card(s) sealed that no cards_unsealed unsealed (positions {positions})",
            )
            table.sealed.clear()

    def _shoe_committed(self, stored: StoredEvent, ev: Any) -> None:
        table = self._table
        if ev.shoe in table.shoes:
            self.f.fail(
                stored.seq,
                "shoes",
                f"shoe_committed at seq {stored.seq} commits shoe {ev.shoe} of table "
                f"{stored.table_id} again (first committed at seq "
                f"{table.shoes[ev.shoe].committed_seq})",
            )
            return
        if table.last_shoe is not None and ev.shoe != table.last_shoe + 1:
            self.f.fail(
                stored.seq,
                "rounds",
                f"shoe_committed at seq {stored.seq} commits shoe {ev.shoe} after shoe "
                f"{table.last_shoe} (shoe numbers go up by one)",
            )
        table.last_shoe = ev.shoe
        table.shoes[ev.shoe] = _Shoe(
            stored.table_id, ev.shoe, ev.decks, ev.commitment, ev.sealed_seed, stored.seq
        )

    def _shoe_revealed(self, stored: StoredEvent, ev: Any) -> None:
        seq = stored.seq
        shoe = self._table.shoes.get(ev.shoe)
        if shoe is None:
            self.f.fail(
                seq,
                "shoes",
                f"shoe_revealed at seq {seq} reveals shoe {ev.shoe} of table {stored.table_id}, "
                "which was never committed",
            )
            return
        if shoe.revealed_seq is not None:
            self.f.fail(
                seq,
                "shoes",
                f"shoe_revealed at seq {seq} reveals shoe {ev.shoe} again (first revealed at seq "
                f"{shoe.revealed_seq})",
            )
            return
        shoe.revealed_seq = seq
        if self._table.round_open and self._table.dealing is shoe:
            self.f.fail(
                seq,
                "rounds",
                f"shoe_revealed at seq {seq} reveals shoe {ev.shoe} while round "
                f"{self._table.last_round} is still dealt from it (its remaining cards were "
                "public)",
            )
        where = (
            f"shoe_revealed at seq {seq} (shoe {ev.shoe}, committed at seq {shoe.committed_seq})"
        )
        try:
            seed = ShoeSeed.from_dict(
                {
                    "entropy_input": ev.entropy_input,
                    "nonce": ev.nonce,
                    "personalization": ev.personalization,
                }
            )
            salt = bytes.fromhex(ev.salt)
            order = _regenerate(shoe.decks, seed, salt, shoe.commitment)
        except (BadSeedMaterial, BadDeckCount, ValueError) as exc:
            self.f.fail(seq, "shoes", f"{where}: forged or wrong shoe reveal: {exc}")
            shoe.bad_reveal = True
            sealed = self._unsealed(shoe)
            if sealed is None:
                if shoe.pending or shoe.rounds:
                    self.f.warn(
                        seq,
                        "cards",
                        f"the {len(shoe.pending)} cards dealt from shoe {shoe.number} "
                        f"({shoe.rounds} rounds) are not checked: its reveal does not match its "
                        "commitment" + ("" if self.sealing_key else " (no sealing key)"),
                    )
                shoe.pending = []
                return
            order = sealed
        else:
            personalization = f"{stored.table_id}/{ev.shoe}".encode()
            if seed.personalization != personalization:
                self.f.fail(
                    seq,
                    "shoes",
                    f"{where}: the shoe was seeded with the personalization "
                    f"{seed.personalization!r}, not its table and number {personalization!r} "
                    "(docs/design.md: each shoe's DRBG is personalized with them)",
                )
            if self.sealing_key is not None:
                self._cross_check(shoe, seed, salt, seq)
            shoe.seed = seed
        self._settle(shoe, order)

    def _cross_check(self, shoe: _Shoe, seed: ShoeSeed, salt: bytes, seq: int) -> None:
        """With the sealing key: the sealed seed must be the one revealed."""
        secret = self._open(shoe)
        if secret is not None and secret != (seed, salt):
            self.f.fail(
                seq,
                "shoes",
                f"shoe_revealed at seq {seq}: the seed sealed in shoe_committed at seq "
                f"{shoe.committed_seq} is not the seed revealed",
            )

    def _open(self, shoe: _Shoe) -> tuple[ShoeSeed, bytes] | None:
        """The seed and salt sealed in the shoe's commitment (None, with a warning, if the
        sealing key does not open it)."""
        assert self.sealing_key is not None
        try:
            blob = bytes.fromhex(shoe.sealed)
            plain = unseal(self.sealing_key, blob, seal_context(shoe.table_id, shoe.number))
            secret = json.loads(plain)
            return ShoeSeed.from_dict(secret["seed"]), bytes.fromhex(secret["salt"])
        except (SealError, BadSeedMaterial, ValueError, KeyError, TypeError) as exc:
            self.f.warn(
                shoe.committed_seq,
                "shoes",
                f"the sealed seed of shoe {shoe.number} (shoe_committed at seq "
                f"{shoe.committed_seq}) does not open with the sealing key given: {exc}",
            )
            return None

    def _unsealed(self, shoe: _Shoe) -> tuple[Card, ...] | None:
        """The order sealed in the commitment, when the sealing key opens it and it matches
        the commitment (a mismatch is a failure); unsealed once per shoe."""
        if shoe.sealed_order is not None:
            return shoe.sealed_order
        if self.sealing_key is None:
            return None
        secret = self._open(shoe)
        if secret is None:
            return None
        seed, salt = secret
        try:
            order = _regenerate(shoe.decks, seed, salt, shoe.commitment)
            shoe.seed = seed
            shoe.sealed_order = order
            return order
        except (BadDeckCount, ValueError) as exc:
            self.f.fail(
                shoe.committed_seq,
                "shoes",
                f"shoe_committed at seq {shoe.committed_seq}: the sealed seed of shoe "
                f"{shoe.number} does not regenerate the committed shoe: {exc}",
            )
            return None

    def _settle(self, shoe: _Shoe, order: tuple[Card, ...]) -> None:
        """The shoe's order is known: check the cards (and draws) that waited for it."""
        shoe.order = order
        self._check_draws(shoe)
        self.shoes_checked += 1
        size = len(order)
        matched = 0
        for seq, kind, position, card in shoe.pending:
            if 0 <= position < size and order[position] == card:
                matched += 1
            else:
                self._compare(shoe, order, seq, kind, position, card)
        self.cards_checked += matched
        shoe.pending = []
