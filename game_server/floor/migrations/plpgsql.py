"""The pieces the migrations' PL/pgSQL is written with: an ingest refusal and the genesis
hash."""

from __future__ import annotations

from typing import Final

from game_server.floor.names import REFUSED_INGEST


def refuse(message: str, *args: str) -> str:
    """A plpgsql RAISE of an ingest refusal (``%`` placeholders filled by ``args``)."""
    params = "".join(f", {arg}" for arg in args)
    text = message.replace("'", "''")
    return f"RAISE EXCEPTION 'etg-floor: {text}'{params} USING ERRCODE = '{REFUSED_INGEST}';"


#: The hash before a log's first event (:mod:`game_server.eventlog.chain`), in SQL.
GENESIS: Final = "repeat('0', 64)"
