"""etg recall show --png / --frames: recall pictures drawn with the terminal's renderers
(AGCO Standards 13.1.1, GLI-11 "Game Recall": standards-gli.md section 3).

One small log is written once per module by the logged simulation (three seats, seed 2: round
2 has a split and a double down at seat 3). Every expectation is recomputed here from the
raw rows of the log, not from the code under test.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygame
import pytest
from click.testing import CliRunner, Result
from logged_records import unseal_bodies

from game_server.config import example_config_path, load_config
from game_server.eventlog import EventLogReader
from game_server.keys import init_keys
from game_server.recall.pictures import default_terminal, round_views
from game_server.recall.query import fetch_round
from game_server.simlog import run_logged_sim
from shared.cards import parse_card
from terminal_client.model.view import parse_view
from tools.recall_cli import recall

TABLE = "BJ-01"
#: The round of the log with a split and a double down (seat 3, terminal T3).
SPLIT_ROUND = 2
ROUNDS = 6


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of six rounds at three seats (terminals T1-T3), seed 2."""
    keys = tmp_path_factory.mktemp("keys")
    init_keys(keys, force=True)
    db = tmp_path_factory.mktemp("log") / "sim.db"
    config = load_config(example_config_path())
    run_logged_sim(config, db, keys, rounds=ROUNDS, seats=3, seed=2)
    return db


@pytest.fixture(scope="module")
def raw(log: Path) -> dict[int, list[tuple[str | None, dict[str, Any]]]]:
    """Round -> its rows as (terminal, body), from a plain scan of the log."""
    rounds: dict[int, list[tuple[str | None, dict[str, Any]]]] = {}
    with EventLogReader.open(log) as reader:
        for stored in reader.iter_events():
            if stored.round_id is not None:
                rounds.setdefault(stored.round_id, []).append((stored.terminal, stored.body))
    # The hole cards the log holds sealed, from each round's close.
    return {
        number: list(zip([t for t, _ in rows], unseal_bodies([b for _, b in rows]), strict=True))
        for number, rows in rounds.items()
    }


def _views(log: Path, round_id: int, terminal: str | None = None) -> list[dict[str, Any]]:
    with EventLogReader.open(log) as reader:
        logged = fetch_round(reader, TABLE, round_id)
    assert logged is not None
    return round_views(logged, terminal)


def _run(*args: str) -> Result:
    return CliRunner().invoke(recall, ["show", *args])


def _card(text: Any) -> str:
    assert isinstance(text, str), text
    return str(parse_card(text))


def _of_kind(rows: list[tuple[str | None, dict[str, Any]]], kind: str) -> Iterator[dict[str, Any]]:
    return (body for _, body in rows if body["kind"] == kind)


def _expected_hands(rows: list[tuple[str | None, dict[str, Any]]], seat: int) -> list[list[str]]:
    """A seat's hands from its logged cards: a split moves the second card of the split
    hand to the new hand (633a.11)."""
    hands: list[list[str]] = [[]]
    for _, body in rows:
        if body.get("seat") != seat:
            continue
        if body["kind"] == "decision" and body["action"] == "split":
            moved = hands[body["hand"]].pop()
            hands.append([moved])
        elif body["kind"] == "card_dealt":
            hands[body["hand"]].append(_card(body["card"]))
    return hands


