"""A Caribbean Stud Poker log written by ``etg sim --log`` (the bots through the live
session): ``etg verify`` replays every round, ``etg recall show`` tells a round and draws it
with the terminal's own code, and the recall pictures' views never show what the terminal
could not see at that moment (639a.1 "Hole card")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from game_server.eventlog import EventLogReader
from game_server.recall.pictures import round_views
from game_server.recall.query import fetch_round
from terminal_client.games.caribbean.model import parse_caribbean_view
from tools.cli import main

CONFIG = "game_server/games/caribbean/configs/caribbean.toml"
ROUNDS = 6


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    directory = tmp_path_factory.mktemp("caribbean-log")
    runner = CliRunner()
    certs, db = directory / "certs", directory / "c.db"
    assert runner.invoke(main, ["certs", "init", str(certs)]).exit_code == 0
    args = ["sim", "--config", CONFIG, "--rounds", str(ROUNDS), "--seed", "7", "--json"]
    result = runner.invoke(main, [*args, "--log", str(db), "--certs", str(certs)])
    assert result.exit_code == 0, result.output
    return db, certs


def test_etg_verify_replays_every_round_of_a_sim_log(log: tuple[Path, Path]) -> None:
    db, certs = log
    result = CliRunner().invoke(main, ["verify", str(db), "--key", str(certs)])
    assert result.exit_code == 0, result.output
    assert "VERIFIED" in result.output
    assert f"{ROUNDS} of {ROUNDS} rounds replayed" in result.output


def test_etg_recall_show_tells_and_draws_a_round(log: tuple[Path, Path], tmp_path: Path) -> None:
    db, _ = log
    png, frames = tmp_path / "round.png", tmp_path / "frames"
    args = ["recall", "show", str(db), "2", "--png", str(png), "--size", "640x360"]
    result = CliRunner().invoke(main, [*args, "--frames", str(frames)])
    assert result.exit_code == 0, result.output
    assert "places Ante $5.00" in result.output
    assert png.stat().st_size > 0 and png.read_bytes().startswith(b"\x89PNG")
    assert len(list(frames.glob("event-*.png"))) > 20


def test_recall_views_hide_the_dealers_hole_cards_until_the_showdown(
    log: tuple[Path, Path],
) -> None:
    """Each view of the round is one the terminal reads; the dealer's four hole cards stay
    face down until the dealer's hand is revealed, and no other seat's card is ever sent."""
    db, _ = log
    with EventLogReader.open(db) as reader, reader.snapshot():
        logged = fetch_round(reader, "CSP-01", 2)
    assert logged is not None
    views = round_views(logged, "T1")
    assert len(views) == len(logged.events)
    revealed_at = next(
        i for i, item in enumerate(logged.events) if item.event.kind == "caribbean_dealer_revealed"
    )
    for i, view in enumerate(views):
        parse_caribbean_view(view)
        dealer = view["dealer"]["cards"]
        if dealer and i < revealed_at:
            assert dealer[1:] == [None] * (len(dealer) - 1), i
        for seat in view["seats"]:
            if not seat["mine"]:
                assert seat["hands"] == [{"cards": []}], json.dumps(seat)
    assert None not in views[-1]["dealer"]["cards"] and len(views[-1]["dealer"]["cards"]) == 5
