"""The betting circles follow the wagers the table offers (terminal_client.render.layout
``Layout.bet_spots``, terminal_client.screens.table ``BettingScreen``): the main circle for
Blackjack and one circle per side wager of 58 Pa. Code 633b.6-633b.13, each a finger-sized
target clear of everything else on the screen, at every supported window size."""

from __future__ import annotations

import os
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from client_helpers import MemoryTable, sample_view  # noqa: E402

from terminal_client.input import Tap  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from terminal_client.net import TerminalClient  # noqa: E402
from terminal_client.render import MIN_TOUCH_DESIGN, Layout  # noqa: E402
from terminal_client.render.layout import (  # noqa: E402
    SIDE_AMOUNT_BAND,
    SIDE_WAGERS,
    spot_label,
    spot_short,
)
from terminal_client.screens import BettingScreen  # noqa: E402
from terminal_client.screens.overlay import menu_buttons  # noqa: E402
from terminal_client.screens.table import limits_text  # noqa: E402

SIZES = [(1280, 720), (1920, 1080), (1080, 1920)]
SIDE_NAMES = [wager for wager, _ in SIDE_WAGERS]
#: Where the PNGs are also copied for a person to look at (set ETG_SCREEN_PNGS to a folder).
PNG_DIR = os.environ.get("ETG_SCREEN_PNGS")
#: Side-wager limits in cents; min == max is a wager of one fixed amount.
SIDE_LIMITS: dict[str, dict[str, int]] = {
    "lucky_aces": {"min": 100, "max": 2_500},
    "three_card_poker": {"min": 100, "max": 10_000},
    "top_3": {"min": 100, "max": 2_500},
    "trilux": {"min": 100, "max": 10_000},
    "super_4": {"min": 500, "max": 500},
    "blackjack_match": {"min": 100, "max": 100},
    "blazing_7s": {"min": 500, "max": 500},
    "axman": {"min": 100, "max": 5_000},
    "buster": {"min": 100, "max": 2_500},
}
FIVE = ["lucky_aces", "three_card_poker", "trilux", "super_4", "blazing_7s"]

pytestmark = pytest.mark.usefixtures("headless")


def offered_view(side: list[str], **changes: Any) -> dict[str, Any]:
    """A betting view whose table offers Blackjack and the side wagers ``side``."""
    limits = {"blackjack": {"min": 500, "max": 50_000}}
    limits |= {wager: SIDE_LIMITS.get(wager, {"min": 100, "max": 2_500}) for wager in side}
    return sample_view(limits=limits, **changes)


@pytest.fixture
def client(table: MemoryTable) -> TerminalClient:
    """A client connected (in memory) to the real server, showing its betting view."""
    client = TerminalClient(table, TerminalModel(), table.clock)
    client.start()
    table.flush()
    assert client.model.connection.state is ConnectionState.CONNECTED
    return client


def _circle_rect(center: tuple[int, int], radius: int) -> pygame.Rect:
    return pygame.Rect(center[0] - radius, center[1] - radius, 2 * radius, 2 * radius)


