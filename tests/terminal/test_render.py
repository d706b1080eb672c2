"""The terminal's layout and pure drawing (terminal_client.render, terminal_client.widgets)."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import pytest

pygame = pytest.importorskip("pygame")

from terminal_client.render import (  # noqa: E402
    Layout,
    SeatView,
    TableView,
    draw_button,
    draw_card,
    draw_chip,
    draw_countdown_ring,
    draw_table,
)
from terminal_client.widgets import BetSpot, Button, ChipTray  # noqa: E402

SIZES = [(1280, 720), (1920, 1080), (1080, 1920)]
#: About 9 mm on a typical kiosk panel.
MIN_TOUCH_PX = 64

SAMPLE = TableView(
    dealer_cards=("AS", None),
    seats={
        2: SeatView("ANNA", ("KH", "7D"), "17", 2500),
        5: SeatView("YOU", ("10C", "6H"), "16", 1000),
    },
    my_cards=("10C", "6H"),
    my_total="16",
    credits=123450,
    message="YOUR TURN: HIT OR STAND?",
    countdown_fraction=0.4,
    countdown_label="6",
    enabled_actions=frozenset({"hit", "stand", "double", "surrender"}),
    bets={"main": 1000, "lucky_aces": 500},
    selected_chip=500,
)


pytestmark = pytest.mark.usefixtures("headless")


def _targets(layout: Layout) -> dict[str, pygame.Rect]:
    return {name: r for name, r in layout.named_rects().items() if ":" in name}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_area_and_button_lies_inside_the_window(size: tuple[int, int]) -> None:
    """Every named area (buttons, seats, spots, chips, bars) is wholly inside the window."""
    layout = Layout.for_window(size)
    window = pygame.Rect((0, 0), size)
    for name, rect in layout.named_rects().items():
        assert window.contains(rect), f"{name} {rect} leaves the {size} window"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_touch_targets_do_not_overlap(size: tuple[int, int]) -> None:
    """No two touch targets (action buttons, bet spots, chips) overlap, so a tap is never
    ambiguous; the seats do not overlap each other or the dealer either."""
    layout = Layout.for_window(size)
    targets = _targets(layout)
    for (a, ra), (b, rb) in combinations(targets.items(), 2):
        assert not ra.colliderect(rb), f"{a} {ra} overlaps {b} {rb}"
    areas = [layout.dealer, *layout.seats, layout.my_hand, layout.credits, layout.message_bar]
    for ra, rb in combinations(areas, 2):
        assert not ra.colliderect(rb), f"{ra} overlaps {rb}"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_touch_targets_are_finger_sized(size: tuple[int, int]) -> None:
    """Every touch target is at least 64 px (about 9 mm) on its shorter side."""
    layout = Layout.for_window(size)
    for name, rect in _targets(layout).items():
        assert min(rect.size) >= MIN_TOUCH_PX, f"{name} is only {rect.size} at {size}"


def test_portrait_kiosk_gets_its_own_arrangement() -> None:
    """A portrait window uses the portrait design: buttons sit below the player's hand and
    the layout is not just the landscape one squeezed."""
    portrait = Layout.for_window((1080, 1920))
    landscape = Layout.for_window((1920, 1080))
    assert portrait.portrait and not landscape.portrait
    assert portrait.scale == pytest.approx(1.0)
    assert portrait.action_buttons["hit"].top > portrait.my_hand.bottom
    assert portrait.action_buttons["hit"].width >= MIN_TOUCH_PX


def test_hit_test_names_the_target_under_a_point() -> None:
    """Layout.hit_test maps a point to a button, spot or chip id, and felt to None."""
    layout = Layout.for_window((1280, 720))
    assert layout.hit_test(layout.action_buttons["split"].center) == "button:split"
    assert layout.hit_test(layout.bet_spot_circles["main"][0]) == "spot:main"
    slot = layout.chip_tray().slots()[0]
    assert layout.hit_test(slot.center) == f"chip:{slot.cents}"
    assert layout.hit_test(layout.dealer.center) is None


def test_widgets_hit_only_inside_and_when_enabled() -> None:
    """Button.hit is false when disabled; BetSpot.hit is round; ChipTray.hit gives cents."""
    button = Button("hit", (10, 10, 100, 80), "HIT")
    assert button.hit((50, 50)) and not button.hit((200, 50))
    assert not Button("hit", (10, 10, 100, 80), "HIT", enabled=False).hit((50, 50))
    spot = BetSpot("main", (100, 100), 50, "BET")
    assert spot.hit((100, 140)) and not spot.hit((140, 140))
    tray = ChipTray((0, 0, 300, 100), (100, 500, 2500))
    assert tray.hit((150, 50)) == 500 and tray.hit((150, 2)) is None


def _luma_std(surface: pygame.Surface) -> float:
    """Standard deviation of the brightness of every 4th pixel (no numpy needed)."""
    data = pygame.image.tobytes(surface, "RGB")
    lumas = [
        (data[i] * 299 + data[i + 1] * 587 + data[i + 2] * 114) / 1000
        for i in range(0, len(data), 12)
    ]
    mean = sum(lumas) / len(lumas)
    return (sum((v - mean) ** 2 for v in lumas) / len(lumas)) ** 0.5


def _snapshot(surface: pygame.Surface) -> bytes:
    return pygame.image.tobytes(surface, "RGB")


@pytest.mark.parametrize(
    "draw",
    [
        lambda s: draw_card(s, pygame.Rect(10, 10, 100, 140), "QH"),
        lambda s: draw_card(s, pygame.Rect(10, 10, 100, 140), "10S"),
        lambda s: draw_card(s, pygame.Rect(10, 10, 100, 140), None),
        lambda s: draw_countdown_ring(s, (100, 100), 80, 0.4, "6"),
        lambda s: draw_button(s, pygame.Rect(10, 50, 180, 100), "STAND", True, False),
        lambda s: draw_button(s, pygame.Rect(10, 50, 180, 100), "SPLIT", False, False),
        lambda s: draw_button(s, pygame.Rect(10, 50, 180, 100), "HIT", True, True),
        lambda s: draw_chip(s, (100, 100), 2500, 60),
    ],
    ids=["face-red", "face-ten", "back", "ring", "button", "disabled", "pressed", "chip"],
)
def test_drawing_is_pure(draw) -> None:  # type: ignore[no-untyped-def]
    """Drawing the same values twice onto fresh surfaces gives identical pixels, paints
    something, and leaves the surface's clip unchanged: draw functions hold no state."""
    first, second = pygame.Surface((200, 200)), pygame.Surface((200, 200))
    first.fill((14, 92, 52))
    second.fill((14, 92, 52))
    blank = _snapshot(first)
    draw(first)
    draw(second)
    assert _snapshot(first) == _snapshot(second)
    assert _snapshot(first) != blank
    assert first.get_clip() == first.get_rect()


