"""Named elements of a drawn screen, for the layout tests: what each element painted, pixel
by pixel, so that a test can prove that no two elements of a screen overlap.

Drawing code wraps each piece of a screen (the dealer's hand, a seat, the results panel,
the credits, ...) in ``with element(surface, "name") as target:`` and draws the piece on
``target``. On an ordinary surface ``target`` is that surface and nothing else happens (the
cost is one generator per piece). On an :class:`ElementCanvas` the piece is drawn on a
transparent layer of its own, then laid onto the canvas, and the layer's painted pixels are
kept as a mask under the element's name. Pieces drawn inside an element belong to it.

The same tests measure every text a screen draws (:func:`recording_texts`): the drawing
primitives note each text they draw (:func:`note_text`; a card notes its index) with its
font size, the room it was given and where its letters are, so that a test can prove every
text is at least the type scale's minimum, fits its room and is clear of every other text
(:func:`text_problems`). Outside :func:`recording_texts` noting costs one context-variable
lookup.

Entry points: :func:`element`, :class:`ElementCanvas`, :func:`overlaps`,
:func:`recording_texts`, :func:`text_problems`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import pygame


@dataclass(frozen=True)
class Drawn:
    """One element as drawn: its name, the pixels it painted and their bounding box."""

    name: str
    mask: pygame.mask.Mask
    rect: pygame.Rect


class ElementCanvas(pygame.Surface):
    """A surface that records each :func:`element` drawn on it (:attr:`drawn`)."""

    def __init__(self, size: tuple[int, int]) -> None:
        super().__init__(size)
        self.drawn: list[Drawn] = []


@contextmanager
def element(surface: pygame.Surface, name: str) -> Iterator[pygame.Surface]:
    """Draw one element of a screen on the surface this yields (see the module doc)."""
    if type(surface) is not ElementCanvas:
        yield surface
        return
    layer = pygame.Surface(surface.get_size(), pygame.SRCALPHA)
    yield layer
    surface.blit(layer, (0, 0))
    mask = pygame.mask.from_surface(layer, 0)
    surface.drawn.append(Drawn(name, mask, layer.get_bounding_rect(0)))


def overlaps(drawn: list[Drawn]) -> list[tuple[str, str, int]]:
    """Every pair of elements that painted the same pixels, with how many."""
    found = []
    for a, b in itertools.combinations(drawn, 2):
        if a.rect.colliderect(b.rect):
            shared = a.mask.overlap_area(b.mask, (0, 0))
            if shared:
                found.append((a.name, b.name, shared))
    return found


# Texts ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawnText:
    """One text as drawn: the words (a card index: its rank), its font size in pixels, the
    least size it was allowed, the room it was given (None: none stated), the area of its
    letters (ink) and the surface it was drawn on; ``index`` marks a card's corner index and
    ``mark`` a badge drawn over a card (a disc with a number), whose ``ink`` is the whole
    badge."""

    text: str
    size: int
    least: int
    width: int | None
    drawn_width: int
    ink: pygame.Rect
    surface: pygame.Surface
    index: bool = False
    mark: bool = False


@dataclass(frozen=True)
class DrawnCard:
    """A card drawn on ``surface`` at ``rect``: what covers an earlier card's index."""

    rect: pygame.Rect
    surface: pygame.Surface


_TEXTS: ContextVar[list[DrawnText | DrawnCard] | None] = ContextVar("etg_texts", default=None)


@contextmanager
def recording_texts() -> Iterator[list[DrawnText | DrawnCard]]:
    """Note every text (and card) drawn inside the block, in the order drawn."""
    drawn: list[DrawnText | DrawnCard] = []
    token = _TEXTS.set(drawn)
    try:
        yield drawn
    finally:
        _TEXTS.reset(token)


def recording() -> bool:
    """Whether texts are being noted (:func:`recording_texts`)."""
    return _TEXTS.get() is not None


def note_text(entry: DrawnText | DrawnCard) -> None:
    """Note a text or a card drawn (nothing unless :func:`recording_texts` is on)."""
    drawn = _TEXTS.get()
    if drawn is not None:
        drawn.append(entry)


def text_problems(drawn: list[DrawnText | DrawnCard], least: int) -> list[str]:
    """What is wrong with the texts noted: one smaller than ``least`` pixels (or than the
    least it was allowed), one wider than its room, two whose letters overlap on one
    surface (a badge over a card's index, a label over another), each said in a sentence.
    A card's index counts while no card drawn after it on the same surface covers it."""
    problems: list[str] = []
    texts = [d for d in drawn if isinstance(d, DrawnText)]
    for text in texts:
        if not text.mark and text.size < max(least, text.least):
            problems.append(f"{text.text!r} is {text.size} px, below the least {least} px")
        if text.width is not None and text.drawn_width > text.width:
            problems.append(
                f"{text.text!r} is {text.drawn_width} px wide in a room of {text.width} px"
            )
    visible = []
    for i, entry in enumerate(drawn):
        if not isinstance(entry, DrawnText):
            continue
        if entry.index and any(
            isinstance(later, DrawnCard)
            and later.surface is entry.surface
            and later.rect.contains(entry.ink)
            for later in drawn[i + 1 :]
        ):
            continue
        visible.append(entry)
    for a, b in itertools.combinations(visible, 2):
        if a.surface is not b.surface or not a.ink.colliderect(b.ink):
            continue
        if (a.mark and a.ink.contains(b.ink) and not b.index) or (
            b.mark and b.ink.contains(a.ink) and not a.index
        ):
            continue  # the number inside its own badge
        problems.append(f"{a.text!r} at {tuple(a.ink)} and {b.text!r} at {tuple(b.ink)} overlap")
    return problems
