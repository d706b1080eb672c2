"""The screens of an Ultimate Texas Hold 'Em table (58 Pa. Code 653a): which screen the view
calls for, what each draws (saved as PNG and checked on its pixels) at 1920x1080, 1280x720
and portrait 1080x1920, the betting spots (the Ante tap that stakes the Blind too, the
fixed-amount bonus spots, DEAL), the decision buttons against the view's legal decisions
and the Act each sends, a malformed view, and the demo bot playing whole rounds through the
terminal app against the real UTH machine.

Views are built by the real server code (test_uth_model's builders over a UthMachine) or
are the example of game_server/table/uth_views.py's docstring; intents go to a recording
client, or to the machine itself.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from test_uth_model import (  # noqa: E402
    ALL_WAGERS,
    EXAMPLE,
    MAIN,
    Table,
    completed,
    model_of,
    round_at,
)

from terminal_client.app import Autoplay, TerminalApp  # noqa: E402
from terminal_client.games.uth.bot import uth_strategy  # noqa: E402
from terminal_client.games.uth.model import Decision, uth_of  # noqa: E402
from terminal_client.games.uth.render import (  # noqa: E402
    board_rects,
    bonus_spot_circles,
    main_spot_circles,
    uth_areas,
)
from terminal_client.games.uth.screens import UthBettingScreen, UthPlayScreen, UthResultsScreen  # noqa: E402
from terminal_client.input import Tap  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.render.draw import BACK_RED, CARD_FACE, GOLD  # noqa: E402
from terminal_client.render.table import hand_rects  # noqa: E402
from terminal_client.screens import AttractScreen, Screen, screen_for  # noqa: E402
from terminal_client.screens.overlay import menu_buttons  # noqa: E402
from terminal_client.screens.rules import RulesScreen  # noqa: E402
from terminal_client.screens.scene import meters_rect  # noqa: E402

SIZES = [(1920, 1080), (1280, 720), (1080, 1920)]
SIZE_IDS = ["1920x1080", "1280x720", "1080x1920"]
BY_SIZE = pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)

pytestmark = pytest.mark.usefixtures("headless")


class RecordingClient:
    """A client that records each intent it is asked to send (and sends nothing)."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def place_wagers(self, wagers: Any, position: int | None = None) -> Any:
        self.sent.append(("place_wagers", dict(wagers), position))
        return True

    def act(self, action: str, hand: int, amount: int = 0) -> Any:
        self.sent.append(("act", action, hand, amount))
        return True

    def answer_insurance(self, choice: str, amount: int = 0) -> Any:
        self.sent.append(("insurance", choice, amount))
        return True

    def cash_out(self) -> Any:
        self.sent.append(("cash_out",))
        return True

    def request_rules(self) -> bool:
        return True

    def request_recall(self) -> bool:
        return True


def screen_of(view: dict[str, Any], client: Any = None) -> Screen:
    model = model_of(view)
    return screen_for(model)(model, client or RecordingClient())


def _state(screen: Screen) -> dict[str, Any]:
    return {
        k: copy.copy(v) if not hasattr(v, "__dict__") else dict(vars(v))
        for k, v in vars(screen).items()
        if k not in ("model", "client")
    }


def draw(screen: Screen, size: tuple[int, int], tmp_path: Path, name: str) -> pygame.Surface:
    """Draw ``screen`` to ``name``.png; drawing changes neither the screen nor the model."""
    screen.update(0.0)
    surface = pygame.Surface(size)
    view, before = screen.model.view, _state(screen)
    screen.draw(surface, Layout.for_window(size))
    assert screen.model.view is view and _state(screen) == before
    path = tmp_path / f"{name}-{size[0]}x{size[1]}.png"
    pygame.image.save(surface, str(path))
    assert path.stat().st_size > 10_000
    return surface


def colours_in(surface: pygame.Surface, rect: pygame.Rect) -> set[tuple[int, int, int]]:
    rect = rect.clip(surface.get_rect())
    return {
        tuple(surface.get_at((x, y))[:3])
        for x in range(rect.left, rect.right, 2)
        for y in range(rect.top, rect.bottom, 2)
    }


def dealer_card_rects(layout: Layout) -> tuple[pygame.Rect, ...]:
    """Where the dealer's two cards are drawn (as the UTH scene places them)."""
    area = layout.dealer
    return hand_rects(area.move(0, round(40 * layout.scale)), 2, round(area.height * 0.62))