def test_draw_table_does_not_change_its_inputs() -> None:
    """draw_table reads the view and the layout and changes neither."""
    layout = Layout.for_window((1280, 720))
    before = (layout.named_rects(), SAMPLE)
    surface = pygame.Surface(layout.size)
    draw_table(surface, layout, SAMPLE)
    first = _snapshot(surface)
    draw_table(surface, layout, SAMPLE)
    assert (layout.named_rects(), SAMPLE) == before
    assert _snapshot(surface) == first


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_sample_table_renders_to_png(size: tuple[int, int], tmp_path: Path) -> None:
    """A sample table (dealer with a hidden card, two seats with hands, buttons, chips, a
    countdown ring at 40%) renders to a non-blank PNG at each window size."""
    layout = Layout.for_window(size)
    surface = pygame.Surface(size)
    draw_table(surface, layout, SAMPLE)
    path = tmp_path / f"table_{size[0]}x{size[1]}.png"
    pygame.image.save(surface, str(path))
    assert path.exists() and path.stat().st_size > 10_000
    loaded = pygame.image.load(str(path))
    assert loaded.get_size() == size
    assert _luma_std(loaded) > 20, "the render is (nearly) one flat colour"
    # The felt is green: the middle of the table is greener than it is red or blue.
    r, g, b = loaded.get_at((size[0] // 2, layout.message_bar.bottom + 10))[:3]
    assert g > r and g > b
