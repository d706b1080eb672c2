"""Touch and mouse input become intents in one place (terminal_client.input)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

pygame = pytest.importorskip("pygame")

from terminal_client.input import Key, PressTracker, Quit, Tap, read_intents  # noqa: E402
from terminal_client.input.events import TOUCH_MOUSEID  # noqa: E402
from terminal_client.render import Layout  # noqa: E402

SIZE = (1920, 1080)


@pytest.fixture(autouse=True)
def headless(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run pygame without a display or sound card, and with an empty event queue."""
    monkeypatch.setitem(os.environ, "SDL_VIDEODRIVER", "dummy")
    monkeypatch.setitem(os.environ, "SDL_AUDIODRIVER", "dummy")
    pygame.display.init()
    pygame.display.set_mode(SIZE)
    pygame.event.clear()
    yield
    pygame.display.quit()


@pytest.fixture
def layout() -> Layout:
    return Layout.for_window(SIZE)


def _norm(pos: tuple[int, int]) -> tuple[float, float]:
    return (pos[0] + 0.5) / SIZE[0], (pos[1] + 0.5) / SIZE[1]


def finger(kind: int, pos: tuple[int, int], finger_id: int = 1) -> pygame.event.Event:
    x, y = _norm(pos)
    return pygame.event.Event(kind, x=x, y=y, dx=0.0, dy=0.0, touch_id=7, finger_id=finger_id)


def synthesised(kind: int, pos: tuple[int, int]) -> pygame.event.Event:
    if kind == pygame.MOUSEMOTION:
        return pygame.event.Event(kind, pos=pos, rel=(0, 0), buttons=(1, 0, 0), touch=True)
    return pygame.event.Event(kind, pos=pos, button=1, touch=True, which=TOUCH_MOUSEID)


def mouse(kind: int, pos: tuple[int, int]) -> pygame.event.Event:
    if kind == pygame.MOUSEMOTION:
        return pygame.event.Event(kind, pos=pos, rel=(0, 0), buttons=(1, 0, 0), touch=False)
    return pygame.event.Event(kind, pos=pos, button=1, touch=False, which=0)


def drain(layout: Layout, tracker: PressTracker | None = None) -> list:
    """Read the real pygame queue, as the terminal's frame tick does."""
    events = [e for e in pygame.event.get() if e.type not in _SYSTEM]
    return read_intents(events, layout.hit_test, tracker or PressTracker(), SIZE)


_SYSTEM = {
    pygame.ACTIVEEVENT,
    pygame.WINDOWSHOWN,
    pygame.WINDOWENTER,
    pygame.WINDOWFOCUSGAINED,
    pygame.WINDOWEXPOSED,
    pygame.VIDEOEXPOSE,
    pygame.WINDOWSIZECHANGED,
    pygame.WINDOWRESIZED,
}


def test_finger_down_and_up_on_a_button_is_one_tap(layout: Layout) -> None:
    """A FINGERDOWN then FINGERUP posted on the HIT button gives exactly one Tap."""
    pos = layout.action_buttons["hit"].center
    pygame.event.post(finger(pygame.FINGERDOWN, pos))
    pygame.event.post(finger(pygame.FINGERUP, pos))
    assert drain(layout) == [Tap("button:hit")]


def test_mouse_events_synthesised_from_the_touch_are_ignored(layout: Layout) -> None:
    """The same tap with the mouse events SDL synthesises from it is still one Tap."""
    pos = layout.action_buttons["stand"].center
    for event in (
        finger(pygame.FINGERDOWN, pos),
        synthesised(pygame.MOUSEMOTION, pos),
        synthesised(pygame.MOUSEBUTTONDOWN, pos),
        finger(pygame.FINGERUP, pos),
        synthesised(pygame.MOUSEBUTTONUP, pos),
    ):
        pygame.event.post(event)
    assert drain(layout) == [Tap("button:stand")]


