"""Canonical JSON at log speed: the same bytes as :func:`shared.codec.canonical_json`, faster.

Entry points: :func:`canonical_text` (the writer encodes each event body) and
:func:`body_kind` (the verifier checks each stored body). Appends must keep up with the
disk's sync and verification must reach 50,000 events/s, and ``shared.codec`` spends most of
its time in a Python-level walk that refuses floats. Here nearly every event body is flat
(string keys; strings, integers, booleans, null or lists of them: no float can hide in it),
and orjson (compiled) writes and reads it, its bytes those of ``json`` for such a value; an
integer beyond 64 bits or a lone surrogate, which orjson refuses, takes the next path. A
body that is not flat goes through the C encoder that ``json.dumps`` builds on every call,
built once here, and floats are refused by parsing the output back with the C scanner,
whose ``parse_float`` hook raises. Anything that path is unsure of (a tuple, a non-string
key, a float) falls back to ``shared.codec``, which is the definition: the three agree on
every value (property tests check it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json.encoder import encode_basestring
from json.scanner import make_scanner
from typing import Any, Final

import orjson

from shared.codec import canonical_json


def _refuse_number(text: str) -> Any:
    raise ValueError(f"canonical JSON holds integers only; got the number {text}")


def _no_default(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} has no JSON form")


class _IntegerDecoder(json.JSONDecoder):
    """A decoder whose scanner refuses floats, NaN and infinities."""

    def __init__(self) -> None:
        super().__init__(parse_float=_refuse_number, parse_constant=_refuse_number)


_scan = make_scanner(_IntegerDecoder())  # type: ignore[arg-type]  # any decoder is a context
_slow_encoder = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def _build_fast_encoder() -> Callable[[Any], str] | None:
    """The C encoder ``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False,
    allow_nan=False)`` uses, built once; None if this Python has none (or it differs)."""
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython always has it
        return None
    try:
        encoder = make(None, _no_default, encode_basestring, None, ":", ",", True, False, False)
    except TypeError:  # pragma: no cover - another signature
        return None

    def encode(value: Any) -> str:
        return "".join(encoder(value, 0))

    sample = {"b": [1, "é\n\x00", {"z": None, "a": False}], "a": -(2**70), "c": True}
    return encode if encode(sample) == _slow_encoder.encode(sample) else None


_fast_encode = _build_fast_encoder()


def canonical_text(value: dict[str, Any]) -> str:
    """``shared.codec.canonical_json(value).decode("utf-8")``, computed faster when possible.

    Raises:
        shared.codec.CodecError: ``value`` has no canonical form (a float, a non-string key,
            an unknown type).
    """
    flat = type(value) is dict and _flat(value)
    if flat:
        try:
            return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode("utf-8")
        except orjson.JSONEncodeError:
            pass  # an integer beyond 64 bits, a lone surrogate: the paths below decide
    if _fast_encode is not None:
        try:
            if flat:
                return _fast_encode(value)
            text = _fast_encode(value)
            parsed, end = _scan(text, 0)
            if end == len(text) and parsed == value:
                return text
        except (TypeError, ValueError, RecursionError, StopIteration):
            pass
    return canonical_json(value).decode("utf-8")


_SCALARS: Final = frozenset({str, int, bool, type(None)})


def _flat(value: dict[str, Any]) -> bool:
    """True if ``value`` maps string keys to strings, ints, bools, None, or lists of those:
    the shape of nearly every event, which the C encoder renders canonically as it is."""
    scalars = _SCALARS
    for key, item in value.items():
        if type(key) is not str:
            return False
        kind = type(item)
        if kind in scalars:
            continue
        if kind is list and all(type(element) in scalars for element in item):
            continue
        return False
    return True


def body_kind(text: str) -> str | None:
    """The ``kind`` of a stored event body if the text is canonical, else None.

    Canonical here means: one JSON object, integers only, with a string ``kind``, and
    encoding it again gives exactly ``text`` (sorted keys, no spaces, no duplicate keys, no
    needless escapes).
    """
    try:
        read = orjson.loads(text)
        if type(read) is dict and _flat(read):
            kind = read.get("kind")
            if type(kind) is str and orjson.dumps(read, option=orjson.OPT_SORT_KEYS) == (
                text.encode("utf-8")
            ):
                return kind
    except (orjson.JSONDecodeError, orjson.JSONEncodeError, UnicodeError):
        pass  # the paths below decide
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError, RecursionError):
        return None
    if end != len(text) or type(value) is not dict:
        return None
    kind = value.get("kind")
    if type(kind) is not str:
        return None
    encode = _fast_encode or _slow_encoder.encode
    try:
        same = encode(value) == text
    except (TypeError, ValueError):  # pragma: no cover - parsed JSON always encodes
        return None
    return kind if same else None
