"""``etg sim`` of a Rules Submission: :func:`sim_spec`.

The simulation itself is the platform's (:mod:`game_server.sim`: :class:`SimSpec`,
:func:`run_sim`, the report :func:`~game_server.sim.format_report`), played by each game's
driver and tallied by its :meth:`~game_server.games.api.Game.tally`.

Entry point: :func:`sim_spec`.
"""

from __future__ import annotations

from game_server.config import Shuffle, TableConfig
from game_server.games import game_for
from game_server.sim import CHUNK_ROUNDS, SimSpec


def sim_spec(
    config: TableConfig,
    *,
    seats: int,
    seed: int,
    rounds: int,
    chunk_rounds: int = CHUNK_ROUNDS,
    main_wager: int | None = None,
    table_id: str | None = None,
    every_round: bool | None = None,
) -> SimSpec:
    """The simulation of ``config``'s table: its rules, shuffle and game (``every_round``
    True overrides the shuffle: a new shoe every round, as the par sheet plays)."""
    fresh = config.shuffle is Shuffle.EVERY_ROUND if every_round is None else every_round
    return SimSpec(
        rules=config.rules,
        every_round=fresh,
        cut_card=None if every_round else config.cut_card,
        seats=seats,
        seed=seed,
        rounds=rounds,
        chunk_rounds=chunk_rounds,
        main_wager=main_wager,
        table_id=f"sim-{config.table_id}" if table_id is None else table_id,
        table_type=config.table_type,
        game=game_for(config).name,
        must_hit_by=config.must_hit_by,
    )
