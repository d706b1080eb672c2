"""The hash chain and the checkpoint message: the exact bytes an investigator recomputes.

Pure functions, no I/O. ``etg verify`` and any independent verifier must compute exactly
this (format name :data:`CHAIN_FORMAT`, recorded in every log's ``meta`` table).

**Event hash.** For the event with sequence number ``n`` (1, 2, 3, ... with no gap)::

    entry_n = canonical_json({
        "body": <the event dict, i.e. the parsed body column>,
        "kind": <kind column>,
        "round": <round_id column, or null>,
        "seq": n,
        "table": <table_id column>,
        "terminal": <terminal column, or null>,
        "time": <time column, e.g. "2025-03-01T18:04:05.123456Z">,
    })
    hash_0 = 32 zero bytes                          (GENESIS_HASH, "00" * 32 in hex)
    hash_n = SHA-256(hash_{n-1} as 32 raw bytes || entry_n)
    hash column of row n = lowercase hex of hash_n

The ``kind`` column equals ``body["kind"]``; every event of one step has the step's time.

``canonical_json`` is :func:`shared.codec.canonical_json`: keys sorted, separators ``,`` and
``:`` with no spaces, non-ASCII characters as UTF-8 (not ``\\u`` escapes), integers only,
encoded as UTF-8 bytes. The ``body`` column holds ``canonical_json(event dict)`` as text, so
``entry_n`` can be built by splicing that text in verbatim (:func:`entry_text`); it equals
the canonical encoding of the dict above only because the body text is itself canonical,
which is why a verifier also checks that every body is canonical.

**Checkpoint message.** A checkpoint signs, with Ed25519 (RFC 8032, pure), the bytes::

    b"etg-eventlog/checkpoint/v1\\n" || canonical_json({
        "hash": <chain hash at seq, hex>, "key_id": <signer's key fingerprint>,
        "log_id": <the log's id from meta>, "number": <checkpoint number, 1, 2, ...>,
        "reason": <e.g. "round-close">, "seq": <last event covered, 0 on an empty log>,
        "time": <checkpoint time text>,
    })

From schema version 4 on, a checkpoint also signs the log's ``meta`` and ``migrations``
tables, so that editing them (the log's id, its kind, when it was created, which migrations
ran) fails verification. Such a checkpoint stores ``meta = meta_digest(...)`` and signs::

    b"etg-eventlog/checkpoint/v2\n" || canonical_json({<the seven fields above>,
        "meta": <meta digest, hex>})

    meta digest = hex(SHA-256(b"etg-eventlog/meta/v1\n" || canonical_json({
        "meta": {<every key of the meta table>: <its value>},
        "migrations": [[<name>, <applied_at>], ... in the order applied],
    })))

A checkpoint with no ``meta`` (written before schema version 4) is verified with the v1
message.

The signature column holds the 64-byte signature as 128 lowercase hex digits; ``key_id`` is
:func:`game_server.keys.key_id` (the first 16 hex digits of SHA-256 of the 32 raw public key
bytes). The prefix (:data:`CHECKPOINT_DOMAIN`) separates these signatures from anything else the
same key might ever sign; ``log_id`` stops a checkpoint being moved to another log;
``number`` makes a deleted checkpoint in the middle show as a gap.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from json.encoder import encode_basestring
from typing import Any, Final

from game_server.eventlog.canonical import canonical_text
from game_server.eventlog.errors import AppendRefused
from game_server.eventlog.records import ChainHead, Checkpoint, EventRow, NewEvent
from shared.codec import CodecError, canonical_json

#: The name of this chain and checkpoint format, stored in ``meta`` as ``chain_format``.
CHAIN_FORMAT: Final = "etg-eventlog/chain/v1: sha256(prev || canonical_json(entry)); ed25519"
#: The hash before the first event: 32 zero bytes, in hex.
GENESIS_HASH: Final = "00" * 32
#: The domain-separation prefix of a signed checkpoint message that does not cover ``meta``.
CHECKPOINT_DOMAIN: Final = b"etg-eventlog/checkpoint/v1\n"
#: The prefix of a checkpoint message that also covers the ``meta`` and ``migrations`` tables.
CHECKPOINT_DOMAIN_V2: Final = b"etg-eventlog/checkpoint/v2\n"
#: The prefix hashed before the canonical ``meta`` and ``migrations`` tables.
META_DOMAIN: Final = b"etg-eventlog/meta/v1\n"


def entry_dict(
    seq: int,
    time: str,
    table_id: str,
    round_id: int | None,
    terminal: str | None,
    body: dict[str, Any],
) -> dict[str, Any]:
    """The entry whose canonical JSON is hashed for an event (the definition, for reference).

    ``kind`` is ``body["kind"]``.
    """
    return {
        "body": body,
        "kind": body["kind"],
        "round": round_id,
        "seq": seq,
        "table": table_id,
        "terminal": terminal,
        "time": time,
    }


def entry_text(
    seq: int,
    time: str,
    table_id: str,
    round_id: int | None,
    terminal: str | None,
    kind: str,
    body_json: str,
) -> str:
    """``canonical_json(entry_dict(...))`` as text, built by splicing the canonical body text.

    Equal to the definition whenever ``body_json`` is canonical and ``seq``/``round_id`` are
    ints (not bools); the tests check that equality over generated events.
    """
    rnd = "null" if round_id is None else str(round_id)
    term = "null" if terminal is None else encode_basestring(terminal)
    return (
        f'{{"body":{body_json},"kind":{encode_basestring(kind)},"round":{rnd},"seq":{seq},'
        f'"table":{encode_basestring(table_id)},"terminal":{term},'
        f'"time":{encode_basestring(time)}}}'
    )


def next_hash(prev_hash: str, entry: bytes) -> str:
    """``hex(SHA-256(bytes.fromhex(prev_hash) || entry))``: one link of the chain."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + entry).hexdigest()