def test_drag_off_the_target_is_no_tap(layout: Layout) -> None:
    """A finger that goes down on a button and slides off it before lifting presses nothing,
    even if it comes back onto the button."""
    button = layout.action_buttons["double"]
    outside = (button.centerx, button.top - 40)
    pygame.event.post(finger(pygame.FINGERDOWN, button.center))
    pygame.event.post(finger(pygame.FINGERMOTION, outside))
    pygame.event.post(finger(pygame.FINGERUP, outside))
    pygame.event.post(finger(pygame.FINGERDOWN, button.center, finger_id=2))
    pygame.event.post(finger(pygame.FINGERMOTION, outside, finger_id=2))
    pygame.event.post(finger(pygame.FINGERMOTION, button.center, finger_id=2))
    pygame.event.post(finger(pygame.FINGERUP, button.center, finger_id=2))
    assert drain(layout) == []


def test_held_finger_is_one_tap_across_frames(layout: Layout) -> None:
    """A finger held on a bet spot (DOWN, many MOTIONs over several frames, UP on the same
    spot) places one bet, not one per frame."""
    tracker = PressTracker()
    (cx, cy), _ = layout.bet_spot_circles["main"]
    pygame.event.post(finger(pygame.FINGERDOWN, (cx, cy)))
    intents = drain(layout, tracker)
    for frame in range(20):
        for step in range(5):
            pygame.event.post(finger(pygame.FINGERMOTION, (cx + step, cy - step)))
        intents += drain(layout, tracker)
        assert intents == [], f"frame {frame} produced {intents}"
    pygame.event.post(finger(pygame.FINGERUP, (cx + 3, cy)))
    intents += drain(layout, tracker)
    assert intents == [Tap("spot:main")]


def test_real_mouse_click_is_one_tap(layout: Layout) -> None:
    """A desktop mouse click (down and up on a chip) gives one Tap; right clicks do nothing."""
    slot = layout.chip_tray().slots()[2]
    for kind in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEMOTION, pygame.MOUSEBUTTONUP):
        pygame.event.post(mouse(kind, slot.center))
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=slot.center, button=3, touch=False)
    )
    pygame.event.post(
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=slot.center, button=3, touch=False)
    )
    assert drain(layout) == [Tap(f"chip:{slot.cents}")]


def test_tap_on_empty_felt_is_nothing(layout: Layout) -> None:
    """A tap where there is no target produces no intent."""
    pos = layout.dealer.center
    pygame.event.post(finger(pygame.FINGERDOWN, pos))
    pygame.event.post(finger(pygame.FINGERUP, pos))
    assert drain(layout) == []


def test_keyboard_shortcuts_and_quit(layout: Layout) -> None:
    """H, S, D, P, R and Esc are the demo shortcuts; unknown keys are ignored; closing the
    window is Quit."""
    for key in (pygame.K_h, pygame.K_s, pygame.K_d, pygame.K_p, pygame.K_r, pygame.K_x):
        pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode=""))
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_ESCAPE, mod=0, unicode=""))
    pygame.event.post(pygame.event.Event(pygame.QUIT))
    assert drain(layout) == [
        Key("hit"),
        Key("stand"),
        Key("double"),
        Key("split"),
        Key("surrender"),
        Key("back"),
        Quit(),
    ]


def test_disabled_buttons_are_not_targets(layout: Layout) -> None:
    """The widgets' hit test skips disabled buttons, so a tap on one gives no intent."""
    from terminal_client.widgets import hit_test

    buttons = layout.buttons(enabled={"hit"})
    pos = layout.action_buttons["split"].center
    pygame.event.post(finger(pygame.FINGERDOWN, pos))
    pygame.event.post(finger(pygame.FINGERUP, pos))
    events = [e for e in pygame.event.get() if e.type not in _SYSTEM]
    assert read_intents(events, lambda p: hit_test(p, buttons), PressTracker(), SIZE) == []
