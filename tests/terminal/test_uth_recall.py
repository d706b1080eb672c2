"""Game recall of Ultimate Texas Hold 'Em rounds (58 Pa. Code 653a) at the terminal: the
server's own recall (game_server.recall.terminal over a real event log the UTH session
wrote) read by the terminal and drawn by its recall overlay, at the three window sizes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_uth_model import CONFIG, EXAMPLE, model_of
from twisted.internet.task import Clock

from game_server.eventlog import EventLog, EventLogReader
from game_server.games.uth.machine import UthMachine, UthState
from game_server.games.uth.session import UthSession
from game_server.keys import init_keys, key_id, load_public_key, load_sealing_key
from game_server.recall.terminal import terminal_recall
from game_server.table.session import SealedShoes, simulation_seeds
from terminal_client.model import Document, parse_recall
from terminal_client.render import Layout
from terminal_client.screens.recall import RecallScreen

pygame = pytest.importorskip("pygame")

pytestmark = pytest.mark.usefixtures("headless")


class _Steps:
    """A fake wall clock for the log: each reading 100 ms after the one before."""

    def __init__(self) -> None:
        from datetime import UTC, datetime

        self.now = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)

    def __call__(self) -> Any:
        from datetime import timedelta

        moment = self.now
        self.now += timedelta(milliseconds=100)
        return moment


@pytest.fixture(scope="module")
def recall(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """T1's recall after two rounds: one played with every wager and a 4x Play, one
    checked to the river and folded."""
    keys = tmp_path_factory.mktemp("keys")
    init_keys(keys, force=True)
    db = tmp_path_factory.mktemp("log") / "uth.db"
    with EventLog.create_or_open(db, keys, _Steps()) as log:
        shoes = SealedShoes(
            CONFIG,
            simulation_seeds(3, CONFIG.table_id),
            load_sealing_key(keys),
            key_id(load_public_key(keys)),
        )
        session = UthSession(CONFIG, log, shoes, {"T1": 1, "T2": 2})
        session.open()
        clock = Clock()
        machine = UthMachine(session, clock, next_round_delay=5.0)
        for terminal in ("T1", "T2"):
            machine.cash_in(terminal, 1_000_000, "test")
        machine.open()

        def expire() -> None:
            seconds = machine.seconds_left()
            assert seconds is not None
            clock.advance(seconds)

        wagers = {
            "ante": 500,
            "blind": 500,
            "trips": 500,
            "progressive": 100,
            "five_card_player": 100,
            "five_card_dealer": 100,
        }
        machine.place_wagers("T1", wagers)
        machine.place_wagers("T2", {"ante": 500, "blind": 500})
        expire()
        machine.act("T1", "bet", 0, 4)
        machine.act("T2", "check", 0, 0)
        machine.act("T2", "check", 0, 0)
        machine.act("T2", "fold", 0, 0)
        while machine.machine_state is not UthState.BETTING:
            expire()
        machine.place_wagers("T1", {"ante": 500, "blind": 500})
        expire()
        machine.act("T1", "check", 0, 0)
        machine.act("T1", "check", 0, 0)
        machine.act("T1", "fold", 0, 0)
    with EventLogReader.open(db) as reader:
        return terminal_recall(reader, "T1")


def test_the_terminal_reads_the_servers_uth_recall(recall: dict[str, Any]) -> None:
    """Both games read: the newest (folded) first, each with this terminal's two cards, the
    five community cards, the dealer's revealed cards and hand, and every settlement."""
    games = parse_recall(recall).games
    assert [g.game for g in games] == ["uth", "uth"]
    folded, played = games
    assert folded.round > played.round
    for game, raw in zip(games, recall["games"], strict=True):
        assert game.hands == (tuple(raw["cards"]),) and len(game.hands[0]) == 2
        assert game.board == tuple(raw["board"]) and len(game.board) == 5
        assert game.dealer_cards == tuple(raw["dealer"]["cards"])
        assert [r.paid for r in game.results] == [r["paid"] for r in raw["results"]]
    assert folded.hand_name is not None and folded.hand_name.endswith("(folded)")
    assert dict(played.wagers)["play"] == 2_000
    assert played.magic_card is not None and played.lucky_position is None  # Magic Card table


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720), (1080, 1920)])
def test_the_recall_overlay_draws_a_uth_game(
    recall: dict[str, Any], size: tuple[int, int], tmp_path: Path
) -> None:
    """The recall overlay at a UTH table draws each game (the community cards among its
    cards) and names the Magic Card drawn."""
    model = model_of(EXAMPLE)
    model.apply_document_requested(Document.RECALL)
    model.apply_document(Document.RECALL, recall)
    assert model.recall is not None

    class Client:
        def request_recall(self) -> bool:
            return True

    screen = RecallScreen(model, Client())  # type: ignore[arg-type]
    assert screen.page_count() == 2
    screen.page = 1
    rows = [left for left, _ in screen.summary(model.recall.games[1])]
    assert any(row.startswith("Magic Card") for row in rows)
    for page in range(2):
        screen.page = page
        surface = pygame.Surface(size)
        screen.draw(surface, Layout.for_window(size))
        path = tmp_path / f"uth-recall-{page}-{size[0]}x{size[1]}.png"
        pygame.image.save(surface, str(path))
        assert path.stat().st_size > 10_000
