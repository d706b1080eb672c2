"""Card motion (terminal_client.render.anim): newly dealt cards fly from the shoe in deal
order and come to rest, the hole card turns over, a new round starts afresh, and the app
redraws while cards move and stops once they rest."""

from __future__ import annotations

from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from client_helpers import AnyClient, MemoryTable, playing_view, sample_view  # noqa: E402

from terminal_client.app import TerminalApp  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from terminal_client.net import TerminalClient  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.render.anim import (  # noqa: E402
    DEAL_FLIGHT,
    DEAL_STAGGER,
    FLIP_TIME,
    CardAnimation,
    CardFrame,
    CardMotion,
    card_keys,
    dealer_key,
    seat_key,
)
from terminal_client.render.draw import CARD_FACE  # noqa: E402
from terminal_client.render.table import draw_hand, hand_rects  # noqa: E402
from terminal_client.screens import PlayScreen  # noqa: E402
from terminal_client.screens.scene import draw_scene  # noqa: E402

SIZE = (1280, 720)
#: The cards of playing_view(): two for each of two seats, two for the dealer.
DEALT = 6
#: Long enough for every card of playing_view() to land.
SETTLE = DEAL_STAGGER * DEALT + DEAL_FLIGHT + 0.01


def connected(*views: dict[str, Any]) -> TerminalModel:
    """A model connected to the table, having taken ``views`` in turn."""
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    for view in views:
        model.apply_view(view)
    return model


def dealt_and_settled() -> tuple[TerminalModel, CardAnimation]:
    """A tracker that saw the betting view, then the deal of round 7, all landed by t=10."""
    model = connected(sample_view())
    cards = CardAnimation()
    assert cards.update(model, 0.0) is False
    model.apply_view(playing_view())
    assert cards.update(model, 1.0) is True
    assert cards.update(model, 1.0 + SETTLE) is False
    return model, cards


revealed = playing_view(
    dealer={"cards": ["TD", "7S"], "total": 17, "hole_revealed": True},
    to_act=None,
    actions=[],
    countdown=None,
)


def test_deal_order_is_seats_then_dealer_round_by_round() -> None:
    """Cards are dealt as at a real table: first card of each seat from seat 1, the dealer's
    up card, then the second round ending with the hole card."""
    model = connected(playing_view())
    assert model.view is not None
    assert [key for key, _ in card_keys(model.view)] == [
        seat_key(1, 0, 0),
        seat_key(2, 0, 0),
        dealer_key(0),
        seat_key(1, 0, 1),
        seat_key(2, 0, 1),
        dealer_key(1),
    ]


def test_newly_dealt_cards_fly_in_deal_order_and_come_to_rest() -> None:
    """The deal's cards leave the shoe DEAL_STAGGER apart: at the start the first card flies
    and the hole card still waits; half a flight later the first is part way; once all have
    flown update() returns False and nothing moves."""
    model = connected(sample_view())
    cards = CardAnimation()
    assert cards.update(model, 0.0) is False
    model.apply_view(playing_view())
    assert cards.update(model, 5.0) is True
    frame = cards.frame()
    assert frame.motion(seat_key(1, 0, 0)).flight == 0.0
    assert frame.motion(dealer_key(1)).waiting
    assert cards.update(model, 5.0 + DEAL_FLIGHT / 2) is True
    first = cards.frame().motion(seat_key(1, 0, 0)).flight
    assert first is not None and 0.0 < first < 1.0
    assert cards.update(model, 5.0 + SETTLE) is False
    assert not cards.frame().moving
    assert cards.frame().landed(dealer_key(1))


def test_cards_of_the_first_view_are_not_animated() -> None:
    """A terminal that starts (or reconnects) mid-round shows the cards where they lie."""
    model = connected(playing_view())
    cards = CardAnimation()
    assert cards.update(model, 0.0) is False
    assert not cards.frame().moving


def test_a_reconnect_does_not_replay_the_deal() -> None:
    """After the connection drops, the first view of the new connection (even with a card
    dealt meanwhile) is shown at rest."""
    model, cards = dealt_and_settled()
    model.apply_connection(ConnectionState.LOST)
    assert cards.update(model, 20.0) is False
    model.apply_connection(ConnectionState.CONNECTED)
    assert cards.update(model, 20.1) is False  # the old view is not taken again
    hit = playing_view()
    hit["seats"][0]["hands"][0]["cards"].append("2C")
    model.apply_view(hit)
    assert cards.update(model, 20.2) is False
    assert not cards.frame().moving