def row_hash(prev_hash: str, row: EventRow) -> str:
    """The chain hash a stored row must carry, given the hash before it.

    Args:
        prev_hash: The hash of the previous row (``GENESIS_HASH`` before seq 1).
        row: The row; its own ``hash`` field is ignored.
    """
    seq, time, table_id, round_id, terminal, kind, body_json, _ = row
    entry = entry_text(seq, time, table_id, round_id, terminal, kind, body_json)
    return next_hash(prev_hash, entry.encode("utf-8"))


def plan_step(head: ChainHead, time: str, step: Sequence[NewEvent]) -> list[EventRow]:
    """The rows that appending ``step`` after ``head`` stores: pure, no I/O.

    Args:
        head: The end of the chain before the step.
        time: The step's time text (every event of a step shares it).
        step: The events, in order.

    Returns:
        One row per event, sequence numbers ``head.seq + 1`` onwards, each hash chained on
        the one before.

    Raises:
        AppendRefused: an event is not a :class:`NewEvent` or its body has no canonical JSON
            form (a float, a non-string key, text that is not valid Unicode).
    """
    # entry_text inlined, with the quoted time and prev hash bytes carried along: this
    # loop is the writer's per-event cost (tests check it against entry_text/entry_dict).
    rows: list[EventRow] = []
    seq = head.seq
    prev = bytes.fromhex(head.hash)
    sha256 = hashlib.sha256
    quote = encode_basestring
    time_q = quote(time)
    for index, event in enumerate(step):
        if not isinstance(event, NewEvent):
            raise AppendRefused(
                f"event {index} of the step is a {type(event).__name__}, not a NewEvent; "
                "nothing of the step was written"
            )
        seq += 1
        table_id = event.table_id
        round_id = event.round_id
        terminal = event.terminal
        try:
            body_json = canonical_text(event.body)
            kind = event.body["kind"]
            entry = (
                f'{{"body":{body_json},"kind":{quote(kind)},'
                f'"round":{"null" if round_id is None else round_id},"seq":{seq},'
                f'"table":{quote(table_id)},'
                f'"terminal":{"null" if terminal is None else quote(terminal)},'
                f'"time":{time_q}}}'
            ).encode()
        except (CodecError, UnicodeError, TypeError, ValueError) as exc:
            raise AppendRefused(
                f"event {index} of the step ({event.body.get('kind')!r}) cannot be logged: "
                f"{exc}; nothing of the step was written"
            ) from None
        prev = sha256(prev + entry).digest()
        rows.append((seq, time, table_id, round_id, terminal, kind, body_json, prev.hex()))
    return rows


def meta_digest(meta: Mapping[str, str], migrations: Sequence[tuple[str, str]]) -> str:
    """The digest of a log's ``meta`` and ``migrations`` tables that a checkpoint signs.

    Args:
        meta: Every row of ``meta`` (key -> value).
        migrations: ``(name, applied_at)`` of every applied migration, in order.
    """
    document = {"meta": dict(meta), "migrations": [[name, at] for name, at in migrations]}
    return hashlib.sha256(META_DOMAIN + canonical_json(document)).hexdigest()


def checkpoint_message(
    *,
    log_id: str,
    number: int,
    seq: int,
    hash: str,
    time: str,
    reason: str,
    key_id: str,
    meta: str | None = None,
) -> bytes:
    """The exact bytes a checkpoint's Ed25519 signature covers (see the module docstring):
    the v2 message when ``meta`` (the meta digest) is given, else the v1 message."""
    fields: dict[str, object] = {
        "hash": hash,
        "key_id": key_id,
        "log_id": log_id,
        "number": number,
        "reason": reason,
        "seq": seq,
        "time": time,
    }
    if meta is None:
        return CHECKPOINT_DOMAIN + canonical_json(fields)
    fields["meta"] = meta
    return CHECKPOINT_DOMAIN_V2 + canonical_json(fields)


def message_of(checkpoint: Checkpoint) -> bytes:
    """:func:`checkpoint_message` of a stored checkpoint."""
    return checkpoint_message(
        log_id=checkpoint.log_id,
        number=checkpoint.number,
        seq=checkpoint.seq,
        hash=checkpoint.hash,
        time=checkpoint.time,
        reason=checkpoint.reason,
        key_id=checkpoint.key_id,
        meta=checkpoint.meta,
    )
