"""The contract between the platform and a game: :class:`Game`.

The platform (the table's flow and countdowns, the network, the event log, recall, verify and
the tools) knows a game only through this protocol, declared once here and implemented by one
object per game package (``game_server/games/<game>/game.py``), found through the registry
(:mod:`game_server.games`). ``docs/adding-a-game.md`` says what a new game writes, in order.

Entry point: :class:`Game`.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from game_server.rules.wagers.base import MeterSpec, TableType

if TYPE_CHECKING:
    from game_server.config import TableConfig
    from game_server.recall.rounds import LoggedRound
    from game_server.rules.meters import MeterBank
    from game_server.table.api import HostedTable, ReactorTime
    from game_server.table.ledger import Ledger
    from game_server.table.session import EventSink, SealedShoes, TableBook

__all__ = ["Game"]


class Game(Protocol):
    """Everything the platform needs from one game.

    Identity: :attr:`name` (the registry key, the entry point's name), :attr:`title`,
    :attr:`chapter` (where the regulation text lives), the ``[table] game`` value it deals
    (:attr:`config_game`) and the table types it runs (:attr:`table_types`).
    """

    @property
    def name(self) -> str:
        """The registry key and entry point name (``"blackjack"``); unique."""
        ...

    @property
    def title(self) -> str:
        """What people call it (``"Ultimate Texas Hold 'Em"``)."""
        ...

    @property
    def chapter(self) -> str:
        """The regulation it implements (``"58 Pa. Code 653a"``)."""
        ...

    @property
    def config_game(self) -> str:
        """The ``[table] game`` of its Rules Submissions (games may share one: the hybrid
        tables deal Blackjack and differ by ``[table] type``)."""
        ...

    @property
    def table_types(self) -> frozenset[TableType]:
        """The table types it runs."""
        ...

    # -------------------------------------------------------------- the Rules Submission

    @property
    def examples(self) -> tuple[Path, ...]:
        """Its example Rules Submissions (TOML files shipped with it)."""
        ...

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        """Check a parsed Rules Submission of this game and build its config (every problem
        collected into one :class:`~game_server.config.ConfigError`, each naming its field
        and, where a regulation is the reason, the section)."""
        ...

    def logged_config(self, config: TableConfig) -> dict[str, Any]:
        """The config as logged in ``table_opened`` (:meth:`TableConfig.to_dict`): plain data,
        cents as integers, schema :data:`~game_server.config.CONFIG_SCHEMA`. Its canonical
        JSON's SHA-256 is the config hash: never change it for an existing game."""
        ...

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        """The logged form back in the file's shape (what :meth:`build_config` reads), so that
        a logged config is checked again as a file would be."""
        ...

    # ----------------------------------------------------------------- the live table

    def open_session(
        self,
        config: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank,
    ) -> TableBook:
        """A session of one table of this game, writing to ``sink`` (the event log, or
        memory): the :class:`~game_server.table.session.TableBook` that turns each input into
        one logged engine step. ``seats`` maps each terminal of the table to its seat (a game
        in stadium play takes the terminals and no seats); ``meters`` are the server's
        progressive meters (linked tables share them)."""
        ...

    def machine(
        self, session: TableBook, clock: ReactorTime, next_round_delay: float
    ) -> HostedTable:
        """The live round machine around a session: the countdowns and table states of its
        rounds (:class:`~game_server.table.stadium.StadiumMachine` gives the shared ones),
        and each terminal's view and the rules document."""
        ...

    def new_ledger(self) -> Ledger:
        """A ledger that folds this game's records (what recovery, recall and the session
        fold the log with)."""
        ...

    def meters(self, config: TableConfig) -> Mapping[str, MeterSpec]:
        """Every progressive meter a table of this config opens or links: meter id -> its
        specification (recovery folds them from the log)."""
        ...

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        """Make the round the log left unfinished the session's open round (replayed through
        the engine, the shoe in use its card source) and return the phase it resumes in.

        Raises:
            RecoveryError: it does not replay, or cannot be resumed (a seated table's
                terminals must hold the seats they held in it: SeatingChanged).
        """
        ...

    @property
    def placed_kinds(self) -> frozenset[type]:
        """Its records of a wager placed (``seat``, ``wager``, ``amount``): each debits the
        terminal its envelope names (:class:`~game_server.table.ledger.Ledger`)."""
        ...

    @property
    def settled_kinds(self) -> frozenset[type]:
        """Its records of a wager settled (``wager``, ``stake``, ``paid`` with the stake
        included, ``outcome``, ``line``; optionally ``from_meter``): each credits ``paid``."""
        ...

    @property
    def completed_kinds(self) -> frozenset[type]:
        """Its records that complete a round (every wager settled): one game played."""
        ...

    @property
    def shoe_card_kinds(self) -> frozenset[type]:
        """The kinds of event whose ``card`` left the shoe at ``position`` (recovery and
        verification check them against the committed shoe)."""
        ...