def test_a_hit_card_flies_alone() -> None:
    """A card added to a hand is the only card that moves."""
    model, cards = dealt_and_settled()
    hit = playing_view()
    hit["seats"][0]["hands"][0]["cards"].append("2C")
    model.apply_view(hit)
    assert cards.update(model, 30.0) is True
    assert set(cards.frame().motions) == {seat_key(1, 0, 2)}


def test_the_hole_card_turns_over_when_revealed() -> None:
    """When the server turns the hole card up it flips in place: the back narrows, then the
    face widens, and after FLIP_TIME it rests."""
    model, cards = dealt_and_settled()
    model.apply_view(revealed)
    assert cards.update(model, 40.0) is True
    assert set(cards.frame().motions) == {dealer_key(1)}
    assert cards.update(model, 40.0 + FLIP_TIME * 0.75) is True
    flip = cards.frame().motion(dealer_key(1)).flip
    assert flip is not None and 0.7 < flip < 0.8
    assert cards.update(model, 40.0 + FLIP_TIME + 0.01) is False


def test_dealer_draws_follow_the_flip() -> None:
    """Cards the dealer draws after turning the hole card leave the shoe once it has turned."""
    model, cards = dealt_and_settled()
    drawn = playing_view(
        dealer={"cards": ["5D", "7S", "9C"], "total": 21, "hole_revealed": True},
        to_act=None,
        actions=[],
    )
    drawn["dealer"]["cards"][0] = "TD"
    model.apply_view(drawn)
    cards.update(model, 50.0)
    assert cards.frame().motion(dealer_key(2)).waiting
    cards.update(model, 50.0 + FLIP_TIME + 0.01)
    assert not cards.frame().motion(dealer_key(2)).waiting


def test_a_new_round_deals_afresh() -> None:
    """A view of a new round forgets the last round's cards: its cards are dealt, even
    where they match the last round's."""
    model, cards = dealt_and_settled()
    model.apply_view(playing_view(round=8))
    assert cards.update(model, 60.0) is True
    assert len(cards.frame().motions) == DEALT


