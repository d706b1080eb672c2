"""Proving an event log before its writer appends to it: the newest checkpoint signed with
the log's own key (:func:`check_key`; the key given or read by :func:`log_signing_key`), and
the chain recomputed from the last anchored checkpoint (:func:`prove_log`, what a server
does at start).

Used by :meth:`game_server.eventlog.log.EventLog.create_or_open` and by the floor store's
anchors (:mod:`game_server.floor.anchors`).
"""

from __future__ import annotations

import os

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from game_server import keys
from game_server.eventlog.anchors import AnchorSource, check_anchors, last_anchor
from game_server.eventlog.chain import message_of
from game_server.eventlog.errors import ChainBroken, LogKeyError
from game_server.eventlog.reader import EventLogReader
from game_server.eventlog.records import Checkpoint
from game_server.eventlog.verify import Progress, verify_chain


def log_signing_key(key: Ed25519PrivateKey | str | os.PathLike[str]) -> Ed25519PrivateKey:
    """The log-signing key given as a key, or as the path of its file."""
    if isinstance(key, Ed25519PrivateKey):
        return key
    if isinstance(key, str | os.PathLike):
        try:
            return keys.load_signing_key(key)
        except keys.KeyFileError as exc:
            raise LogKeyError(str(exc)) from exc
    raise LogKeyError(
        f"the log-signing key must be an Ed25519 private key or the path of its file, got "
        f"{type(key).__name__}"
    )


def check_key(cp: Checkpoint | None, public: Ed25519PublicKey) -> None:
    """The newest checkpoint must be signed by ``public`` (the key given is the log's)."""
    if cp is None:
        return
    given = keys.key_id(public)
    if cp.key_id != given:
        raise LogKeyError(
            f"the log's checkpoints are signed with key {cp.key_id}, but the key given is "
            f"{given}. Use this log's own log-signing key (certs/log-signing.key of the server "
            "that wrote it); changing the signing key of a log is not supported."
        )
    try:
        public.verify(bytes.fromhex(cp.signature), message_of(cp))
    except (InvalidSignature, ValueError):
        raise ChainBroken(
            cp.seq,
            f"the newest checkpoint #{cp.number} (seq {cp.seq}) does not verify with the log's "
            "key: it was altered. Do not write to this log; run `etg verify` on a copy.",
        ) from None


def prove_log(
    path: str | os.PathLike[str],
    public_key: Ed25519PublicKey,
    anchors: AnchorSource | None = None,
    progress: Progress | None = None,
) -> int:
    """Prove an existing log before a writer appends to it (what a server does at start).

    The chain is recomputed from the last anchored checkpoint of the log (from the first
    event when ``anchors`` holds none), every checkpoint after it verified, and every
    anchored checkpoint must be in the log unchanged and covered by the chain.

    Returns:
        How many events were recomputed.

    Raises:
        ChainBroken: something does not check; ``seq`` is the first failing sequence
            number and the message says what.
        AnchorError: the anchor stream cannot be read.
    """
    with EventLogReader.open(path) as reader:
        anchored = [] if anchors is None else anchors.anchors(reader.log_id)
        start = last_anchor(anchored)
        problems = check_anchors(anchored, reader.checkpoints()) if anchored else []
        if problems:
            anchor, reason = min(problems, key=lambda p: p[0].seq)
            raise ChainBroken(
                anchor.seq, f"{reason}. Do not write to this log; run `etg verify` on a copy."
            )
        report = verify_chain(reader, public_key, progress, anchors=anchored, start=start)
    if not report.ok:
        seq = report.first_bad_seq or 0
        raise ChainBroken(
            seq,
            f"the log does not verify from seq {seq}: {report.reason}. Do not write to this "
            "log; run `etg verify` on a copy.",
        )
    return report.events
