"""The generic fallback screen (terminal_client.screens.fallback): a view of a game this
terminal has no package for is read for its common keys and played on one screen, a button
per wager and per decision the server allows; its recall page shows the common fields."""

from __future__ import annotations

from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from poker_views import Sent  # noqa: E402

from terminal_client.games.generic import GenericGame  # noqa: E402
from terminal_client.input import Tap  # noqa: E402
from terminal_client.model import ConnectionState, TerminalModel, parse_recall  # noqa: E402
from terminal_client.render import Layout  # noqa: E402
from terminal_client.screens import RecallScreen, screen_for  # noqa: E402
from terminal_client.screens.fallback import FallbackScreen  # noqa: E402

pytestmark = pytest.mark.usefixtures("headless")
SIZE = (1280, 720)


def view(**changes: Any) -> dict[str, Any]:
    """A view of a game no package of this terminal draws: the common keys and a table."""
    base: dict[str, Any] = {
        "v": 1,
        "game": "red_dog",
        "table": "RD-1",
        "state": "open",
        "machine": "betting",
        "reason": None,
        "round": 4,
        "phase": "betting",
        "terminal": "T1",
        "seat": 2,
        "credits": 2_000,
        "limits": {"ante": {"min": 500, "max": 5_000}, "bonus": {"min": 100, "max": 500}},
        "chips": [100, 500],
        "countdown": {"for": "betting", "seconds_left": 9, "then": "deal"},
        "to_act": None,
        "actions": [],
        "settlements": [],
    }
    return {**base, **changes}


def model_of(data: dict[str, Any]) -> TerminalModel:
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    model.apply_view(data)
    return model


def test_an_unknown_game_is_read_from_its_common_view_and_bet_on_its_buttons() -> None:
    """Its game is the generic one (named as the view names it), the base screen is the
    fallback screen, and each wager's button stakes its table minimum once tapped."""
    model = model_of(view())
    assert isinstance(model.game, GenericGame) and model.game.name == "red_dog"
    assert model.game.window_title(model) == "Red Dog"
    assert screen_for(model) is FallbackScreen
    client = Sent()
    screen = FallbackScreen(model, client)  # type: ignore[arg-type]
    layout = Layout.for_window(SIZE)
    buttons = {b.id: b for b in screen.buttons(layout)}
    assert set(buttons) == {"wager-ante", "wager-bonus"} and all(
        b.enabled for b in buttons.values()
    )
    target = screen.hit_test(layout, pygame.Rect(buttons["wager-ante"].rect).center)
    assert target == "button:wager-ante"
    assert screen.handle(Tap(target)) is not None
    assert client.calls == [("place_wagers", {"ante": 500})]
    surface = pygame.Surface(SIZE)
    screen.draw(surface, layout)


def test_its_decisions_are_buttons_and_a_giving_up_one_has_its_own_slot() -> None:
    """On this terminal's turn (``to_act`` a hand of its own) a button per legal decision;
    fold in the slot kept for a choice that gives up a wager; tapping acts on the hand."""
    seats = [{"seat": 2, "mine": True, "wagers": {"ante": 500}, "hands": [{"cards": ["7H", "9C"]}]}]
    model = model_of(
        view(phase="deciding", machine="deciding", to_act={"hand": 0}, actions=["raise", "fold"],
             seats=seats, dealer={"cards": ["QS", None]})
    )  # fmt: skip
    assert model.in_round and model.my_turn and model.legal_actions == {"raise", "fold"}
    client = Sent()
    screen = FallbackScreen(model, client)  # type: ignore[arg-type]
    layout = Layout.for_window(SIZE)
    acts = {b.id: b for b in screen.action_buttons(layout)}
    assert set(acts) == {"act-raise", "act-fold"}
    assert pygame.Rect(acts["act-fold"].rect) == layout.action_buttons["surrender"]
    assert not any(b.enabled for b in screen.wager_buttons(layout))  # in the round: no bets
    screen.handle(Tap("button:act-raise"))
    assert client.calls == [("act", ("raise", 0))]
    screen.draw(pygame.Surface(SIZE), layout)


def test_a_generic_view_missing_a_common_key_is_malformed() -> None:
    """Nothing is guessed: a view without credits is refused, the last good view stays."""
    model = model_of(view())
    broken = view(credits=None)
    del broken["credits"]
    model.apply_view(broken)
    assert model.credits == 2_000 and model.last_error is not None
    assert model.last_error.code == "MALFORMED_VIEW"