def test_a_card_in_flight_is_drawn_between_the_shoe_and_its_place() -> None:
    """Half way through its flight a card is drawn between the shoe and its slot: the slot
    is still empty and the card's face shows at the midpoint."""
    surface = pygame.Surface((800, 600))
    area = pygame.Rect(0, 400, 300, 150)
    shoe = (700, 50)
    (slot,) = hand_rects(area, 1, 140)
    surface.fill((0, 0, 0))
    draw_hand(surface, area, ("QH",), 140, motions=(CardMotion(flight=0.5),), shoe=shoe)
    mid = (
        (slot.centerx + shoe[0]) // 2,
        (slot.centery + shoe[1]) // 2,
    )
    assert surface.get_at(slot.center)[:3] == (0, 0, 0)
    # Just inside the card's top-left corner at the midpoint: the card's face.
    corner = (mid[0] - slot.width // 2 + slot.width // 5, mid[1] - slot.height // 2 + 3)
    assert surface.get_at(corner)[:3] == CARD_FACE
    surface.fill((0, 0, 0))
    draw_hand(surface, area, ("QH",), 140, motions=(CardMotion(flight=None),), shoe=shoe)
    assert pygame.transform.average_color(surface)[:3] == (0, 0, 0)  # still in the shoe
    draw_hand(surface, area, ("QH",), 140, motions=(CardMotion(),), shoe=shoe)
    assert surface.get_at(slot.center)[:3] != (0, 0, 0)


def test_draw_scene_without_a_frame_draws_the_cards_in_place() -> None:
    """draw_scene(surface, layout, model) draws as with a frame where nothing moves; a frame
    with cards in flight draws something else (and hides totals of unlanded cards)."""
    model = connected(playing_view())
    layout = Layout.for_window(SIZE)
    plain, still, moving = (pygame.Surface(SIZE) for _ in range(3))
    draw_scene(plain, layout, model)
    draw_scene(still, layout, model, cards=CardFrame())
    keys = [key for key, _ in card_keys(model.view)] if model.view else []
    frame = CardFrame(0.0, {key: CardMotion(flight=None) for key in keys})
    draw_scene(moving, layout, model, cards=frame)
    assert pygame.image.tobytes(plain, "RGB") == pygame.image.tobytes(still, "RGB")
    assert pygame.image.tobytes(plain, "RGB") != pygame.image.tobytes(moving, "RGB")


@pytest.mark.usefixtures("headless")
def test_the_app_redraws_while_cards_move_and_stops_when_they_rest(table: MemoryTable) -> None:
    """Every frame is drawn while the deal flies; once the cards rest the frames draw
    nothing, and the play screen was handed the moving cards meanwhile."""
    model = TerminalModel()
    client = TerminalClient(table, model, table.clock)
    client.start()
    table.flush()
    surface = pygame.Surface(SIZE)
    app = TerminalApp(model, client, table.clock, lambda: surface)
    app.run_headless(2)
    model.apply_view(playing_view(countdown=None))
    app.run_headless(1)
    screen = app.stack.top
    assert isinstance(screen, PlayScreen) and screen.cards is not None
    draws = app.draws
    frames = round(SETTLE * 30) + 2
    for _ in range(frames):
        table.clock.advance(1 / 30)
        app.run_headless(1)
    assert app.draws - draws >= int((DEAL_STAGGER * (DEALT - 1) + DEAL_FLIGHT) * 30) - 1
    assert screen.cards is None
    settled = app.draws
    for _ in range(60):
        table.clock.advance(1 / 30)
        app.run_headless(1)
    assert app.draws == settled


@pytest.mark.usefixtures("headless")
def test_a_stopped_clock_draws_a_moving_frame_once(table: MemoryTable) -> None:
    """Frames at the same moment show the same cards: they are not redrawn."""
    model = connected(sample_view())
    surface = pygame.Surface(SIZE)
    app = TerminalApp(model, AnyClient(), table.clock, lambda: surface, poll=lambda *a: [])
    app.run_headless(1)
    model.apply_view(playing_view(countdown=None))
    draws = app.draws
    app.run_headless(10)
    assert app.draws == draws + 1


#: The terminal's pause between a round's settlement and the next betting window (the
#: machines' ``next_round_delay`` in ``etg serve`` and the demo) and the least of it the
#: player must have to read the settled results.
NEXT_ROUND_PAUSE = 3.0
READING_TIME = 2.0


def _fourcard_views() -> dict[str, dict[str, Any]]:
    from test_fourcard_screens import live_views

    return live_views()


def _caribbean_views() -> dict[str, dict[str, Any]]:
    from caribbean_views import live_views

    return live_views()


@pytest.mark.usefixtures("headless")
@pytest.mark.parametrize(
    ("views", "face_down"),
    [(_fourcard_views, 5), (_caribbean_views, 4)],
    ids=["fourcard", "caribbean"],
)
def test_the_showdown_turns_the_dealers_cards_fast_enough_to_read_the_results(
    table: MemoryTable, views: Any, face_down: int
) -> None:
    """From the settling view to the results fully shown (the dealer's face-down cards
    turned, the results screen at rest) takes at most NEXT_ROUND_PAUSE - READING_TIME on the
    app's animation clock: at Four Card Poker (five cards turn) and Caribbean Stud (four),
    the player reads the settled round for at least READING_TIME before the next round
    clears it. The cards turn DEAL_STAGGER apart, each FLIP_TIME long."""
    live = views()
    model = connected(live["betting"])
    surface = pygame.Surface(SIZE)
    app = TerminalApp(model, AnyClient(), table.clock, lambda: surface, poll=lambda *a: [])
    app.run_headless(1)
    model.apply_view(live["decision"])
    for _ in range(60):  # the deal lands
        table.clock.advance(1 / app.fps)
        app.run_headless(1)
    assert not app.cards.frame().moving
    assert live["results"]["dealer"]["cards"].count(None) == 0
    assert live["decision"]["dealer"]["cards"].count(None) == face_down
    model.apply_view(live["results"])
    ticks = 0
    app.run_headless(1)
    while app.stack.top.role != "results" or app.cards.frame().moving:
        ticks += 1
        assert ticks < 10 * app.fps, "the results never came to rest"
        table.clock.advance(1 / app.fps)
        app.run_headless(1)
    reveal = DEAL_STAGGER * (face_down - 1) + FLIP_TIME
    assert ticks == pytest.approx(reveal * app.fps, abs=1)
    assert ticks <= (NEXT_ROUND_PAUSE - READING_TIME) * app.fps
