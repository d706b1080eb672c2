"""Canonical JSON: the one byte encoding used for hashing, logging and the wire.

Sorted keys, no spaces, UTF-8, integers only (a float is refused: money and every other
number in an event is an integer). Two equal values always encode to the same bytes, so a
hash over the encoding is a hash over the value.
"""

from __future__ import annotations

import json
from typing import Any

from shared.errors import ETGError


class CodecError(ETGError, ValueError):
    """A value that has no canonical JSON form (a float, NaN, an unknown type)."""


def _refuse_float(value: str) -> Any:
    raise CodecError(f"canonical JSON holds integers only; got the number {value}")


def _check(value: Any) -> None:
    if isinstance(value, float):
        raise CodecError(f"canonical JSON holds integers only; got the float {value!r}")
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise CodecError(f"canonical JSON keys are strings; got {key!r}")
            _check(item)
    elif isinstance(value, list | tuple):
        for item in value:
            _check(item)


def canonical_json(value: Any) -> bytes:
    """Encode ``value`` (dicts, lists, str, int, bool, None) as canonical JSON bytes."""
    _check(value)
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    ).encode("utf-8")


#: One decoder for every call (json.loads with hooks would build a new one each time).
_DECODER = json.JSONDecoder(parse_float=_refuse_float, parse_constant=_refuse_float)


def loads(data: bytes | str) -> Any:
    """Decode JSON, refusing floats (they never appear in our encodings)."""
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return _DECODER.decode(text)
    except UnicodeDecodeError as exc:
        raise CodecError(f"not UTF-8 JSON: {exc}") from None
    except json.JSONDecodeError as exc:
        raise CodecError(f"not valid JSON: {exc}") from None
