"""The append-only, tamper-evident event log: the system of record of every table.

Entry points:

- :meth:`EventLog.create_or_open` -- the one writer: :meth:`EventLog.append` stores one
  engine step in one transaction, :meth:`EventLog.checkpoint` signs the chain so far,
  :meth:`EventLog.close` writes a shutdown checkpoint.
- :meth:`EventLogReader.open` -- read-only streaming and recall queries.
- :func:`verify_chain` -- recompute the whole chain and check every checkpoint.
- :mod:`game_server.eventlog.chain` -- the exact hash-chain and checkpoint-message
  definitions an independent verifier implements.
- :class:`EventStore` / :class:`EventSource` -- the backend interfaces: SQLite is every
  table's log; the floor store keeps a shipped copy in PostgreSQL and reads through its own
  :class:`EventSource` (``game_server.floor.source``; docs/design.md "The floor").

Storage is SQLite through sqlite-utils: STRICT tables, WAL, ``synchronous=FULL``, named
migrations, triggers that refuse UPDATE and DELETE (docs/design.md "Event log"; see
:mod:`game_server.eventlog.schema`).
"""

from game_server.eventlog.anchors import (
    AnchorError,
    AnchorFile,
    AnchorSink,
    AnchorSource,
    AnchorStream,
    AnchorStreamDamaged,
    AnchorWriteFailed,
    check_anchors,
)
from game_server.eventlog.chain import (
    CHAIN_FORMAT,
    CHECKPOINT_DOMAIN,
    CHECKPOINT_DOMAIN_V2,
    GENESIS_HASH,
    checkpoint_message,
    entry_dict,
    entry_text,
    message_of,
    meta_digest,
    next_hash,
    plan_step,
    row_hash,
)
from game_server.eventlog.errors import (
    AppendRefused,
    ChainBroken,
    EventLogError,
    LogClosed,
    LogDamaged,
    LogKeyError,
    LogKindMismatch,
    LogNotFound,
    LogOutOfService,
    NotAnEventLog,
    SchemaTooNew,
    WriterConflict,
)
from game_server.eventlog.locks import LockGuard, LockLost
from game_server.eventlog.log import (
    DEFAULT_TAIL,
    MIGRATED,
    MONEY_MOVED,
    ROUND_CLOSE,
    SHUTDOWN,
    EventLog,
    prove_log,
)
from game_server.eventlog.reader import EventLogReader
from game_server.eventlog.records import (
    ChainHead,
    Checkpoint,
    Clock,
    EventRow,
    NewEvent,
    RoundSpan,
    StoredEvent,
    StoredStep,
    format_time,
    parse_time,
    system_clock,
)
from game_server.eventlog.schema import (
    APPLICATION_ID,
    MIGRATIONS,
    PRODUCT,
    SCHEMA_VERSION,
    SIMULATION_LOG,
    TABLE_LOG,
    TRIGGERS,
)
from game_server.eventlog.sqlite_store import SqliteEventStore
from game_server.eventlog.store import EventSource, EventStore
from game_server.eventlog.verify import ChainProblem, ChainReport, verify_chain

__all__ = [
    "APPLICATION_ID",
    "CHAIN_FORMAT",
    "CHECKPOINT_DOMAIN",
    "CHECKPOINT_DOMAIN_V2",
    "DEFAULT_TAIL",
    "GENESIS_HASH",
    "MIGRATED",
    "MIGRATIONS",
    "MONEY_MOVED",
    "PRODUCT",
    "ROUND_CLOSE",
    "SCHEMA_VERSION",
    "SHUTDOWN",
    "SIMULATION_LOG",
    "TABLE_LOG",
    "TRIGGERS",
    "AnchorError",
    "AnchorFile",
    "AnchorSink",
    "AnchorSource",
    "AnchorStream",
    "AnchorStreamDamaged",
    "AnchorWriteFailed",
    "AppendRefused",
    "ChainBroken",
    "ChainHead",
    "ChainProblem",
    "ChainReport",
    "Checkpoint",
    "Clock",
    "EventLog",
    "EventLogError",
    "EventLogReader",
    "EventRow",
    "EventSource",
    "EventStore",
    "LockGuard",
    "LockLost",
    "LogClosed",
    "LogDamaged",
    "LogKeyError",
    "LogKindMismatch",
    "LogNotFound",
    "LogOutOfService",
    "NewEvent",
    "NotAnEventLog",
    "RoundSpan",
    "SchemaTooNew",
    "SqliteEventStore",
    "StoredEvent",
    "StoredStep",
    "WriterConflict",
    "check_anchors",
    "checkpoint_message",
    "entry_dict",
    "entry_text",
    "format_time",
    "message_of",
    "meta_digest",
    "next_hash",
    "parse_time",
    "plan_step",
    "prove_log",
    "row_hash",
    "system_clock",
    "verify_chain",
]
