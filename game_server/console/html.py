"""HTML that escapes by default: every value put into a page goes through :func:`html`.

:class:`Markup` is text already safe to put into a page (built here); anything else given to
:func:`html` or :func:`join` is escaped (``& < > " '``), so a terminal id, a reason typed by
a supervisor or a wager name from a log can never become markup. No inline script or style
is ever written (the content security policy forbids both).

Entry points: :class:`Markup`, :func:`html`, :func:`join`, :func:`attrs`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape
from typing import Any


class Markup(str):
    """Text that is already HTML (made by :func:`html`, :func:`join` or :func:`attrs`)."""

    __slots__ = ()

    def __add__(self, other: str) -> Markup:
        """Markup followed by ``other`` (escaped unless it is Markup)."""
        return Markup(str.__add__(self, _safe(other)))


def _safe(value: Any) -> str:
    if isinstance(value, Markup):
        return value
    if value is None:
        return ""
    return escape(str(value), quote=True)


def html(template: str, *values: Any, **named: Any) -> Markup:
    """``template`` (trusted markup, ``{}``/``{name}`` placeholders) with every value
    escaped unless it is :class:`Markup`."""
    return Markup(
        template.format(*(_safe(v) for v in values), **{k: _safe(v) for k, v in named.items()})
    )


def join(items: Iterable[Any], separator: str = "") -> Markup:
    """The items one after another, each escaped unless it is :class:`Markup`."""
    return Markup(separator.join(_safe(item) for item in items))


def attrs(values: Mapping[str, Any]) -> Markup:
    """`` name="value"`` for each attribute (None: left out; True: the bare name)."""
    out = []
    for name, value in values.items():
        if value is None or value is False:
            continue
        out.append(f" {name}" if value is True else f' {name}="{_safe(value)}"')
    return Markup("".join(out))