def _pixels(path: Path) -> tuple[tuple[int, int], Counter[tuple[int, int, int]]]:
    image = pygame.image.load(str(path))
    width, height = image.get_size()
    colours: Counter[tuple[int, int, int]] = Counter()
    for x in range(0, width, max(1, width // 64)):
        for y in range(0, height, max(1, height // 36)):
            r, g, b, *_ = image.get_at((x, y))
            colours[(r, g, b)] += 1
    return (width, height), colours


def test_png_draws_the_final_table_at_the_asked_size(log: Path, tmp_path: Path) -> None:
    """--png writes one PNG of the asked size whose pixels vary, the felt green dominating,
    and still prints the round's timeline."""
    for size, args in (((1920, 1080), []), ((800, 600), ["--size", "800x600"])):
        out = tmp_path / f"final-{size[0]}.png"
        result = _run(str(log), str(SPLIT_ROUND), "--png", str(out), *args)
        assert result.exit_code == 0, result.output
        assert f"Table {TABLE}  round {SPLIT_ROUND}" in result.stdout
        got, colours = _pixels(out)
        assert got == size
        assert len(colours) > 30
        total = sum(colours.values())
        green = sum(n for (r, g, b), n in colours.items() if g > r + 15 and g > b + 10)
        assert green > total / 2


def test_frames_write_one_picture_per_event(
    log: Path, raw: dict[int, list[tuple[str | None, dict[str, Any]]]], tmp_path: Path
) -> None:
    """--frames DIR writes DIR/event-0001.png ... one per logged event of the round (DIR is
    created), together with --png."""
    frames = tmp_path / "new" / "frames"
    png = tmp_path / "final.png"
    result = _run(str(log), str(SPLIT_ROUND), "--frames", str(frames), "--png", str(png))
    assert result.exit_code == 0, result.output
    count = len(raw[SPLIT_ROUND])
    names = sorted(path.name for path in frames.iterdir())
    assert names == [f"event-{k:04d}.png" for k in range(1, count + 1)]
    assert png.read_bytes() == (frames / names[-1]).read_bytes()


def test_without_picture_options_show_is_unchanged(log: Path, tmp_path: Path) -> None:
    """With neither --png nor --frames, show prints the same text and writes no file."""
    before = set(tmp_path.iterdir())
    plain = _run(str(log), str(SPLIT_ROUND))
    sized = _run(str(log), str(SPLIT_ROUND), "--size", "800x600", "--terminal", "T1")
    assert plain.exit_code == sized.exit_code == 0
    assert plain.stdout == sized.stdout
    assert "wrote" not in plain.output
    assert set(tmp_path.iterdir()) == before


def test_views_show_the_logged_cards_credits_and_settlements(
    log: Path, raw: dict[int, list[tuple[str | None, dict[str, Any]]]]
) -> None:
    """After the last event, the view's dealer cards and each of the terminal's hands are the
    logged cards (a split hand included); credits go from round_started's balance to
    round_closed's; the settlements are the terminal's logged ones; every view is one the
    terminal reads."""
    for round_id in range(1, ROUNDS + 1):
        rows = raw[round_id]
        for seat, terminal in enumerate(("T1", "T2", "T3"), start=1):
            views = _views(log, round_id, terminal)
            assert len(views) == len(rows)
            for view in views:
                parse_view(view)
            final = views[-1]
            dealer = [_card(b["card"]) for b in _of_kind(rows, "card_dealt") if b["seat"] == 0]
            assert [_card(c) for c in final["dealer"]["cards"]] == dealer
            (mine,) = [s for s in final["seats"] if s["mine"]]
            assert mine["seat"] == final["seat"] == seat
            hands = [[_card(c) for c in hand["cards"]] for hand in mine["hands"]]
            assert hands == _expected_hands(rows, seat)
            started = next(_of_kind(rows, "round_started"))
            closed = next(_of_kind(rows, "round_closed"))
            assert views[0]["credits"] == started["balances"][started["terminals"].index(terminal)]
            assert final["credits"] == closed["balances"][closed["terminals"].index(terminal)]
            settled = [
                {k: body[k] for k in ("wager", "hand", "stake", "paid", "outcome", "line")}
                for who, body in rows
                if who == terminal and body["kind"] == "wager_settled"
            ]
            assert final["settlements"] == settled
    assert any(len(h["hands"]) == 2 for h in _views(log, SPLIT_ROUND, "T3")[-1]["seats"])


def test_hole_card_is_hidden_until_it_is_revealed(
    log: Path, raw: dict[int, list[tuple[str | None, dict[str, Any]]]]
) -> None:
    """docs/design.md step 5: before hole_card_revealed the second dealer card is a card back
    (no value in the view); from the reveal on it is the logged hole card."""
    for round_id in range(1, ROUNDS + 1):
        rows = raw[round_id]
        kinds = [body["kind"] for _, body in rows]
        dealt, hole = next(
            (k, body)
            for k, (_, body) in enumerate(rows)
            if body["kind"] == "card_dealt" and body["seat"] == 0 and not body["face_up"]
        )
        revealed = kinds.index("hole_card_revealed")
        for k, view in enumerate(_views(log, round_id)):
            cards = view["dealer"]["cards"]
            if k < dealt:
                assert len(cards) <= 1
            elif k < revealed:
                assert cards[1:] == [{"hidden": True}]
                assert view["dealer"]["hole_revealed"] is False
                assert view["dealer"]["total"] is None
            else:
                assert _card(cards[1]) == _card(hole["card"])
                assert view["dealer"]["hole_revealed"] is True


def test_a_split_hand_grows_card_by_card(log: Path) -> None:
    """Inside one engine step the frames add one card at a time: the split hand has one card
    each right after the split, and the cards dealt later in the step are not shown yet."""
    views = _views(log, SPLIT_ROUND, "T3")
    counts = [
        [len(hand["cards"]) for seat in view["seats"] if seat["mine"] for hand in seat["hands"]]
        for view in views
    ]
    assert [1, 1] in counts
    totals = [sum(c) for c in counts]
    assert all(b - a in (0, 1) for a, b in itertools.pairwise(totals))


def test_default_terminal_is_the_first_with_a_wager(
    log: Path, raw: dict[int, list[tuple[str | None, dict[str, Any]]]]
) -> None:
    """Without --terminal the pictures show the first terminal that placed a wager."""
    with EventLogReader.open(log) as reader:
        logged = fetch_round(reader, TABLE, SPLIT_ROUND)
    assert logged is not None
    first = next(who for who, body in raw[SPLIT_ROUND] if body["kind"] == "wager_placed")
    assert default_terminal(logged) == first
    assert round_views(logged)[-1]["terminal"] == first


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["999", "--png", "{tmp}/x.png"], ["no round 999", "nearest"]),
        (["2", "--png", "{tmp}/missing/x.png"], ["{tmp}/missing/x.png", "does not exist"]),
        (["2", "--png", "{tmp}/x.jpg"], ["x.jpg", "PNG"]),
        (["2", "--frames", "{tmp}/file.txt"], ["file.txt"]),
        (["2", "--png", "{tmp}/x.png", "--size", "big"], ["--size", "WIDTHxHEIGHT"]),
        (["2", "--png", "{tmp}/x.png", "--size", "10x10"], ["--size", "320"]),
        (["2", "--png", "{tmp}/x.png", "--terminal", "T9"], ["T9", "T1, T2, T3"]),
        (["2", "--png", "{tmp}/x.png", "--table", "BJ-09"], ["BJ-09"]),
    ],
)
def test_errors_name_what_was_wrong(
    log: Path, tmp_path: Path, args: list[str], words: list[str]
) -> None:
    """A missing round, an unwritable path, a bad --size or a terminal not in the round:
    exit status 2 and a message naming what was wrong; no picture is left behind."""
    (tmp_path / "file.txt").write_text("not a directory")
    result = _run(str(log), *(a.format(tmp=tmp_path) for a in args))
    assert result.exit_code == 2, result.output
    for word in words:
        assert word.format(tmp=tmp_path) in result.output
    assert not list(tmp_path.glob("*.png"))
