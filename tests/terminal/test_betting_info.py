"""The betting screen's information panel, where the dealer's cards will be, at every shipped
table: what the wager last touched pays (its paytable, 633b.5(c)(2); the main wager's before
any is touched), and the last round's results, which stay until the player's first wager of
the new round and at least the terminal's minimum (810a.4(7): the amount won for the last
game is shown until the next game starts or the bets change). They vanished about 3 s
after the round, when the next round opened; a wager's pays were only behind RULES."""

from __future__ import annotations

from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from every_table import CONFIGS, Table, model_of, rules_of, screens_of  # noqa: E402

from terminal_client.input import Tap  # noqa: E402
from terminal_client.model import Document, TerminalModel  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.render.elements import DrawnText, ElementCanvas, recording_texts  # noqa: E402
from terminal_client.screens import BettingScreen, screen_for  # noqa: E402

pytestmark = pytest.mark.usefixtures("headless")

SIZE = (1920, 1080)


class Client:
    """Records bets; the rules are already in the model."""

    def __init__(self) -> None:
        self.sent: list[Any] = []

    def place_wagers(self, wagers: Any, position: int | None = None) -> object:
        self.sent.append(dict(wagers))
        return object()

    def request_rules(self) -> bool:
        return False

    def request_recall(self) -> bool:
        return False


def drawn(screen: Any, now: float = 0.0) -> tuple[set[str], set[str]]:
    """The texts and element names of one frame of ``screen`` at ``now``."""
    screen.update(now)
    canvas = ElementCanvas(SIZE)
    with recording_texts() as texts:
        screen.draw(canvas, Layout.for_window(SIZE))
    return {t.text for t in texts if isinstance(t, DrawnText)}, {d.name for d in canvas.drawn}


def betting_screen(model: TerminalModel) -> Any:
    screen = screen_for(model)(model, Client())
    assert isinstance(screen, BettingScreen), type(screen)
    screen.enter()
    return screen


@pytest.mark.parametrize("config", CONFIGS)
def test_the_betting_screen_shows_what_the_wager_touched_pays(config: str) -> None:
    """With no last round to show the panel shows the main wager's pays; once a chip is on
    another circle (and the last round's minimum is over) that wager's, with the title of
    its paytable."""
    rules = rules_of(config)
    listed = {w["wager"]: w for w in rules["wagers"]}
    screen = betting_screen(model_of(screens_of(config)["betting"], rules))
    texts, names = drawn(screen)
    assert "pays" in names and f"{listed[screen.wager_shown]['title'].upper()} PAYS" in texts
    model = after_a_round(config)
    model.apply_document(Document.RULES, rules)
    screen = betting_screen(model)
    drawn(screen, 0.0)
    layout = Layout.for_window(SIZE)
    for spot in screen.spots(layout):
        if spot.enabled and spot.id in listed and spot.id != screen.wager_shown:
            screen.handle(Tap(spot.target_id))
            texts, names = drawn(screen, model.results_seconds + 1)
            assert "pays" in names, names
            assert f"{listed[spot.id]['title'].upper()} PAYS" in texts
            return
    pytest.skip("a table whose only circle is its main wager's")


def after_a_round(config: str) -> TerminalModel:
    """T1's model once it played a round and the next round takes bets (T1's bot rests)."""
    table = Table(config)
    model = table.models["T1"]
    for _ in range(400):
        table.step()
        if model.last_settled is not None:
            break
    else:
        pytest.fail("T1 never had a round settled")
    for _ in range(400):
        table.step(("T2", "T3"))
        if getattr(screen_for(model), "role", None) == "betting" and not model.in_round:
            return model
    pytest.fail("the next round never took bets")


@pytest.mark.parametrize(
    "config", ["fully-automated-all-side-wagers.toml", "uth.toml", "caribbean.toml"]
)
def test_the_last_rounds_results_stay_until_the_first_wager_and_the_minimum(config: str) -> None:
    """The next round's betting screen shows LAST ROUND with the round's headline; a
    wager within the minimum leaves it there; past the minimum it stays until the first
    wager, and then the panel shows what the wager pays."""
    model = after_a_round(config)
    model.apply_document(Document.RULES, rules_of(config))
    screen = betting_screen(model)
    texts, names = drawn(screen, 100.0)
    assert "last round" in names, names
    assert any(t.startswith("LAST ROUND: ") for t in texts), texts
    layout = Layout.for_window(SIZE)
    spot = next(s for s in screen.spots(layout) if s.enabled)
    chip = next(c for c in screen.tray(layout).slots())
    screen.handle(Tap(chip.target_id))
    texts, names = drawn(screen, 100.0 + model.results_seconds + 60)
    assert "last round" in names, "no wager yet: the results stay"
    screen2 = betting_screen(model)
    drawn(screen2, 200.0)
    screen2.handle(Tap(spot.target_id))
    assert screen2.pending, "the tap placed a chip"
    _, names = drawn(screen2, 200.0 + model.results_seconds / 2)
    assert "last round" in names, "within the minimum the results stay"
    _, names = drawn(screen2, 200.0 + model.results_seconds + 0.1)
    assert "last round" not in names and "pays" in names
