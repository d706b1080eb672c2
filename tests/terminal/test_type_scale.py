"""Every text a player must read is at least the type scale's minimum, fits its room, and
nothing drawn sits on anything else, on every shipped table's betting, play and results
screens, at 1280x720, 1920x1080 and portrait 1080x1920.

The minimum is 12 points on the terminal's glass (``terminal_client/typescale.py``:
at the default 24-inch glass 16 px at 1920x1080 and 1080x1920, 11 px at 1280x720). Each
screen is drawn by the real screen code, from the views the tables' real round machines sent
terminal T1 while the terminal's own demo bots played every wager they offer
(``every_table.py``), on an :class:`~terminal_client.render.elements.ElementCanvas` that
keeps what each element painted, with every text and card noted
(:func:`~terminal_client.render.elements.recording_texts`). A screen fails when:

- a text is smaller than the minimum, or wider than the room it was given (a text is laid
  out again, never shrunk below the minimum or cut);
- two texts overlap on one surface (a community card's number badge on the next card's
  index, a label running into another), a card's visible index counted as a text;
- two elements painted the same pixel (the shoe line on the chip tray);
- a pixel differs from the felt without belonging to an element (drawing outside the
  elements would escape the check above).
"""

from __future__ import annotations

from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from every_table import CONFIGS, model_of, rules_of, screens_of  # noqa: E402

from terminal_client.app import draw_frame  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.render.draw import draw_felt, draw_text  # noqa: E402
from terminal_client.render.elements import (  # noqa: E402
    Drawn,
    ElementCanvas,
    element,
    overlaps,
    recording_texts,
    text_problems,
)
from terminal_client.screens import ScreenStack, screen_for  # noqa: E402
from terminal_client.typescale import Glass  # noqa: E402

pytestmark = pytest.mark.usefixtures("headless")

SIZES = [(1280, 720), (1920, 1080), (1080, 1920)]
ROLES = ("betting", "play", "results")


class Quiet:
    """A client for a screen that is only drawn."""

    def request_rules(self) -> bool:
        return False

    def request_recall(self) -> bool:
        return False


def outside_elements(canvas: ElementCanvas, drawn: list[Drawn]) -> int:
    """How many pixels of ``canvas`` differ from the felt without any element painting
    them."""
    felt = pygame.Surface(canvas.get_size())
    draw_felt(felt, felt.get_rect())
    same = pygame.mask.from_threshold(canvas, (0, 0, 0), (2, 2, 2, 255), othersurface=felt)
    changed = same.copy()
    changed.invert()
    for piece in drawn:
        changed.erase(piece.mask, (0, 0))
    return changed.count()


def draw_screen(view: dict[str, Any], rules: Any, size: tuple[int, int]) -> tuple[Any, ...]:
    """The screen the model of ``view`` picks, drawn as a frame; (canvas, texts)."""
    model = model_of(view, rules)
    stack = ScreenStack()
    stack.push(screen_for(model)(model, Quiet()))
    stack.update(0.0)
    canvas = ElementCanvas(size)
    layout = Layout.for_window(size)
    with recording_texts() as texts:
        draw_frame(stack, canvas, layout, model)
    return canvas, texts, layout, stack.top


@pytest.mark.parametrize("size", SIZES, ids=["1280x720", "1920x1080", "portrait"])
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("config", CONFIGS)
def test_every_text_is_readable_and_nothing_overlaps(
    config: str, role: str, size: tuple[int, int]
) -> None:
    """Every text at least the minimum and in its room, no two texts and no two elements
    on each other, nothing drawn outside an element."""
    view = screens_of(config)[role]
    canvas, texts, layout, screen = draw_screen(view, rules_of(config), size)
    assert screen.role == role, type(screen)
    problems = text_problems(texts, layout.min_text)
    problems += [f"{a} and {b} overlap ({n} px)" for a, b, n in overlaps(canvas.drawn)]
    stray = outside_elements(canvas, canvas.drawn)
    if stray:
        problems.append(f"{stray} px drawn outside any element")
    assert problems == []


def test_the_minimum_is_12_points_on_the_glass() -> None:
    """12 pt at 24 inches: 16 px at 1920x1080 (91.8 ppi), 11 px at 1280x720; a 32-inch
    glass at 1920x1080 needs 12 px; a 1280x720 window on a 1920x1080 24-inch display 16 px."""
    assert Layout.for_window((1920, 1080)).min_text == 16
    assert Layout.for_window((1080, 1920)).min_text == 16
    assert Layout.for_window((1280, 720)).min_text == 11
    assert Layout.for_window((1920, 1080), Glass(32.0)).min_text == 12
    assert Layout.for_window((1280, 720), Glass(24.0, (1920, 1080))).min_text == 16