def tap(screen: Screen, target: str) -> Any:
    return screen.handle(Tap(target))


# Which screen ----------------------------------------------------------------------------------


def test_the_uth_screens_follow_the_round() -> None:
    """Betting, the three streets, the results, and the next betting window each call for
    their screen; a terminal without credits nor a hand sees the attract screen."""
    table = Table()
    assert screen_for(model_of(table.view())) is UthBettingScreen
    table.machine.place_wagers("T1", ALL_WAGERS)
    assert screen_for(model_of(table.view())) is UthBettingScreen
    table.machine.place_wagers("T2", MAIN)
    table.expire()
    for street in ("preflop", "flop"):
        assert table.view()["phase"] == street
        assert screen_for(model_of(table.view())) is UthPlayScreen
        table.act("T1", "check")
        table.act("T2", "check")
    assert screen_for(model_of(table.view())) is UthPlayScreen
    assert screen_for(model_of(table.view("T3"))) is UthBettingScreen  # no more bets
    table.act("T1", "bet", 1)
    table.act("T2", "fold")
    assert screen_for(model_of(table.view())) is UthResultsScreen
    table.expire()
    assert screen_for(model_of(table.view())) is UthBettingScreen
    broke = copy.deepcopy(EXAMPLE)
    broke.update(credits=0, machine="betting", phase="betting")
    broke["uth"].update(seats=[], hole=[], legal=[])
    broke.update(actions=[], to_act=[])
    assert screen_for(model_of(broke)) is AttractScreen


# Layout ----------------------------------------------------------------------------------------


@BY_SIZE
def test_the_uth_areas_overlap_nothing(size: tuple[int, int]) -> None:
    """The board, the player's cards, the spots and the information panel keep clear of
    each other and of the dealer, credits, message bar, menu, meters, countdown, chip tray
    and buttons; the results and hands panels keep clear of what the results screen
    shows. Every spot is at least a finger wide."""
    layout = Layout.for_window(size)
    s = layout.scale
    areas = uth_areas(layout)
    r = layout.countdown_radius
    cx, cy = layout.countdown_center
    countdown = pygame.Rect(cx - r, cy - r, 2 * r, 2 * r + round(40 * s))
    buttons = layout.action_buttons["hit"].unionall(list(layout.action_buttons.values()))
    menu = [pygame.Rect(b.rect) for b in menu_buttons(layout, model_of(EXAMPLE))]
    dealer = layout.dealer.inflate(0, -round(4 * s))
    fixed = {
        "dealer": dealer,
        "credits": layout.credits,
        "message": layout.message_bar,
        "countdown": countdown,
        "meters": meters_rect(layout),
        **{f"menu{i}": rect for i, rect in enumerate(menu)},
    }
    main = main_spot_circles(layout, ("ante", "blind", "play", "trips"))
    bonus = bonus_spot_circles(layout, ("progressive", "five_card_player", "five_card_dealer"))
    spots = {
        name: pygame.Rect(c[0] - rad, c[1] - rad, 2 * rad, 2 * rad + round(30 * s))
        for name, (c, rad) in {**main, **bonus}.items()
    }
    for name, (_, rad) in {**main, **bonus}.items():
        assert 2 * rad >= round(96 * s) - 1, name
    play = {
        **fixed,
        "board": areas.board.inflate(0, 0).union(pygame.Rect(areas.felt_line, (1, round(24 * s)))),
        "hole": areas.hole,
        "info": areas.info,
        "buttons": buttons,
        "tray": layout.chip_tray_rect,
        **spots,
    }
    results = {
        **fixed,
        "board": areas.board,
        "hole": areas.hole,
        "hands": areas.hands,
        "results": areas.results,
        "others": areas.others,
    }
    for group in (play, results):
        for a, rect_a in group.items():
            assert layout.window.contains(rect_a), a
            for b, rect_b in group.items():
                if a < b:
                    assert not rect_a.colliderect(rect_b), (a, b)


# Drawing ---------------------------------------------------------------------------------------


