"""Floor-wide recall: ``etg recall list/show --store URL`` over every table log of the store.

Each log the store holds is an :class:`~game_server.floor.source.StoreLogSource`, and each is
searched with the one recall code (:func:`~game_server.recall.query.list_rounds`,
:func:`~game_server.recall.query.find_table`, :func:`~game_server.recall.query.fetch_round`)
that ``etg recall`` runs on one file; this module merges what the logs found and says which
server's log holds each round.

Entry points: :func:`floor_rounds`, :func:`floor_round`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from game_server.floor.source import StoreLogSource
from game_server.recall.query import (
    AmbiguousRound,
    RoundNotFound,
    RoundSummary,
    find_table,
    list_rounds,
)


@dataclass(frozen=True)
class FloorRound:
    """A round found on the floor: the server and log that hold it, and its summary."""

    server: str
    log_id: str
    summary: RoundSummary


def floor_rounds(
    sources: Sequence[StoreLogSource],
    *,
    last: int,
    terminal: str | None = None,
    table: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    wager: str | None = None,
    min_payout: int | None = None,
) -> list[FloorRound]:
    """The most recent rounds of every log that pass the filters (those of
    :func:`~game_server.recall.query.list_rounds`), newest first by their last event."""
    found: list[FloorRound] = []
    for source in sources:
        for summary in list_rounds(
            source,
            last=last,
            terminal=terminal,
            table=table,
            since=since,
            until=until,
            wager=wager,
            min_payout=min_payout,
        ):
            found.append(FloorRound(source.server, source.log_id, summary))
    found.sort(key=lambda f: (f.summary.end, f.summary.last_seq), reverse=True)
    return found[:last]


def floor_round(
    sources: Sequence[StoreLogSource], round_id: int, table: str | None
) -> tuple[StoreLogSource, str]:
    """The log and table that played round ``round_id`` (of ``table``, if given).

    Raises:
        RoundNotFound: no log holds it (each log's nearest rounds are named).
        AmbiguousRound: several tables, or one table id on several logs, played it.
    """
    hits: list[tuple[StoreLogSource, str]] = []
    misses: list[str] = []
    for source in sources:
        try:
            hits.append((source, find_table(source, round_id, table)))
        except RoundNotFound as exc:
            misses.append(f"{source.server}: {exc}")
        except AmbiguousRound as exc:
            raise AmbiguousRound(f"{source.server}: {exc}") from None
    if len(hits) == 1:
        return hits[0]
    if hits:
        where = ", ".join(f"table {t} on {s.server} (log {s.log_id})" for s, t in hits)
        raise AmbiguousRound(
            f"round {round_id} was played at {where}; name the table with --table, or the "
            "server with --server"
        )
    if not sources:
        raise RoundNotFound("the floor store holds no table log (of that server)")
    raise RoundNotFound("\n".join(misses))
