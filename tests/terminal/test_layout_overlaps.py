"""No two drawn elements overlap on the results screens, at 1280x720, 1920x1080 and portrait
1080x1920, at every kind of table: the results panel no longer sits on the seats, the cards
or the table printing, no outline crosses another card, nothing is drawn over anything else.

Each screen is drawn by the real screen code on an
:class:`~terminal_client.render.elements.ElementCanvas`, which keeps what each element (the
dealer, a seat, this player's hands, the board, the results panel, the credits, ...)
painted, pixel by pixel; two elements overlap when one pixel was painted by both. The
rounds are played by the real server code (the round machines and their views), with the
demo bot's strategy, until the situation wanted comes up: every side wager settled, a split,
a fold, a win.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from client_helpers import AnyClient, wire_model  # noqa: E402
from test_hybrid_model import NO_HOLE, THREE, make_table  # noqa: E402
from test_uth_model import ALL_WAGERS, MAIN, Table, round_at  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402

from game_server.config import TableConfig, example_path, load_config  # noqa: E402
from game_server.games.blackjack.machine import RoundMachine  # noqa: E402
from game_server.games.blackjack.rules.actions import Action  # noqa: E402
from game_server.games.blackjack.session import TableSession  # noqa: E402
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds  # noqa: E402
from terminal_client.app import demo_wagers  # noqa: E402
from terminal_client.games.blackjack.bot import basic_strategy  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.render.elements import ElementCanvas, overlaps  # noqa: E402
from terminal_client.screens import screen_for  # noqa: E402

pytestmark = pytest.mark.usefixtures("headless")

SIZES = [(1280, 720), (1920, 1080), (1080, 1920)]
ALL_SIDES = load_config(example_path("fully-automated-all-side-wagers.toml"))


def fully_automated(wanted: Callable[[dict[str, Any]], bool], seed: int = 3) -> dict[str, Any]:
    """T1 (every side wager) and T2, T4 (the main wager) play basic strategy round after
    round until T1's view of a settled round is ``wanted``."""
    shoes = SealedShoes(ALL_SIDES, simulation_seeds(seed, ALL_SIDES.table_id), bytes(32), "k")
    seats = {"T1": 1, "T2": 3, "T4": 6}
    session = TableSession(ALL_SIDES, MemorySink(), shoes, seats)
    session.open()
    clock = Clock()
    machine = RoundMachine(session, clock, next_round_delay=2.0)
    for terminal in seats:
        machine.cash_in(terminal, 10_000_000, "test")
    machine.open()
    for _ in range(300):
        for terminal in seats:
            wagers = demo_wagers(wire_model(machine.view(terminal)))
            if terminal != "T1":
                wagers = {"blackjack": wagers["blackjack"]}
            machine.place_wagers(terminal, wagers)
        clock.advance(ALL_SIDES.timers.betting_seconds)
        for _ in range(100):
            view = machine.view("T1")
            if view["phase"] == "complete":
                break
            for terminal in seats:
                mine = machine.view(terminal)
                if mine["insurance"] is not None:
                    machine.answer_insurance(terminal, "decline", 0)
            to_act = machine.view("T1")["to_act"]
            if to_act is None:
                clock.advance(1)
                continue
            terminal = next(t for t, s in seats.items() if s == to_act["seat"])
            mine = wire_model(machine.view(terminal))
            hand = next(h for h in mine.my_hands if h.index == to_act["hand"])
            up = mine.view.dealer.cards[0] if mine.view else None
            action = basic_strategy(hand.cards, up or "TD", mine.legal_actions) or "stand"
            machine.act(terminal, Action(action), to_act["hand"], None)
        view = machine.view("T1")
        if wanted(view):
            return view
        clock.advance(3)
    pytest.fail("no round of the seeded shoe came up with the situation wanted")


def hybrid(config: TableConfig, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """T1 (every side wager) and T2 at a hybrid table, standing, until ``wanted``."""
    table = make_table(config, seed=4)
    sides = {o.wager.name: o.limits.minimum for o in config.rules.side_wagers}
    for _ in range(200):
        table.join("T1", 2, {"blackjack": 1_000, **sides})
        table.join("T2", 2)
        table.clock.advance(config.timers.betting_seconds)
        table.decline_insurance()
        table.settle()
        view = table.view()
        if wanted(view):
            return view
        table.next_round()
    pytest.fail("no round came up with the situation wanted")


def uth_folded() -> dict[str, Any]:
    table = round_at("river", seed=8)
    table.act("T1", "fold")
    table.act("T2", "fold")
    return table.view()


def uth_won() -> dict[str, Any]:
    for seed in range(20, 60):
        table = Table(seed)
        table.deal({"T1": ALL_WAGERS, "T2": MAIN})
        table.act("T1", "bet", 4)
        table.act("T2", "check")
        table.act("T2", "check")
        table.act("T2", "bet", 1)
        view = table.view()
        if sum(s["paid"] - s["stake"] for s in view["settlements"]) > 0:
            return view
    pytest.fail("no winning round")


def settled(view: dict[str, Any]) -> int:
    return len(view["settlements"])


ROUNDS: dict[str, Callable[[], dict[str, Any]]] = {
    "fully automated, every side wager": lambda: fully_automated(lambda v: settled(v) >= 10),
    "fully automated, a split": lambda: fully_automated(
        lambda v: len(v["seats"]) > 0 and len(v["seats"][0]["hands"]) > 1
    ),
    "three-position": lambda: hybrid(THREE, lambda v: settled(v) >= 2),
    "no hole card": lambda: hybrid(NO_HOLE, lambda v: settled(v) >= 4),
    "hold 'em, won": uth_won,
    "hold 'em, folded": uth_folded,
}


@pytest.mark.parametrize("round_", sorted(ROUNDS))
@pytest.mark.parametrize("size", SIZES, ids=["1280x720", "1920x1080", "portrait"])
def test_no_two_elements_overlap_on_the_results_screen(round_: str, size: tuple[int, int]) -> None:
    """Every element of the results screen painted pixels no other element painted."""
    model = wire_model(ROUNDS[round_]())
    screen = screen_for(model)(model, AnyClient())
    assert screen.role == "results", type(screen)
    canvas = ElementCanvas(size)
    screen.update(0.0)
    screen.draw(canvas, Layout.for_window(size))
    names = {drawn.name for drawn in canvas.drawn}
    assert {"results", "credits", "menu", "message", "dealer"} <= names, names
    assert overlaps(canvas.drawn) == []


def test_the_canvas_finds_two_elements_painting_the_same_pixels() -> None:
    """The check itself: two panels drawn one over the other are found, with the pixels
    they share; side by side they are not."""
    from terminal_client.render.elements import element
    from terminal_client.screens.scene import panel

    canvas = ElementCanvas((200, 100))
    with element(canvas, "left") as target:
        panel(target, pygame.Rect(0, 0, 100, 100))
    with element(canvas, "right") as target:
        panel(target, pygame.Rect(100, 0, 100, 100))
    assert overlaps(canvas.drawn) == []
    with element(canvas, "over") as target:
        panel(target, pygame.Rect(90, 10, 20, 20))
    found = overlaps(canvas.drawn)
    assert {(a, b) for a, b, _ in found} == {("left", "over"), ("right", "over")}
    assert all(count > 0 for _, _, count in found)