def test_its_recall_page_shows_the_common_fields() -> None:
    """A recalled game of an unknown game: credits, wagers, cards and results on its page."""
    recall = parse_recall(
        {"v": 1, "terminal": "T1", "games": [{
            "game": "red_dog", "table": "RD-1", "round": 4, "status": "complete",
            "start": "2026-01-01T00:00:00Z", "end": "2026-01-01T00:00:09Z", "seat": 2,
            "credits_start": 2_000, "credits_end": 2_500, "wagered": 500, "paid": 1_000,
            "wagers": {"ante": 500}, "hands": [{"cards": ["7H", "9C"]}],
            "dealer": {"cards": ["QS"], "total": None}, "decisions": ["raises"],
            "results": [{"wager": "ante", "title": "Ante", "stake": 500, "paid": 1_000,
                         "outcome": "won", "line": "Win 1 to 1"}],
        }]}
    )  # fmt: skip
    (game,) = recall.games
    assert game.game == "red_dog" and game.hands == (("7H", "9C"),)
    model = model_of(view())
    screen = RecallScreen(model, Sent())  # type: ignore[arg-type]
    rows = screen.summary(game)
    assert ("Credits at end", "$25.00") in rows and ("Wagered on Ante", "$5.00") in rows
    assert screen.results(game) == [("Ante: WON (Win 1 to 1)", "paid $10.00")]
    screen.draw_page(pygame.Surface(SIZE), Layout.for_window(SIZE), pygame.Rect(0, 0, 1200, 600))


def test_a_generic_view_of_another_version_means_the_terminal_needs_an_update() -> None:
    """A view of an unknown game is still a view of a version: another one is refused the
    same way (the terminal needs an update), not read as a new game."""
    model = model_of(view(v=2))
    assert model.needs_update and model.view is None


def test_face_down_cards_in_a_seats_hand_are_read_as_face_down_and_drawn() -> None:
    """docs/adding-a-game.md: a face-down card is ``None`` or ``{"hidden": true}``, in a
    seat's hand as in the dealer's; the view is read (not refused as malformed), the hidden
    cards stay face down, the total counts only the cards shown, and the screen draws it."""
    data = view(
        phase="decision",
        dealer={"cards": ["AS", None]},
        seats=[
            {"seat": 1, "mine": False, "wagers": {"ante": 500}, "hands": [{"cards": [None] * 5}]},
            {
                "seat": 2,
                "mine": True,
                "wagers": {"ante": 500},
                "hands": [{"cards": ["KD", {"hidden": True}, "5C"]}],
            },
        ],
    )
    model = model_of(data)
    seats = {seat.seat: seat for seat in model.view.seats}
    assert seats[1].hands[0].cards == (None,) * 5
    assert seats[2].hands[0].cards == ("KD", None, "5C")
    assert seats[2].hands[0].total == 15  # the face-down card counts for nothing
    assert model.view.dealer.cards == ("AS", None)
    surface = pygame.Surface(SIZE)
    FallbackScreen(model, Sent()).draw(surface, Layout.for_window(SIZE))  # type: ignore[arg-type]


def test_a_game_named_by_its_class_keeps_its_name() -> None:
    """docs/adding-a-game.md: a TerminalGame names itself with a class attribute; an instance
    made without arguments (an entry point's object) keeps it, so the registry does not
    refuse it as misnamed; a name passed in still wins, and a bare GenericGame is unnamed."""

    class War(GenericGame):
        name = "war"

    assert War().name == "war"
    assert War("war_two").name == "war_two"
    assert GenericGame().name == "" and GenericGame(None).name == ""


def test_a_wager_is_titled_as_its_own_game_titles_it() -> None:
    """Two games title one wager name each their own way (Caribbean Stud's and UTH's Five
    Card bonus): each terminal game's screens say its own title, whichever game registered
    last; a shared side wager keeps its title at every game."""
    from terminal_client import games
    from terminal_client.screens.scene import wager_name

    caribbean, uth = games.by_name("caribbean"), games.by_name("uth")
    assert wager_name("five_card_player", caribbean) == "Five Card Bonus (your hand)"
    assert wager_name("five_card_player", uth) == "Five Card Hand Bonus (your hand)"
    assert wager_name("lucky_aces", caribbean) == "Lucky Aces"
    assert wager_name("blackjack", games.by_name("spanish21")) == "Blackjack"
