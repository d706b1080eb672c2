"""Anchors: every signed checkpoint also kept OUTSIDE the log, so a cut-back log is found.

A log's own checkpoints prove its rows unchanged, but not that rows are not missing at its
end: whoever can edit the file can delete the last rounds together with the checkpoints that
covered them, and what is left still verifies. A checkpoint kept elsewhere as it is made (an
*anchor*) closes that hole: ``etg verify DB --anchors PATH`` fails when the log lacks,
contradicts or ends before any anchored checkpoint, and ``etg serve`` refuses to start on
such a log.

Two small interfaces, so that the anchor stream can be a file today and the floor's central
store later (docs/design.md "The floor": the store's checkpoints are the anchors):

- :class:`AnchorSink`: ``publish_all(checkpoints)``, called by
  :class:`~game_server.eventlog.log.EventLog` right after checkpoints are committed (those
  of one commit together, one sync);
- :class:`AnchorSource`: ``anchors(log_id)``, every anchored checkpoint of one log.

:class:`AnchorFile` implements both as an append-only JSON-lines file (one checkpoint per
line, :meth:`~game_server.eventlog.records.Checkpoint.to_json`, synced to disk before
``publish_all`` returns). One file may hold the anchors of several logs (each
line names its log). On a floor keep it on another disk or, better, another machine: an
anchor stream on the same disk as the log is lost or edited together with it.

Entry points: :class:`AnchorFile`, :func:`check_anchors`.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Protocol

from game_server.eventlog.errors import EventLogError
from game_server.eventlog.records import Checkpoint


class AnchorError(EventLogError):
    """The anchor stream cannot be read or written."""


class AnchorStreamDamaged(AnchorError):
    """A line of the anchor stream is not a checkpoint (other than an unfinished last line)."""


class AnchorWriteFailed(AnchorError):
    """A checkpoint that is in the log could not be added to the anchor stream."""


class AnchorSink(Protocol):
    """Where each checkpoint goes as it is made."""

    def publish_all(self, checkpoints: Sequence[Checkpoint]) -> None:
        """Keep each of ``checkpoints``, in order, durably before returning, with one sync
        (or one round trip) for them all.

        Raises:
            AnchorWriteFailed: they could not all be kept (the stream may hold the first
                few: catching up starts after the last it holds).
        """
        ...


class AnchorSource(Protocol):
    """Where the checkpoints of a log are found again."""

    def anchors(self, log_id: str) -> list[Checkpoint]:
        """Every anchored checkpoint of the log ``log_id``, in the order they were kept.

        Raises:
            AnchorError: the stream cannot be read.
        """
        ...


class AnchorStream(AnchorSink, AnchorSource, Protocol):
    """Both ends: what a writer that also catches up (``EventLog``) is given."""


class AnchorFile:
    """An append-only JSON-lines file of checkpoints (an :class:`AnchorSink` and
    :class:`AnchorSource`).

    Created mode 0600 on first use; :meth:`publish_all` appends a line for each checkpoint
    and syncs once. A line cut short by a crash (no newline at the end of the file) is
    ignored when read, and cut off before the next line is written (it never held a whole
    checkpoint).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._file: IO[bytes] | None = None

    def __repr__(self) -> str:
        return f"AnchorFile({str(self.path)!r})"

    def publish_all(self, checkpoints: Sequence[Checkpoint]) -> None:
        if not checkpoints:
            return
        data = b"".join(
            json.dumps(cp.to_json(), sort_keys=True, separators=(",", ":")).encode() + b"\n"
            for cp in checkpoints
        )
        try:
            file = self._open()
            file.write(data)
            file.flush()
            os.fdatasync(file.fileno())
        except OSError as exc:
            self.close()
            raise AnchorWriteFailed(
                f"{checkpoints_named(checkpoints)} in the log but could not be added to the anchor "
                f"stream {self.path}: {exc.strerror or exc}. Make the anchor stream writable "
                "again."
            ) from None

    def _open(self) -> IO[bytes]:
        if self._file is None:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            file = os.fdopen(fd, "ab")
            # A crash may have left a line without its newline: cut it off, so that the next
            # line starts on a line of its own.
            whole = _whole_lines_size(self.path)
            if whole < file.seek(0, os.SEEK_END):
                file.truncate(whole)
            self._file = file
        return self._file

    def anchors(self, log_id: str) -> list[Checkpoint]:
        return [cp for cp in self.read() if cp.log_id == log_id]

    def read(self) -> list[Checkpoint]:
        """Every checkpoint in the file, of every log.

        Raises:
            AnchorError: the file cannot be read.
            AnchorStreamDamaged: a complete line is not a checkpoint.
        """
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise AnchorError(
                f"cannot read the anchor stream {self.path}: {exc.strerror or exc}"
            ) from None
        lines = data.split(b"\n")
        # The last element is b"" after a final newline, or an unfinished line: skipped.
        found = []
        for number, line in enumerate(lines[:-1], start=1):
            if not line.strip():
                continue
            try:
                found.append(Checkpoint.from_json(json.loads(line)))
            except (ValueError, UnicodeDecodeError) as exc:
                if number == len(lines) - 1 and not line.rstrip().endswith(b"}"):
                    continue  # a line cut short by a crash, ended by the next open
                raise AnchorStreamDamaged(
                    f"line {number} of the anchor stream {self.path} is not a checkpoint "
                    f"({exc}); the stream was edited or damaged"
                ) from None
        return found

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None


def checkpoints_named(checkpoints: Sequence[Checkpoint]) -> str:
    """``checkpoint #5 (seq 120) is``, or ``checkpoints #5-#7 (seq 120-180) are``: the
    subject of a sink's refusal."""
    first, last = checkpoints[0], checkpoints[-1]
    if len(checkpoints) == 1:
        return f"checkpoint #{first.number} (seq {first.seq}) is"
    return f"checkpoints #{first.number}-#{last.number} (seq {first.seq}-{last.seq}) are"


def _whole_lines_size(path: Path) -> int:
    """The size of the file up to and including its last newline."""
    data = path.read_bytes()
    return data.rfind(b"\n") + 1


def check_anchors(
    anchors: Sequence[Checkpoint], stored: Iterable[Checkpoint]
) -> list[tuple[Checkpoint, str]]:
    """Compare the anchored checkpoints of a log with the ones the log holds.

    Args:
        anchors: The log's anchored checkpoints (:meth:`AnchorSource.anchors`).
        stored: The checkpoints the log holds.

    Returns:
        ``(anchor, reason)`` for every anchor the log lacks or contradicts (same number,
        other content). Signatures and the chain are checked by
        :func:`~game_server.eventlog.verify.verify_chain`, which is given the anchors too.
    """
    by_number = {cp.number: cp for cp in stored}
    problems = []
    for anchor in anchors:
        held = by_number.get(anchor.number)
        where = f"anchored checkpoint #{anchor.number} (seq {anchor.seq}, {anchor.time})"
        if held is None:
            problems.append(
                (
                    anchor,
                    f"the log lacks {where}: it was cut back to before it (events and "
                    "checkpoints removed)",
                )
            )
        elif held != anchor:
            problems.append(
                (
                    anchor,
                    f"the log's checkpoint #{anchor.number} (seq {held.seq}) contradicts {where}: "
                    "the log was cut back and written again, or its checkpoint replaced",
                )
            )
    return problems


def last_anchor(anchors: Sequence[Checkpoint]) -> Checkpoint | None:
    """The anchored checkpoint with the highest number, or None."""
    return max(anchors, key=lambda cp: cp.number, default=None)
