"""The floor store as an anchor stream, and several anchor sources read as one.

- :class:`StoreAnchors`: an :class:`~game_server.eventlog.anchors.AnchorSource` (the
  checkpoints the store holds of a log, for ``etg verify DB --store URL`` and for the proof a
  server makes at start) and an :class:`~game_server.eventlog.anchors.AnchorSink` (publish
  checkpoints synchronously, fail-closed, as :class:`~game_server.eventlog.anchors.AnchorFile`
  does). ``etg serve --store`` does NOT publish through it: its checkpoints reach the store
  through the shipper, with the events (docs/decisions.md "The floor store").
- :class:`JoinedAnchors`: the anchors of several sources (``--anchors FILE --store URL``).

Entry points: :class:`StoreAnchors`, :class:`JoinedAnchors`, :func:`prove_against_store`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from game_server.eventlog.anchors import (
    AnchorError,
    AnchorSource,
    AnchorWriteFailed,
    checkpoints_named,
)
from game_server.eventlog.chain import message_of
from game_server.eventlog.proof import prove_log
from game_server.eventlog.reader import EventLogReader
from game_server.eventlog.records import Checkpoint
from game_server.floor.errors import FloorError
from game_server.floor.store import FloorStore, redacted
from game_server.keys import key_id


def signed_by(
    checkpoints: Sequence[Checkpoint], public_key: Ed25519PublicKey
) -> tuple[list[Checkpoint], list[str]]:
    """The checkpoints signed by ``public_key``, and a sentence for each that is not: a
    checkpoint of the store is believed only once its signature verifies with the log's own
    key (anyone who could write the store's rows could write an unsigned one).

    Returns:
        ``(verified, refusals)``; each refusal names the row (log, number, seq).
    """
    own = key_id(public_key)
    good: list[Checkpoint] = []
    refused: list[str] = []
    for cp in checkpoints:
        why = None
        if cp.key_id != own:
            why = f"it names the key {cp.key_id}, not the log's key {own}"
        else:
            try:
                public_key.verify(bytes.fromhex(cp.signature), message_of(cp))
            except (InvalidSignature, ValueError):
                why = "its signature does not verify with the log's key"
        if why is None:
            good.append(cp)
        else:
            refused.append(
                f"the floor store holds checkpoint #{cp.number} (seq {cp.seq}) of log "
                f"{cp.log_id}, but {why}: it is not believed (ignored); the floor admin "
                "should find who wrote it"
            )
    return good, refused


class StoreAnchors:
    """The checkpoints of the floor store at ``url`` as an anchor stream.

    With ``public_key`` (the log's own key), only the checkpoints signed by it are anchors;
    each other row is ignored and named in :attr:`refused` (and told to ``on_refused``).
    Connects on first use, and again after a failure. Not thread-safe.
    """

    def __init__(
        self,
        url: str,
        public_key: Ed25519PublicKey | None = None,
        on_refused: Callable[[str], None] | None = None,
    ) -> None:
        self._url = url
        self._store: FloorStore | None = None
        self._public_key = public_key
        self._on_refused = on_refused
        #: Why each checkpoint of the store read so far was not believed.
        self.refused: list[str] = []

    def __repr__(self) -> str:
        return f"StoreAnchors({redacted(self._url)!r})"

    def _connected(self) -> FloorStore:
        if self._store is None or self._store.broken:
            self._store = FloorStore.connect(self._url)
        return self._store

    def anchors(self, log_id: str) -> list[Checkpoint]:
        """Every checkpoint of ``log_id`` the store holds, in number order (none for a log it
        never received).

        Raises:
            AnchorError: the store cannot be reached or read.
        """
        try:
            held = self._connected().checkpoints(log_id)
        except FloorError as exc:
            self.close()
            raise AnchorError(f"the floor store's checkpoints cannot be read: {exc}") from None
        if self._public_key is None:
            return held
        good, refused = signed_by(held, self._public_key)
        for sentence in refused:
            if sentence not in self.refused:
                self.refused.append(sentence)
                if self._on_refused is not None:
                    self._on_refused(sentence)
        return good

    def publish_all(self, checkpoints: Sequence[Checkpoint]) -> None:
        """Store ``checkpoints`` before returning: each log's in one transaction, in order,
        the log claimed first (for each key that signed them).

        Raises:
            AnchorWriteFailed: the store could not be reached, or refused one.
        """
        by_log: dict[str, list[Checkpoint]] = {}
        for cp in checkpoints:
            by_log.setdefault(cp.log_id, []).append(cp)
        for log_id, held in by_log.items():
            try:
                store = self._connected()
                for key_id in dict.fromkeys(cp.key_id for cp in held):
                    store.claim(log_id, key_id)
                store.ingest(log_id, (), held)
            except FloorError as exc:
                self.close()
                raise AnchorWriteFailed(
                    f"{checkpoints_named(held)} in the log but could not be added to the "
                    f"floor store {redacted(self._url)}: {exc}"
                ) from None

    def close(self) -> None:
        """Close the connection (a later call connects again)."""
        if self._store is not None:
            self._store.close()
            self._store = None


class JoinedAnchors:
    """The anchors of several sources of one log, each distinct checkpoint once, in number
    order (two sources that disagree both show: the one the log contradicts fails)."""

    def __init__(self, *sources: AnchorSource) -> None:
        self._sources = sources

    def anchors(self, log_id: str) -> list[Checkpoint]:
        found: dict[Checkpoint, None] = {}
        for source in self._sources:
            found.update(dict.fromkeys(source.anchors(log_id)))
        return sorted(found, key=lambda cp: cp.number)


def prove_against_store(
    db: str | os.PathLike[str],
    public_key: Ed25519PublicKey,
    url: str,
    on_refused: Callable[[str], None] | None = None,
) -> str | None:
    """What ``etg serve --store`` does before it opens its log: prove the log against the
    checkpoints the store holds of it (the chain recomputed from the last of them), so that
    a log cut back while the server was down is refused.

    Returns:
        None when proven (or there is no log yet); a warning when the store cannot be
        reached (the server starts: shipping refuses a cut-back log once the store is back).

    Only the checkpoints the store holds signed by ``public_key`` count: a row that does
    not verify is told to ``on_refused`` (an ALARM line) and ignored, never a reason to
    refuse the genuine log.

    Raises:
        ChainBroken: the log lacks or contradicts a checkpoint the store holds, signed by it.
    """
    if not Path(db).exists():
        return None
    with EventLogReader.open(db) as reader:
        log_id = reader.log_id
    store = StoreAnchors(url, public_key, on_refused)
    try:
        held = store.anchors(log_id)
    except AnchorError as exc:
        return (
            f"the log could not be proven against the floor store ({exc}); starting anyway: "
            "shipping refuses a cut-back log when the store is back"
        )
    finally:
        store.close()
    if held:  # else the log was never shipped: the server's own proof is the whole chain
        prove_log(db, public_key, _Held(held))
    return None


class _Held:
    """Anchors already read (an :class:`AnchorSource`)."""

    def __init__(self, held: list[Checkpoint]) -> None:
        self._held = held

    def anchors(self, log_id: str) -> list[Checkpoint]:
        return [cp for cp in self._held if cp.log_id == log_id]
