"""The cards as a casino terminal shows them (terminal_client.render.cards): the standard
pip layout of every 2 to 10 (counted on the drawn pixels), court figures on the Jack, Queen
and King, indices in two corners, an ornamented back; each painted once per size."""

from __future__ import annotations

import pytest

pygame = pytest.importorskip("pygame")

from terminal_client.render.cards import (  # noqa: E402
    BACK_RED,
    CARD_RED,
    GOLD,
    INK,
    PIPS,
    ROBE_BLUE,
    ROBE_RED,
    TRIM,
    card_image,
)

pytestmark = pytest.mark.usefixtures("headless")

SIZE = (172, 240)


def ink_blobs(image: pygame.Surface, color: tuple[int, int, int], area: pygame.Rect) -> int:
    """Separate shapes of ``color`` inside ``area`` of ``image`` (specks of antialiasing
    left out)."""
    part = image.subsurface(area).copy()
    mask = pygame.mask.from_threshold(part, (*color, 255), (60, 60, 60, 255))
    return sum(1 for blob in mask.connected_components() if blob.count() > 30)


@pytest.mark.parametrize("rank", range(2, 11))
@pytest.mark.parametrize("suit", ["S", "H"])
def test_a_pip_card_shows_as_many_pips_as_its_rank(rank: int, suit: str) -> None:
    """2 to 10 have their rank's number of pips between the indices, in the standard
    layout's columns and rows (:data:`PIPS`)."""
    image = card_image(f"{rank}{suit}", *SIZE)
    w, h = SIZE
    middle = pygame.Rect(int(w * 0.26), int(h * 0.1), int(w * 0.48), int(h * 0.8))
    color = CARD_RED if suit == "H" else INK
    assert ink_blobs(image, color, middle) == rank == len(PIPS[rank])


def colours(image: pygame.Surface) -> set[tuple[int, int, int]]:
    w, h = image.get_size()
    return {tuple(image.get_at((x, y))[:3]) for x in range(0, w, 2) for y in range(0, h, 2)}


def test_court_cards_show_a_figure_each_of_its_own() -> None:
    """J, Q and K carry a court figure (robes in red and blue, gold trim), each different;
    an Ace has one large pip and no figure."""
    faces = {rank: card_image(f"{rank}D", *SIZE) for rank in "JQK"}
    for rank, image in faces.items():
        seen = colours(image)
        assert {ROBE_RED, ROBE_BLUE, TRIM} <= seen, rank
    raw = {rank: pygame.image.tobytes(image, "RGBA") for rank, image in faces.items()}
    assert len(set(raw.values())) == 3
    assert not {ROBE_RED, ROBE_BLUE} & colours(card_image("AD", *SIZE))


def test_the_back_is_ornamented_and_tells_nothing() -> None:
    """The back is red with gold, and the same for every card (None)."""
    back = card_image(None, *SIZE)
    assert {BACK_RED, GOLD} <= colours(back)


def test_each_card_is_painted_once_per_size() -> None:
    """A card of a size is painted once and then copied (the frame time stays a blit)."""
    assert card_image("KH", *SIZE) is card_image("KH", *SIZE)
    assert card_image("KH", *SIZE) is not card_image("KH", 86, 120)
