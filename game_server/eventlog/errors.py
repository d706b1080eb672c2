"""Errors of the event log: the store, the hash chain, the checkpoints and the keys it uses.

Every failure is a specific subclass of :class:`EventLogError` whose message says what was
wrong and what to do. The log is the system of record, so nothing in
``game_server.eventlog`` catches and hides one of them: a refused append must stop the table
(save, then send: a step that is not logged never happened).
"""

from __future__ import annotations

from shared.errors import ETGError


class EventLogError(ETGError):
    """Base of every error of the event log package."""


class LogNotFound(EventLogError):
    """A log opened for reading (or verification) that does not exist."""


class NotAnEventLog(EventLogError):
    """A file that is not an ETG event log: not SQLite, or a SQLite database of someone else.

    Raised before anything is written: the file is left exactly as it was.
    """


class SchemaTooNew(EventLogError):
    """A log written by a newer ETG whose schema this code does not know.

    Raised before anything is written: upgrade ETG to open it.
    """


class LogKindMismatch(EventLogError):
    """A log opened for writing by another kind of writer than the one that created it (a
    table server's log given to ``etg sim --log``, or a simulation's to a table server).

    Raised before anything is written.
    """


class LogDamaged(EventLogError):
    """A log whose database file SQLite cannot read (truncated, overwritten, malformed)."""


class LogKeyError(EventLogError):
    """A log-signing key that is missing, unreadable, of the wrong type, or not the log's."""


class ChainBroken(EventLogError):
    """The hash chain or a checkpoint does not match the stored rows.

    Attributes:
        seq: The first sequence number found at fault.
    """

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(message)
        self.seq = seq


class AppendRefused(EventLogError):
    """A step (or checkpoint) that the log did not store; nothing of it was written."""


class WriterConflict(AppendRefused):
    """The log was changed by another writer since this one last wrote to it.

    There is exactly one writer per log (:class:`~game_server.eventlog.log.EventLog`); a second
    process appending to the same file is a misconfiguration.
    """


class LogOutOfService(AppendRefused):
    """An append to a log whose earlier write failed: refused until the writer has proven
    the log again (:meth:`~game_server.eventlog.log.EventLog.resume`)."""


class LogClosed(EventLogError):
    """An append or checkpoint asked of an :class:`~game_server.eventlog.log.EventLog` that
    was closed."""