@pytest.mark.parametrize("count", [0, 1, 3, 5, 9])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_spots_fit_the_window_apart_from_everything_else(
    size: tuple[int, int], count: int, client: TerminalClient
) -> None:
    """Every circle (with the band under it for the staked amount) is inside the window, no
    two circles overlap, none touches another named area or a menu button, and each is at
    least the minimum touch size across."""
    layout = Layout.for_window(size)
    wagers = ["blackjack", *SIDE_NAMES[:count]]
    circles = layout.spot_circles(wagers)
    assert set(circles) == {"main", *SIDE_NAMES[:count]}
    others = {n: r for n, r in layout.named_rects(wagers).items() if not n.startswith("spot:")}
    menu = menu_buttons(layout, client.model)
    others |= {f"menu {b.target_id}": pygame.Rect(b.rect) for b in menu}
    band = round(SIDE_AMOUNT_BAND * layout.scale)
    rects = {}
    for spot_id, (center, radius) in circles.items():
        rect = _circle_rect(center, radius)
        rects[spot_id] = rect
        assert layout.window.contains(rect), f"{spot_id} {rect} leaves the window {size}"
        assert 2 * radius >= int(MIN_TOUCH_DESIGN * layout.scale), f"{spot_id} too small"
        footprint = rect if spot_id == "main" else rect.inflate(0, band).move(0, band // 2)
        assert layout.window.contains(footprint)
        for name, other in others.items():
            assert not footprint.colliderect(other), f"{spot_id} {footprint} overlaps {name}"
    for (a, ra), (b, rb) in combinations(rects.items(), 2):
        ca, cb = circles[a], circles[b]
        dx, dy = ca[0][0] - cb[0][0], ca[0][1] - cb[0][1]
        assert (dx * dx + dy * dy) ** 0.5 > ca[1] + cb[1], f"{a} {ra} overlaps {b} {rb}"
        if "main" not in (a, b):
            assert not ra.colliderect(rb), f"{a} {ra} overlaps {b} {rb}"


def test_without_wagers_the_layout_keeps_lucky_aces_and_the_main_circle() -> None:
    """bet_spots() with no list of wagers gives the arrangement callers always had: Lucky
    Aces, then the main circle, the same as bet_spot_circles."""
    layout = Layout.for_window((1280, 720))
    spots = layout.bet_spots({"main": 500})
    assert [(s.id, s.label, s.amount) for s in spots] == [
        ("lucky_aces", "LUCKY ACES", 0),
        ("main", "BET", 500),
    ]
    assert {s.id: (s.center, s.radius) for s in spots} == layout.bet_spot_circles


def test_labels_are_plain_names_and_unknown_wagers_fall_back_to_their_name() -> None:
    """Each known side wager has its label in plain words (a declared short name for a
    small circle); any other shows its name in capitals."""
    assert [spot_label(w) for w in SIDE_NAMES] == [
        "LUCKY ACES",
        "3 CARD POKER",
        "TOP 3",
        "TRILUX",
        "SUPER 4",
        "BLACKJACK MATCH",
        "BLAZING 7'S",
        "AXMAN",
        "BUSTER BLACKJACK",
    ]
    assert spot_short("blackjack_match") == "BJ MATCH"
    assert spot_short("lucky_aces") == ""
    assert spot_label("perfect_pairs") == "PERFECT PAIRS"
    assert spot_label("blackjack") == "BET"


@pytest.mark.parametrize("count", [0, 1, 3, 5, 9])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_tap_on_each_spot_bets_it_and_deal_sends_them_all(
    size: tuple[int, int], count: int, client: TerminalClient, table: MemoryTable
) -> None:
    """The screen shows one circle per offered wager; a tap at each circle's centre adds
    the selected chip to its wager (a fixed-amount wager takes exactly its amount), and
    DEAL sends them all in one PlaceWagers."""
    side = SIDE_NAMES[:count]
    client.model.apply_view(offered_view(side))
    layout = Layout.for_window(size)
    screen = BettingScreen(client.model, client)
    assert screen.handle(Tap("chip:500"))
    spots = screen.spots(layout)
    assert {s.id for s in spots} == {"main", *side}
    # The main wager first: TriLux may be at most twice it (633b.11(b)).
    for spot in sorted(spots, key=lambda s: s.id != "main"):
        target = screen.hit_test(layout, spot.center)
        assert target == spot.target_id
        assert screen.handle(Tap(target))
    expected = {"blackjack": 500}
    for wager in side:
        limits = SIDE_LIMITS[wager]
        expected[wager] = limits["max"] if limits["min"] == limits["max"] else 500
    assert screen.pending == expected
    assert screen.handle(Tap("button:deal"))
    table.flush()
    assert table.place_wagers_calls() == [("place_wagers", "T1", expected)]


def test_an_unknown_side_wager_gets_a_circle_too(client: TerminalClient) -> None:
    """A wager the terminal has no label for is still offered, under its name."""
    client.model.apply_view(offered_view(["lucky_aces", "perfect_pairs"]))
    layout = Layout.for_window((1920, 1080))
    screen = BettingScreen(client.model, client)
    spot = {s.id: s for s in screen.spots(layout)}["perfect_pairs"]
    assert spot.label == "PERFECT PAIRS"
    screen.handle(Tap(screen.hit_test(layout, spot.center) or ""))
    assert screen.pending == {"perfect_pairs": 100}


def test_a_fixed_amount_spot_places_exactly_its_amount_once(client: TerminalClient) -> None:
    """Super 4 at $5.00 fixed (min == max): the first tap stakes $5.00 whatever the chip; a
    second tap changes nothing and says the wager is fixed; CLEAR takes it off."""
    client.model.apply_view(offered_view(["super_4", "blackjack_match"]))
    screen = BettingScreen(client.model, client)
    screen.handle(Tap("chip:2500"))
    screen.handle(Tap("spot:super_4"))
    assert screen.pending == {"super_4": 500}
    screen.handle(Tap("spot:super_4"))
    assert screen.pending == {"super_4": 500}
    assert screen.note == "Super 4 is a fixed $5.00 wager"
    screen.handle(Tap("chip:100"))
    screen.handle(Tap("spot:blackjack_match"))
    assert screen.pending == {"super_4": 500, "blackjack_match": 100}
    screen.handle(Tap("button:clear"))
    assert screen.pending == {}


def test_trilux_is_at_most_twice_the_blackjack_bet(client: TerminalClient) -> None:
    """633b.11(b): a chip that would take TriLux Deluxe over twice the pending Blackjack
    wager is refused with the note the player needs."""
    client.model.apply_view(offered_view(["trilux"]))
    screen = BettingScreen(client.model, client)
    screen.handle(Tap("chip:500"))
    screen.handle(Tap("spot:trilux"))
    assert screen.pending == {}
    assert screen.note == "TriLux Deluxe: at most 2x your Blackjack bet"
    screen.handle(Tap("spot:main"))
    screen.handle(Tap("spot:trilux"))
    screen.handle(Tap("spot:trilux"))
    screen.handle(Tap("spot:trilux"))
    assert screen.pending == {"blackjack": 500, "trilux": 1_000}


def test_the_limits_show_in_each_circle() -> None:
    """A side circle's note is its minimum and maximum, or its one amount and "fixed"."""
    assert limits_text(500, 500) == "$5.00 fixed"
    assert limits_text(100, 2_500) == "$1.00 \u2013 $25.00"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_betting_screen_with_five_side_wagers_renders(
    size: tuple[int, int], client: TerminalClient, tmp_path: Path
) -> None:
    """The betting screen with five side wagers, some staked, draws to a PNG without
    changing the screen's state."""
    client.model.apply_view(
        offered_view(FIVE, countdown={"for": "betting", "seconds_left": 9, "then": "deal"})
    )
    screen = BettingScreen(client.model, client)
    for target in ("chip:2500", "spot:main", "chip:500", "spot:trilux", "spot:super_4"):
        screen.handle(Tap(target))
    assert screen.pending == {"blackjack": 2_500, "trilux": 500, "super_4": 500}
    layout = Layout.for_window(size)
    surface = pygame.Surface(size)
    before = (dict(screen.pending), screen.note, screen.selected)
    screen.update(0.0)
    screen.draw(surface, layout)
    assert (dict(screen.pending), screen.note, screen.selected) == before
    name = f"betting-5-side-{size[0]}x{size[1]}.png"
    pygame.image.save(surface, str(tmp_path / name))
    if PNG_DIR:
        pygame.image.save(surface, str(Path(PNG_DIR) / name))
    # Each empty side circle is drawn where the layout put it (its gold rim).
    for spot in screen.spots(layout):
        x, y = spot.center
        rim = surface.get_at((x, y - spot.radius + 1))[:3]
        assert rim[0] > 150 and rim[1] > 120, f"{spot.id} rim not drawn at {size}: {rim}"