@BY_SIZE
def test_every_uth_screen_state_renders(size: tuple[int, int], tmp_path: Path) -> None:
    """Betting (empty, and with a bet built), each street, and the results render to PNG
    at the size; drawing changes nothing."""
    table = Table()
    betting = screen_of(table.view())
    assert isinstance(betting, UthBettingScreen)
    draw(betting, size, tmp_path, "uth-betting")
    tap(betting, "spot:ante")
    tap(betting, "spot:progressive")
    draw(betting, size, tmp_path, "uth-betting-built")
    for street in ("preflop", "flop", "river"):
        screen = screen_of(round_at(street).view())
        assert isinstance(screen, UthPlayScreen)
        draw(screen, size, tmp_path, f"uth-{street}")
    watching = screen_of(round_at("flop").view("T3"))  # a round on without T3
    assert isinstance(watching, UthBettingScreen) and watching.message() == "NO MORE BETS"
    draw(watching, size, tmp_path, "uth-no-more-bets")
    results = screen_of(completed().view())
    assert isinstance(results, UthResultsScreen)
    draw(results, size, tmp_path, "uth-results")
    draw(screen_of(EXAMPLE), size, tmp_path, "uth-example")


@BY_SIZE
def test_the_dealers_cards_are_drawn_face_down_until_revealed(
    size: tuple[int, int], tmp_path: Path
) -> None:
    """Before the showdown the dealer's two cards are backs (the back's red, no card face);
    once revealed they are faces."""
    layout = Layout.for_window(size)
    rects = dealer_card_rects(layout)
    for street in ("preflop", "river"):
        surface = draw(screen_of(round_at(street).view()), size, tmp_path, f"dealer-{street}")
        for rect in rects:
            inner = rect.inflate(-rect.width // 3, -rect.height // 3)
            colours = colours_in(surface, inner)
            assert BACK_RED in colours
    surface = draw(screen_of(completed().view()), size, tmp_path, "dealer-revealed")
    for rect in rects:
        colours = colours_in(surface, rect.inflate(-rect.width // 3, -rect.height // 3))
        assert BACK_RED not in colours and CARD_FACE in colours


@BY_SIZE
def test_the_board_fills_its_five_places_as_dealt(size: tuple[int, int], tmp_path: Path) -> None:
    """653a.1 "Flop": none of the five community places holds a card pre-flop, three on
    the flop, all five at the river."""
    layout = Layout.for_window(size)
    rects = board_rects(uth_areas(layout).board, layout.scale)
    for street, dealt in (("preflop", 0), ("flop", 3), ("river", 5)):
        surface = draw(screen_of(round_at(street).view()), size, tmp_path, f"board-{street}")
        faces = [CARD_FACE in colours_in(surface, r.inflate(-8, -8)) for r in rects]
        assert faces == [True] * dealt + [False] * (5 - dealt), street


def test_the_results_show_hands_qualifying_and_every_settlement(tmp_path: Path) -> None:
    """653a.12: the results list each settlement of T1 with what it won or lost net of its
    stake (the Ante "LOST -$5.00", not "LOST $0.00"; a win counts the win, not the stake
    returned) and the reason in plain words without its citation (the Blind's "Flush pays
    3 to 2", not "Blind Paytable A: Flush 3 to 2 (653a.12(b))"); the hands panel shows the
    dealer's and T1's best five."""
    from terminal_client.games.uth.screens import hand_blocks, result_rows

    view = completed().view()
    screen = screen_of(view)
    uth = uth_of(screen.model)
    assert uth is not None
    rows = result_rows(uth)
    settled = view["settlements"]
    assert [r.net for r in rows] == [s["paid"] - s["stake"] for s in settled]
    for row, settlement in zip(rows, settled, strict=True):
        net = settlement["paid"] - settlement["stake"]
        sign = "+" if net > 0 else "\u2212" if net < 0 else ""
        assert row.amount == f"{sign}${abs(net) // 100:,}.{abs(net) % 100:02d}"
        assert "653a" not in row.detail and "Paytable" not in row.detail
        assert row.outcome in ("WON", "LOST", "PUSH")
    assert any(r.net < 0 for r in rows)
    blocks = hand_blocks(uth)
    assert [b.title for b in blocks][:2] == ["DEALER", "YOU"]
    drawn = (view["uth"]["magic_card"] is not None) + (view["uth"]["lucky_position"] is not None)
    assert len(blocks) == 2 + drawn  # the Magic Card and the Lucky Bonus each on a line
    assert blocks[0].note in ("QUALIFIES", "DOES NOT QUALIFY")
    assert blocks[0].five == tuple(view["uth"]["dealer"]["hand"]["five"])
    size = (1920, 1080)
    surface = draw(screen, size, tmp_path, "uth-results-panel")
    areas = uth_areas(Layout.for_window(size))
    assert GOLD in colours_in(surface, areas.results)
    assert CARD_FACE in colours_in(surface, areas.hands)


# Betting ---------------------------------------------------------------------------------------


@BY_SIZE
def test_a_chip_on_the_ante_places_the_ante_and_the_equal_blind(size: tuple[int, int]) -> None:
    """653a.7 (regs-653a.md): the Blind equals the Ante. One tap on ANTE (or on BLIND)
    stakes the chip on both; DEAL sends one PlaceWagers with both."""
    client = RecordingClient()
    screen = screen_of(Table().view(), client)
    assert isinstance(screen, UthBettingScreen)
    layout = Layout.for_window(size)
    spots = {spot.id: spot for spot in screen.spots(layout)}
    assert set(spots) == {
        "ante",
        "blind",
        "play",
        "trips",
        "progressive",
        "five_card_player",
        "five_card_dealer",
    }
    assert screen.hit_test(layout, spots["ante"].center) == "spot:ante"
    assert screen.hit_test(layout, spots["play"].center) is None  # a decision, not a bet
    assert tap(screen, "chip:500") is not None
    assert tap(screen, screen.hit_test(layout, spots["ante"].center)) is not None
    assert screen.pending == {"ante": 500, "blind": 500}
    tap(screen, "spot:blind")
    assert screen.pending == {"ante": 1_000, "blind": 1_000}
    tap(screen, "spot:trips")
    assert screen.pending == {"ante": 1_000, "blind": 1_000, "trips": 500}
    shown = {spot.id: spot.amount for spot in screen.spots(layout)}
    assert shown["ante"] == shown["blind"] == 1_000
    tap(screen, "button:deal")
    assert client.sent == [("place_wagers", {"ante": 1_000, "blind": 1_000, "trips": 500}, None)]


def test_a_bonus_spot_takes_the_tables_fixed_amounts_in_turn() -> None:
    """653a.12(d), (e): the Progressive and Five Card Hand Bonus wagers are fixed amounts
    ($1 or $5): each tap takes the next, past the largest the wager comes off."""
    screen = screen_of(Table().view())
    assert isinstance(screen, UthBettingScreen)
    tap(screen, "chip:2500")
    tap(screen, "spot:progressive")
    assert screen.pending == {"progressive": 100}
    tap(screen, "spot:progressive")
    assert screen.pending == {"progressive": 500}
    tap(screen, "spot:progressive")
    assert screen.pending == {}
    tap(screen, "spot:five_card_dealer")
    assert screen.pending == {"five_card_dealer": 100}


def test_deal_needs_an_ante_and_the_server_takes_what_it_sends() -> None:
    """DEAL with only a bonus wager says an Ante is needed and sends nothing; with an Ante
    the one PlaceWagers the screen sends is accepted by the real machine."""
    table = Table()
    client = RecordingClient()
    screen = screen_of(table.view(), client)
    assert isinstance(screen, UthBettingScreen)
    tap(screen, "spot:five_card_player")
    tap(screen, "button:deal")
    assert client.sent == [] and "Ante" in screen.message()
    tap(screen, "chip:500")
    tap(screen, "spot:ante")
    tap(screen, "button:deal")
    ((kind, wagers, position),) = client.sent
    assert kind == "place_wagers" and position is None
    assert wagers == {"five_card_player": 100, "ante": 500, "blind": 500}
    table.machine.place_wagers("T1", wagers)
    assert table.view()["uth"]["seats"][0]["wagers"] == wagers


def test_the_ante_stops_at_its_maximum_and_the_credits() -> None:
    """The Ante never goes past its maximum, and the Ante and Blind together never past the
    credits."""
    view = copy.deepcopy(Table().view())
    view["credits"] = 1_500
    screen = screen_of(view)
    assert isinstance(screen, UthBettingScreen)
    tap(screen, "chip:500")
    tap(screen, "spot:ante")
    tap(screen, "spot:ante")
    assert screen.pending == {"ante": 500, "blind": 500}
    assert "credits" in screen.message().lower()


# Decisions -------------------------------------------------------------------------------------


BUTTONS = {
    "preflop": ["check", "bet-4", "bet-3"],
    "flop": ["check", "bet-2"],
    "river": ["bet-1", "fold"],
}
SENDS = {
    "check": ("check", 0),
    "bet-4": ("bet", 4),
    "bet-3": ("bet", 3),
    "bet-2": ("bet", 2),
    "bet-1": ("bet", 1),
    "fold": ("fold", 0),
}


@pytest.mark.parametrize("street", ["preflop", "flop", "river"])
def test_the_decision_buttons_are_exactly_the_views_legal_decisions(street: str) -> None:
    """Each street shows its buttons (pre-flop CHECK, BET 4X, BET 3X; flop CHECK, BET 2X;
    river BET 1X, FOLD), each lit exactly when the view's legal decisions hold it; each
    sends Act with the action and the Play multiple as ``amount``, hand 0, and the real
    machine takes it."""
    layout = Layout.for_window((1920, 1080))
    for button_id in BUTTONS[street]:
        table = round_at(street)
        client = RecordingClient()
        screen = screen_of(table.view(), client)
        assert isinstance(screen, UthPlayScreen)
        buttons = screen.buttons(layout)
        assert [b.id for b in buttons] == BUTTONS[street]
        uth = uth_of(screen.model)
        assert uth is not None
        legal = {(d.action, d.multiple) for d in uth.legal}
        assert {SENDS[b.id] for b in buttons if b.enabled} == legal
        button = next(b for b in buttons if b.id == button_id)
        centre = pygame.Rect(button.rect).center
        assert screen.hit_test(layout, centre) == f"button:{button_id}"
        assert tap(screen, f"button:{button_id}") is not None
        action, multiple = SENDS[button_id]
        assert client.sent == [("act", action, 0, multiple)]
        table.act("T1", action, multiple)
        assert table.view()["uth"]["seats"][0]["status"] in ("decided", "played", "folded")


def test_a_button_the_view_does_not_offer_is_dark_and_sends_nothing() -> None:
    """When the credits cannot pay a 4x Play the view leaves it out: BET 4X is dark and a
    tap on it sends nothing."""
    view = copy.deepcopy(round_at("preflop").view())
    view["uth"]["legal"][1].update(multiples=[3], amounts=[1_500])
    client = RecordingClient()
    screen = screen_of(view, client)
    lit = {b.id: b.enabled for b in screen.buttons(Layout.for_window((1280, 720)))}
    assert lit == {"check": True, "bet-4": False, "bet-3": True}
    assert tap(screen, "button:bet-4") is None and client.sent == []


def test_after_the_play_wager_no_bet_button_is_left() -> None:
    """One Play Wager per round: once it is made the play screen has no decision button on
    any later street, and the Play Wager shows on its spot."""
    table = round_at("preflop")
    table.act("T1", "bet", 3)
    layout = Layout.for_window((1920, 1080))
    screen = screen_of(table.view())
    assert isinstance(screen, UthPlayScreen)
    assert screen.buttons(layout) == ()
    assert "PLAY 3X" in screen.message()
    table.act("T2", "check")
    screen = screen_of(table.view())
    assert screen.buttons(layout) == ()
    uth = uth_of(screen.model)
    assert uth is not None and uth.wagers["play"] == 1_500


def test_no_button_is_lit_while_a_decision_awaits_its_answer() -> None:
    """A decision sent and not yet answered darkens every button."""
    from terminal_client.model import Intent, IntentKind

    screen = screen_of(round_at("flop").view())
    screen.model.apply_sent(Intent.make(IntentKind.ACT, "r1", action="check", hand=0))
    assert not any(b.enabled for b in screen.buttons(Layout.for_window((1920, 1080))))


def test_the_countdown_says_what_it_will_do_to_a_seat_still_to_decide() -> None:
    """The shared decision countdown's ``then`` (check pre-flop and on the flop, fold at
    the river) is shown to a seat still to decide; to one that has decided it shows the
    seconds alone (it will do nothing to it)."""
    from terminal_client.games.uth.screens import shown_countdown

    for street, then in (("preflop", "check"), ("river", "fold")):
        table = round_at(street)
        shown = shown_countdown(model_of(table.view()))
        assert shown is not None and shown.then == then
        table.act("T1", "bet", {"preflop": 4, "river": 1}[street])
        assert table.view()["phase"] == street  # T2 still to decide
        shown = shown_countdown(model_of(table.view()))
        assert shown is not None and shown.then is None and shown.seconds_left > 0


def test_a_malformed_view_shows_a_notice_and_keeps_the_last_good_one(tmp_path: Path) -> None:
    """A malformed view is a notice in the message bar; the cards and buttons shown stay
    those of the last good view."""
    view = round_at("flop").view()
    model = model_of(view)
    screen = screen_for(model)(model, RecordingClient())
    layout = Layout.for_window((1920, 1080))
    lit = {b.id for b in screen.buttons(layout) if b.enabled}
    bad = copy.deepcopy(view)
    bad["uth"]["board"] = ["2C", "not a card", "KS"]
    model.apply_view(bad)
    assert screen_for(model) is UthPlayScreen
    assert uth_of(model) is not None and uth_of(model).board == tuple(view["uth"]["board"])
    assert "cannot read" in screen.message()
    assert {b.id for b in screen.buttons(layout) if b.enabled} == lit
    draw(screen, (1920, 1080), tmp_path, "uth-malformed")


def test_the_rules_overlay_says_the_hold_em_rules_before_the_server_answers() -> None:
    """The rules overlay at a UTH table shows Hold 'Em's rules, not Blackjack's."""
    model = model_of(EXAMPLE)
    rules = RulesScreen(model, RecordingClient())
    text = " ".join(left for left, _ in rules.lines())
    assert "Blind" in text and "Blackjack" not in text


# The demo bot ----------------------------------------------------------------------------------


def test_the_tiny_strategy_picks_among_the_legal_decisions() -> None:
    """Pre-flop 4x with a pair or an ace, the flop 2x with a pair made with a hole card,
    the river 1x with one, else fold; never a decision that is not legal."""
    pre = (Decision("check"), Decision("bet", 3, 1500), Decision("bet", 4, 2000))
    assert uth_strategy(("AS", "7D"), (), "preflop", pre) == Decision("bet", 4, 2000)
    assert uth_strategy(("8S", "8D"), (), "preflop", pre[:2]) == Decision("bet", 3, 1500)
    assert uth_strategy(("KS", "7D"), (), "preflop", pre) == Decision("check")
    flop = (Decision("check"), Decision("bet", 2, 1000))
    assert uth_strategy(("KS", "7D"), ("7C", "2H", "9S"), "flop", flop) == flop[1]
    assert uth_strategy(("KS", "6D"), ("7C", "7H", "9S"), "flop", flop) == flop[0]
    river = (Decision("bet", 1, 500), Decision("fold"))
    board = ("7C", "2H", "9S", "QD", "3C")
    assert uth_strategy(("QS", "4D"), board, "river", river) == river[0]
    assert uth_strategy(("KS", "4D"), board, "river", river) == river[1]
    assert uth_strategy(("KS", "4D"), board, "river", ()) is None


class MachineClient:
    """A client whose intents go straight to the UTH machine: each answer, or each
    refusal, goes to the model."""

    def __init__(self, table: Table, terminal: str, model: TerminalModel) -> None:
        self.table = table
        self.terminal = terminal
        self.model = model
        self.sent: list[tuple[Any, ...]] = []
        self.refused: list[str] = []

    def _run(self, call: Any, *args: Any) -> Any:
        try:
            call(self.terminal, *args)
        except Exception as exc:  # a refusal: recorded, shown as the server's notice
            self.refused.append(f"{type(exc).__name__}: {exc}")
            self.model.apply_error("REFUSED", str(exc))
            return None
        self.refresh()
        return True

    def refresh(self) -> None:
        self.model.apply_view(self.table.view(self.terminal))

    def place_wagers(self, wagers: Any, position: int | None = None) -> Any:
        self.sent.append(("place_wagers", dict(wagers), position))
        return self._run(self.table.machine.place_wagers, dict(wagers), position)

    def act(self, action: str, hand: int, amount: int = 0) -> Any:
        self.sent.append(("act", action, hand, amount))
        return self._run(self.table.machine.act, action, hand, amount)

    def answer_insurance(self, choice: str, amount: int = 0) -> Any:
        self.sent.append(("insurance", choice))
        return None

    def cash_out(self) -> Any:
        return None

    def request_rules(self) -> bool:
        return False

    def request_recall(self) -> bool:
        return False


def test_autoplay_plays_whole_uth_rounds_through_the_app() -> None:
    """The demo bot bets the minimum Ante and Blind and every other wager the table offers
    (Trips at its minimum, each bonus at its smallest fixed amount) every round, so that a
    newcomer sees them all, and decides with the view's legal decisions until rounds
    settle; the app draws each screen on the way and nothing it sends is refused."""
    table = Table(seed=7)
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    client = MachineClient(table, "T1", model)
    client.refresh()
    bot = Autoplay(client)
    surface = pygame.Surface((1280, 720))
    app = TerminalApp(model, client, table.clock, lambda: surface, poll=lambda *a: [], autoplay=bot)
    seen: set[type[Screen]] = set()
    settled_rounds: set[Any] = set()
    for _ in range(600):
        app.tick()
        seen.add(type(app.stack.base))
        uth = uth_of(model)
        if uth is not None and uth.results_current:
            settled_rounds.add(uth.view.round)
        if len(settled_rounds) >= 4:
            break
        seconds = table.machine.seconds_left()
        table.clock.advance(min(1.0, seconds) if seconds else 1.0)
        client.refresh()
    assert client.refused == []
    assert len(settled_rounds) >= 4
    bets = [s for s in client.sent if s[0] == "place_wagers"]
    limits = table.view()["limits"]
    offered = {
        name: min(limit["amounts"]) if "amounts" in limit else limit.get("min")
        for name, limit in limits.items()
    }
    offered["blind"] = offered["ante"]
    assert set(offered) > set(MAIN)
    assert len(bets) >= 4 and all(s[1] == offered and s[2] is None for s in bets)
    acts = [s for s in client.sent if s[0] == "act"]
    assert acts and all(s[2] == 0 for s in acts)
    assert {a[1] for a in acts} <= {"check", "bet", "fold"}
    assert {UthBettingScreen, UthPlayScreen, UthResultsScreen} <= seen


def test_deal_with_an_ante_under_the_minimum_says_so_and_sends_nothing() -> None:
    """An Ante under the table minimum ($5 at uth.toml) is not sent: DEAL names the
    minimum."""
    client = RecordingClient()
    screen = screen_of(Table().view(), client)
    tap(screen, "chip:100")
    tap(screen, "spot:ante")
    assert screen.pending == {"ante": 100, "blind": 100}
    tap(screen, "button:deal")
    assert client.sent == [] and "Ante minimum is $5.00" in screen.message()


def test_screenshots_keep_the_latest_round_and_each_kind_of_screen(tmp_path: Path) -> None:
    """The demo bots' screenshots: the first round, every n-th and always the latest (the
    last round of a demo is never missing), and with ``screens`` this terminal's latest
    betting screen (its bet in), play screen (its decision, before the bot takes it) and
    results screen."""
    from terminal_client.app import Screenshots

    table = Table(seed=7)
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    client = MachineClient(table, "T1", model)
    client.refresh()
    bot = Autoplay(client, think=0.5, now=table.clock.seconds)
    shots = Screenshots(tmp_path, every=3, screens=True)
    surface = pygame.Surface((1280, 720))
    app = TerminalApp(
        model,
        client,
        table.clock,
        lambda: surface,
        poll=lambda *a: [],
        autoplay=bot,
        after_draw=shots,
    )
    settled: list[Any] = []
    for _ in range(2000):
        app.tick()
        uth = uth_of(model)
        if uth is not None and uth.results_current and uth.view.round not in settled:
            settled.append(uth.view.round)
        if len(settled) == 5 and shots.seen == 5:
            break
        seconds = table.machine.seconds_left()
        table.clock.advance(min(0.25, seconds) if seconds else 0.25)
        client.refresh()
    assert len(settled) == 5 and client.refused == []
    rounds = sorted(tmp_path.glob("T1-round*.png"))
    kept = {settled[0], settled[3], settled[4]}
    assert {p.name for p in rounds} == {f"T1-round{r}.png" for r in kept}
    for role in ("betting", "play", "results"):
        path = tmp_path / f"T1-{role}.png"
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", role
    assert sorted(set(shots.saved)) == sorted(shots.saved)
    assert all(path.exists() for path in shots.saved)