def test_the_checks_find_a_small_text_a_cut_text_and_two_texts_on_each_other() -> None:
    """The checks themselves: a text below the minimum, a text wider than its room and
    two texts on the same pixels are each found; one drawn outside an element too."""
    canvas = ElementCanvas((400, 200))
    draw_felt(canvas, canvas.get_rect())
    with recording_texts() as texts, element(canvas, "piece") as target:
        draw_text(target, "small", (50, 50), 9, least=9)
        draw_text(target, "A LABEL TOO LONG FOR ITS ROOM", (200, 100), 16, max_width=60, least=16)
        draw_text(target, "ONE", (300, 150), 16, least=16)
        draw_text(target, "TWO", (305, 152), 16, least=16)
    problems = text_problems(texts, 16)
    assert any("'small' is 9 px" in p for p in problems), problems
    assert any("in a room of 60 px" in p for p in problems), problems
    assert any("'ONE'" in p and "'TWO'" in p for p in problems), problems
    assert outside_elements(canvas, canvas.drawn) == 0
    draw_text(canvas, "stray", (50, 150), 16)
    assert outside_elements(canvas, canvas.drawn) > 0


class Rules(Quiet):
    """A client whose rules request is answered with the table's rules document."""

    def __init__(self, model: Any, rules: Any) -> None:
        self.model = model
        self.rules = rules

    def request_rules(self) -> bool:
        from terminal_client.model import Document

        self.model.apply_document(Document.RULES, self.rules)
        return True


@pytest.mark.parametrize("size", SIZES, ids=["1280x720", "1920x1080", "portrait"])
@pytest.mark.parametrize("config", CONFIGS)
def test_every_page_of_the_rules_is_readable(config: str, size: tuple[int, int]) -> None:
    """The rules screen's every page (the game's rules, each wager's paytable, the shoe):
    every text at least the minimum, in its room, clear of every other text."""
    from terminal_client.screens import RulesScreen

    view = screens_of(config)["betting"]
    model = model_of(view)
    client = Rules(model, rules_of(config))
    rules = RulesScreen(model, client)
    layout = Layout.for_window(size)
    problems = []
    for page in range(rules.page_count()):
        rules.page = page
        canvas = pygame.Surface(size)
        with recording_texts() as texts:
            rules.draw(canvas, layout)
        problems += [f"page {page + 1}: {p}" for p in text_problems(texts, layout.min_text)]
    assert problems == []


@pytest.mark.parametrize("size", SIZES, ids=["1280x720", "1920x1080", "portrait"])
def test_a_community_cards_number_badge_covers_no_cards_index(size: tuple[int, int]) -> None:
    """633b.5(q): at the three-position table the community cards in a player's hand are
    numbered; in a fanned hand of four cards, two of them community cards, no number badge
    covers a card's index (the badge on the third card covered the fourth card's "3")."""
    import copy

    view = copy.deepcopy(screens_of("hybrid-three-position.toml")["play"])
    hybrid = view["hybrid"]
    hybrid["community"] = [{"number": 1, "card": "TH"}, {"number": 2, "card": "3C"}]
    hybrid["used"] = [1, 2]
    hand = hybrid["hands"][0]
    hand["cards"] = [*hand["cards"][:2], "AS", "3C"]
    hand["community"] = [0, 0, 1, 2]
    hand["total"], hand["soft"] = 12, False
    _canvas, texts, layout, screen = draw_screen(view, None, size)
    assert screen.role == "play"
    badges = [t for t in texts if getattr(t, "mark", False)]
    assert len(badges) >= 2, "the hand's two community cards are numbered"
    assert text_problems(texts, layout.min_text) == []


@pytest.mark.parametrize("size", SIZES, ids=["1280x720", "1920x1080", "portrait"])
@pytest.mark.parametrize("config", CONFIGS)
def test_the_betting_screens_last_round_and_pays_are_readable(
    config: str, size: tuple[int, int]
) -> None:
    """The betting screen after a round: its last round's results, then (a chip on a side
    circle, the minimum over) what that wager pays: every text readable, nothing on
    anything else."""
    from test_betting_info import after_a_round

    from terminal_client.input import Tap
    from terminal_client.model import Document

    model = after_a_round(config)
    model.apply_document(Document.RULES, rules_of(config))
    stack = ScreenStack()
    stack.push(screen_for(model)(model, Quiet()))
    screen = stack.top
    layout = Layout.for_window(size)
    problems = []
    for now in (0.0, model.results_seconds + 1):
        stack.update(now)
        canvas = ElementCanvas(size)
        with recording_texts() as texts:
            draw_frame(stack, canvas, layout, model)
        problems += text_problems(texts, layout.min_text)
        problems += [f"{a} and {b} overlap ({n} px)" for a, b, n in overlaps(canvas.drawn)]
        stray = outside_elements(canvas, canvas.drawn)
        if stray:
            problems.append(f"{stray} px drawn outside any element")
        names = {d.name for d in canvas.drawn}
        assert ("last round" if now == 0.0 else "pays") in names, names
        side = [s for s in screen.spots(layout) if s.enabled and s.id != "main"]
        screen.handle(Tap((side or screen.spots(layout))[0].target_id))
    assert problems == []
