"""The checks every server document's parser shares (views of every table, rules, recall):
each returns the JSON value it was given when it has the expected type, else raises
``TypeError`` (or :class:`~shared.errors.CardError` for a text that is not a card), which
the parser turns into its ``MalformedView`` naming what was wrong."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from shared.cards import parse_card


def as_int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an integer, got {value!r}")
    return value


def opt_int(value: Any) -> int | None:
    return None if value is None else as_int(value)


def as_str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {value!r}")
    return value


def opt_str(value: Any) -> str | None:
    return None if value is None else as_str(value)


def as_bool(value: Any) -> bool:
    if type(value) is not bool:
        raise TypeError(f"expected true or false, got {value!r}")
    return value


def as_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {value!r}")
    return value


def as_dict(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {value!r}")
    return value


def as_card(value: Any) -> str:
    """A card's text (``"QD"``); CardError for a text that is not a card."""
    parse_card(as_str(value))
    return str(value)


def cents(mapping: Any) -> Mapping[str, int]:
    """A read-only mapping of names to integer cents."""
    return MappingProxyType({as_str(k): as_int(v) for k, v in as_dict(mapping).items()})
