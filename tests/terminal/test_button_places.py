"""Where the decision buttons go, over every decision sequence of every game: a choice that
gives up a wager (SURRENDER, 633a.9; FOLD, 653a.7) never takes the place of a harmless one
between two consecutive decisions (a player who checked the flop and taps the same place at
the river must not fold); only the decisions a table offers are drawn; one label size per
row.

The views are the real server's (``view_for``, ``hybrid_view_for``, ``uth_view_for``) read
by the real model and shown by the real screens. A blackjack decision is any subset of the
table's decisions (every legal set the engine can give is one of them), before it the
betting screen or the insurance offer; a Hold 'Em round is pre-flop, flop, river as the
machine deals them, after the betting screen.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Iterator
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from client_helpers import AnyClient, wire_model  # noqa: E402
from test_hybrid_model import NO_HOLE, THREE, find_round, make_table  # noqa: E402
from test_uth_model import ALL_WAGERS, MAIN, Table, round_at  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402

from game_server.config import TableConfig, example_path, load_config  # noqa: E402
from game_server.games.blackjack.machine import RoundMachine  # noqa: E402
from game_server.games.blackjack.session import TableSession  # noqa: E402
from game_server.games.blackjack.views import table_actions  # noqa: E402
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.render.draw import CREAM  # noqa: E402
from terminal_client.render.layout import DESTRUCTIVE  # noqa: E402
from terminal_client.screens import screen_for  # noqa: E402
from terminal_client.screens.scene import draw_buttons  # noqa: E402
from terminal_client.widgets import Button  # noqa: E402

pytestmark = pytest.mark.usefixtures("headless")

SIZES = [(1280, 720), (1920, 1080), (1080, 1920)]
FULLY = load_config(example_path("fully-automated-blackjack.toml"))
ALL_SIDES = load_config(example_path("fully-automated-all-side-wagers.toml"))


def with_surrender(config: TableConfig) -> TableConfig:
    """The Rules Submission with late surrender offered (633a.9)."""
    return dataclasses.replace(config, rules=dataclasses.replace(config.rules, late_surrender=True))


def buttons(view: dict[str, Any], layout: Layout) -> tuple[Button, ...]:
    """The buttons the screen the view calls for draws (its decision buttons, or the
    betting screen's CLEAR, REBET, DEAL)."""
    model = wire_model(view)
    screen = screen_for(model)(model, AnyClient())
    assert screen.role in ("betting", "play"), type(screen)
    return screen.buttons(layout)  # type: ignore[attr-defined, no-any-return]


def fully_automated(config: TableConfig) -> Iterator[list[dict[str, Any]]]:
    """Betting, then the insurance offer (with even money and without), then any two
    decisions one after the other, each a subset of what the table offers."""
    shoes = SealedShoes(config, simulation_seeds(1, config.table_id), bytes(32), "k")
    session = TableSession(config, MemorySink(), shoes, {"T1": 1})
    session.open()
    machine = RoundMachine(session, Clock())
    machine.cash_in("T1", 1_000_000, "test")
    machine.open()
    betting = machine.view("T1")
    machine.place_wagers("T1", {"blackjack": config.rules.main_limits.minimum})
    betting_placed = machine.view("T1")
    view = copy.deepcopy(betting_placed)
    view.update(phase="playing", machine="deciding", to_act={"seat": 1, "hand": 0})
    view["seats"][0]["hands"] = [
        {
            "index": 0,
            "cards": ["8S", "8H"],
            "total": 16,
            "soft": False,
            "wagers": {"blackjack": 500},
            "done": False,
            "settled": False,
        }
    ]
    offered = table_actions(config.rules)
    decisions = []
    for count in range(1, len(offered) + 1):
        for subset in itertools.combinations(offered, count):
            decisions.append({**copy.deepcopy(view), "actions": sorted(subset)})
    insurance = []
    for even_money in (False, True):
        offer = {**copy.deepcopy(view), "phase": "insurance", "to_act": None, "actions": []}
        offer["insurance"] = {"can_insure": True, "max": 250, "can_take_even_money": even_money}
        insurance.append(offer)
    for before in (betting, betting_placed, *insurance, *decisions):
        for after in decisions:
            yield [before, after]


def hybrid(config: TableConfig) -> Iterator[list[dict[str, Any]]]:
    """The same at a hybrid table (633b.5): betting, insurance, decisions."""
    joiner = {"T1": 1} if config is THREE else {"T1": 0}
    table = make_table(config)
    betting = table.view()
    dealt = find_round(config, joiner, lambda t: t.view()["insurance"] is not None, insurance=True)
    insurance = dealt.view()
    playing = find_round(config, joiner, lambda t: bool(t.view()["actions"]))
    view = playing.view()
    view["table_actions"] = table_actions(config.rules)
    offered = view["table_actions"]
    decisions = [
        {**copy.deepcopy(view), "actions": sorted(subset)}
        for count in range(1, len(offered) + 1)
        for subset in itertools.combinations(offered, count)
    ]
    for before in (betting, insurance, *decisions):
        for after in decisions:
            yield [before, after]


def hold_em() -> Iterator[list[dict[str, Any]]]:
    """653a.7: betting, then pre-flop, flop and river as the machine deals them (every
    player checks to the river)."""
    table = Table(5)
    table.machine.place_wagers("T1", ALL_WAGERS)
    betting = table.view()
    preflop = round_at("preflop").view()
    flop = round_at("flop").view()
    river = round_at("river").view()
    yield [betting, preflop, flop, river]
    table = Table(6)
    table.machine.place_wagers("T2", MAIN)
    yield [table.view(), round_at("preflop", 6).view()]


#: Each game's decision sequences, and whether it has a choice that gives up a wager.
SEQUENCES = {
    "fully automated": (lambda: fully_automated(FULLY), False),
    "fully automated, surrender and TriLux": (
        lambda: fully_automated(with_surrender(ALL_SIDES)),
        True,
    ),
    "three-position hybrid": (lambda: hybrid(THREE), False),
    "no-hole-card hybrid": (lambda: hybrid(NO_HOLE), False),
    "no-hole-card hybrid with surrender": (lambda: hybrid(with_surrender(NO_HOLE)), True),
    "ultimate texas hold 'em": (hold_em, True),
}


@pytest.mark.parametrize("game", sorted(SEQUENCES))
def test_no_destructive_button_takes_a_harmless_ones_place(game: str) -> None:
    """Between any two consecutive decisions of the game (and from the betting screen to
    the first), where the later one draws FOLD or SURRENDER the earlier one drew nothing
    or the same kind of choice, at every window size."""
    sequences, has_danger = SEQUENCES[game]
    checked = 0
    for sequence in sequences():
        for size in SIZES:
            layout = Layout.for_window(size)
            drawn = [buttons(view, layout) for view in sequence]
            for before, after in itertools.pairwise(drawn):
                for danger in (b for b in after if b.id in DESTRUCTIVE):
                    place = pygame.Rect(danger.rect)
                    under = [b.id for b in before if place.colliderect(pygame.Rect(b.rect))]
                    assert all(i in DESTRUCTIVE for i in under), (game, size, danger.id, under)
                    checked += 1
    assert (checked > 0) is has_danger, (game, checked)


def test_hold_em_folds_only_where_no_harmless_choice_ever_was() -> None:
    """The fold trap of the issue: CHECK at the flop and FOLD at the river are in different
    places; the river's BET 1X takes the place of the flop's BET 2X."""
    layout = Layout.for_window((1280, 720))
    flop = {b.id: b for b in buttons(round_at("flop").view(), layout)}
    river = {b.id: b for b in buttons(round_at("river").view(), layout)}
    assert river["fold"].rect != flop["check"].rect
    assert river["bet-1"].rect == flop["bet-2"].rect
    assert not pygame.Rect(river["fold"].rect).colliderect(pygame.Rect(flop["check"].rect))


@pytest.mark.parametrize(
    ("config", "drawn"),
    [
        (FULLY, {"hit", "stand", "double", "split"}),
        (with_surrender(ALL_SIDES), {"hit", "stand", "double", "split", "surrender", "press"}),
        (ALL_SIDES, {"hit", "stand", "double", "split", "press"}),
        (THREE, {"hit", "stand", "double", "split"}),
        (with_surrender(NO_HOLE), {"hit", "stand", "double", "split", "surrender"}),
    ],
    ids=["plain", "surrender-and-trilux", "trilux", "three-position", "no-hole-card-surrender"],
)
def test_only_the_decisions_the_table_offers_are_drawn(
    config: TableConfig, drawn: set[str]
) -> None:
    """SURRENDER only where the Rules Submission offers it (633a.9), PRESS only with TriLux
    Deluxe (633b.11(f)): a table draws no greyed button for what it never offers."""
    layout = Layout.for_window((1920, 1080))
    hybrid_table = config.table_type != FULLY.table_type
    sequence = next(hybrid(config) if hybrid_table else fully_automated(config))
    view = sequence[1]
    assert {b.id for b in buttons(view, layout)} == drawn


def test_every_label_of_a_button_row_has_one_size() -> None:
    """SURRENDER no longer gets a smaller font than HIT: the letters of every button of a
    row are the same height, measured on the drawn pixels."""
    layout = Layout.for_window((1280, 720))
    row = layout.buttons(None, {"hit", "stand", "double", "split", "surrender"})
    surface = pygame.Surface(layout.size)
    surface.fill((0, 0, 0))
    draw_buttons(surface, Layout.for_window(surface.get_size()), row)
    heights = {}
    for button in row:
        rect = pygame.Rect(button.rect)
        ink = (44, 28, 8) if button.id not in DESTRUCTIVE else CREAM
        rows = [
            y
            for y in range(rect.top, rect.bottom)
            if any(
                sum(abs(a - b) for a, b in zip(surface.get_at((x, y))[:3], ink, strict=True)) < 30
                for x in range(rect.left, rect.right)
            )
        ]
        heights[button.id] = max(rows) - min(rows)
    assert max(heights.values()) - min(heights.values()) <= 1, heights
