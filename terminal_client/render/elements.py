"""Named elements of a drawn screen, for the layout tests: what each element painted, pixel
by pixel, so that a test can prove that no two elements of a screen overlap.

Drawing code wraps each piece of a screen (the dealer's hand, a seat, the results panel,
the credits, ...) in ``with element(surface, "name") as target:`` and draws the piece on
``target``. On an ordinary surface ``target`` is that surface and nothing else happens (the
cost is one generator per piece). On an :class:`ElementCanvas` the piece is drawn on a
transparent layer of its own, then laid onto the canvas, and the layer's painted pixels are
kept as a mask under the element's name. Pieces drawn inside an element belong to it.

Entry points: :func:`element`, :class:`ElementCanvas`, :func:`overlaps`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
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
