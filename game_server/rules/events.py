"""Frozen event records: what every engine step returns, the log stores and recall replays.

An event type is a ``typing.NamedTuple`` registered with :func:`event`, which gives it a
``kind`` and a schema ``version`` and makes equality type-aware (two different event kinds
with the same field values are not equal). NamedTuples rather than frozen dataclasses because
an engine step builds dozens of them and a NamedTuple is built more than twice as fast; both
are immutable. :func:`to_dict` / :func:`from_dict` convert to and from the JSON form
(cards as text such as ``"AS"``), whose canonical bytes come from :mod:`shared.codec`.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar

from game_server.rules.errors import RulesError
from shared.cards import Card, parse_card


class EventDecodeError(RulesError):
    """A stored event that does not match any known kind or schema."""


T = TypeVar("T")

#: kind -> event class, for decoding.
EVENT_TYPES: dict[str, type[Any]] = {}
_DECODERS: dict[str, tuple[int, tuple[tuple[str, Callable[[Any], Any]], ...]]] = {}


def _eq(self: tuple[Any, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _ne(self: tuple[Any, ...], other: object) -> bool:
    return not _eq(self, other)


def _hash(self: tuple[Any, ...]) -> int:
    return hash((type(self).__name__, tuple.__hash__(self)))


def _identity(value: Any) -> Any:
    return value


def _decode_card(value: Any) -> Card | None:
    # null: a card the log holds sealed (dealt face down, unsealed when the round closes:
    # game_server.table.secrecy).
    return None if value is None else parse_card(value)


def _decoder_for(hint: Any) -> Callable[[Any], Any]:
    if hint is Card:
        return _decode_card
    origin = typing.get_origin(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if args and args[0] is Card:
            return lambda value: tuple(parse_card(v) for v in value)
        inner = _decoder_for(args[0]) if args else _identity
        return lambda value: tuple(inner(v) for v in value)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    return _identity


def event(kind: str, version: int = 1) -> Callable[[type[T]], type[T]]:
    """Register a NamedTuple class as the event ``kind`` at schema ``version``."""

    def register(cls: type[T]) -> type[T]:
        if kind in EVENT_TYPES:
            raise RuntimeError(f"event kind {kind!r} registered twice")
        cls.kind = kind  # type: ignore[attr-defined]
        cls.version = version  # type: ignore[attr-defined]
        cls.__eq__ = _eq  # type: ignore[assignment,method-assign]
        cls.__ne__ = _ne  # type: ignore[assignment,method-assign]
        cls.__hash__ = _hash  # type: ignore[assignment,method-assign]
        EVENT_TYPES[kind] = cls
        hints = typing.get_type_hints(cls)
        fields: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]
        _DECODERS[kind] = (version, tuple((f, _decoder_for(hints[f])) for f in fields))
        return cls

    return register


def kind_of(cls: type) -> str:
    """The ``kind`` an event class registered with :func:`event` is logged as."""
    kind: str = cls.kind  # type: ignore[attr-defined]
    return kind


def _encode_value(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_encode_value(v) for v in value]
    return value


def to_dict(ev: Any) -> dict[str, Any]:
    """The JSON form of an event: its fields plus ``kind`` and ``v`` (schema version)."""
    out: dict[str, Any] = {"kind": ev.kind, "v": ev.version}
    for name, value in zip(ev._fields, ev, strict=True):
        out[name] = _encode_value(value)
    return out


def from_dict(data: dict[str, Any]) -> Any:
    """Rebuild an event from :func:`to_dict` output; refuse unknown kinds and versions."""
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _DECODERS:
        raise EventDecodeError(f"unknown event kind {kind!r}")
    version, decoders = _DECODERS[kind]
    if data.get("v") != version:
        raise EventDecodeError(
            f"event {kind!r} has schema version {data.get('v')!r}; this code reads {version}"
        )
    expected = {name for name, _ in decoders} | {"kind", "v"}
    if set(data) != expected:
        raise EventDecodeError(
            f"event {kind!r} fields {sorted(set(data) - {'kind', 'v'})} do not match the "
            f"schema {sorted(expected - {'kind', 'v'})}"
        )
    try:
        return EVENT_TYPES[kind](*(decode(data[name]) for name, decode in decoders))
    except (ValueError, TypeError) as exc:
        raise EventDecodeError(f"event {kind!r} has a bad field: {exc}") from None
