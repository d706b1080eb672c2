"""``etg verify`` and game recall on the log of an Ultimate Texas Hold 'Em table (58 Pa. Code
653a). The log is a real signed event log written by :class:`UthSession` (two terminals with
every wager, deciding by the strategy); every round replays through the UTH engine, every
card comes from the round's committed deck and the Magic Card and Lucky Bonus from its seed.
Tampering is done as in ``test_verify.py``: on a copy, with a raw sqlite3 connection, the
chain recomputed."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner
from verify_helpers import (
    body,
    copy_log,
    drop_triggers,
    raw,
    readonly,
    rehash_from,
    restore_triggers,
    seqs,
    set_body,
)

from game_server.config import example_path, load_config, parse_config
from game_server.eventlog import EventLogReader, system_clock
from game_server.games.uth.rules import strategy
from game_server.games.uth.session import UthSession
from game_server.keys import init_keys, load_public_key, load_sealing_key
from game_server.recall.query import fetch_round
from game_server.recall.terminal import terminal_recall
from game_server.recall.timeline import build_timeline, format_timeline
from game_server.recall.verify import VerifyReport, verify_log
from game_server.table.recovery import open_tables
from game_server.table.session import simulation_seeds
from tools.recall_cli import recall

CONFIG = load_config(example_path("uth.toml"))
SEATS = {"T1": 1, "T2": 4}
ROUNDS = 12
EVERYTHING = {
    "ante": 500,
    "blind": 500,
    "trips": 500,
    "progressive": 100,
    "five_card_player": 100,
    "five_card_dealer": 500,
}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A complete log of ``ROUNDS`` rounds and its keys; every deck but the last revealed."""
    directory = tmp_path_factory.mktemp("uth")
    certs = directory / "certs"
    init_keys(certs)
    db = directory / "uth.db"
    log, tables = open_tables(
        [CONFIG],
        db,
        certs,
        lambda _: SEATS,
        clock=system_clock,
        seeds=lambda table: simulation_seeds(21, table.table_id),
    )
    session = tables[0][0]
    assert isinstance(session, UthSession)
    for terminal in SEATS:
        session.cash_in(terminal, 200_000, "test")
    for _ in range(ROUNDS):
        session.start_round()
        for terminal in SEATS:
            session.place_wagers(terminal, EVERYTHING)
        session.deal()
        while session.round is not None:
            terminal = session.pending()[0]
            action, multiple = strategy.decide(session.round, SEATS[terminal])
            session.decide(terminal, action, multiple)
    session.retire_shoe()
    log.close()
    return db, certs


def run(db: Path, certs: Path, *, sealing: bool = True) -> VerifyReport:
    with closing(EventLogReader.open(db)) as reader:
        return verify_log(
            reader, load_public_key(certs), sealing_key=load_sealing_key(certs) if sealing else None
        )


def tampered(
    clean: tuple[Path, Path], tmp_path: Path, edit: Callable[..., None], name: str
) -> Path:
    db = copy_log(clean[0], tmp_path / name)
    with closing(raw(db)) as conn:
        drop_triggers(conn)
        edit(conn)
        restore_triggers(conn)
    return db


def failures(report: VerifyReport) -> list[tuple[int | None, str]]:
    return [(f.seq, f.check) for f in report.failures]


def test_a_uth_log_verifies_every_round_card_and_draw(clean: tuple[Path, Path]) -> None:
    """The clean log verifies: every round replays through the UTH engine, every card is its
    committed deck's (one deck per round, each revealed), every Magic Card and Lucky Bonus
    position is its deck seed's draw, and credits are conserved."""
    report = run(*clean)
    assert report.ok, [f.reason for f in report.failures]
    assert report.counts.rounds_replayed == ROUNDS
    assert report.counts.shoes_checked == ROUNDS
    # Per round: 2 x 2 hole cards, 2 dealer cards, 5 community cards, and the draws.
    assert report.counts.cards_checked == ROUNDS * (4 + 2 + 5 + 1)
    without_key = run(*clean, sealing=False)
    assert without_key.ok


def test_an_edited_settlement_fails_the_replay(clean: tuple[Path, Path], tmp_path: Path) -> None:
    """A settlement paying $50 more, the chain recomputed: the replay names that event."""
    with closing(readonly(clean[0])) as conn:
        target = seqs(conn, "uth_wager_settled", 3)[0]

    def edit(conn: sqlite3.Connection) -> None:
        event = body(conn, target)
        set_body(conn, target, {**event, "paid": event["paid"] + 5_000})
        rehash_from(conn, target)

    report = run(tampered(clean, tmp_path, edit, "paid.db"), clean[1])
    assert not report.ok
    assert (target, "replay") in failures(report)
    assert "chain" not in {check for _, check in failures(report)}


def test_a_forged_magic_card_fails_the_draw_check(clean: tuple[Path, Path], tmp_path: Path) -> None:
    """653a.12(e)(3): a Magic Card that is not the deck seed's draw is named at its event,
    even when the settlements were rewritten to match it."""
    with closing(readonly(clean[0])) as conn:
        target = seqs(conn, "uth_settlement_started", 5)[0]
        drawn = body(conn, target)["magic_card"]

    forged = ["2C"] if drawn != ["2C"] else ["3C"]

    def edit(conn: sqlite3.Connection) -> None:
        event = body(conn, target)
        set_body(conn, target, {**event, "magic_card": forged})
        rehash_from(conn, target)

    report = run(tampered(clean, tmp_path, edit, "magic.db"), clean[1])
    assert (target, "cards") in failures(report)
    reason = next(f.reason for f in report.failures if f.seq == target and f.check == "cards")
    assert "Magic Card" in reason and "653a.12(e)(3)" in reason


def test_a_card_not_from_the_committed_deck_is_named(
    clean: tuple[Path, Path], tmp_path: Path
) -> None:
    with closing(readonly(clean[0])) as conn:
        target = seqs(conn, "uth_card_dealt", 2)[0]
        card = body(conn, target)["card"]

    other = "AS" if card != "AS" else "KS"

    def edit(conn: sqlite3.Connection) -> None:
        event = body(conn, target)
        set_body(conn, target, {**event, "card": other})
        rehash_from(conn, target)

    report = run(tampered(clean, tmp_path, edit, "card.db"), clean[1])
    assert (target, "cards") in failures(report)


def test_recall_show_prints_a_uth_round(clean: tuple[Path, Path]) -> None:
    """``etg recall show`` prints the round's steps: the wagers, the cards, each street's
    decisions, the dealer's reveal, the draws and every settlement with its 653a.12 line."""
    result = CliRunner().invoke(recall, ["show", str(clean[0]), "2"])
    assert result.exit_code == 0, result.output
    text = result.output
    for words in (
        "seat 1 (T1) wagers $5.00 on Ante",
        "Progressive Payout",
        "community card",
        "before the flop",
        "dealer reveals",
        "settlement begins; drawn: Magic Card",
        "(653a.12(",
        "round complete",
    ):
        assert words in text, words
    with closing(EventLogReader.open(clean[0])) as reader:
        logged = fetch_round(reader, CONFIG.table_id, 2)
        assert logged is not None
        timeline = build_timeline(logged)
    assert timeline.game == "uth" and timeline.complete and not timeline.problems
    assert format_timeline(timeline)[0].startswith(f"Table {CONFIG.table_id}  round 2")
    assert timeline.credits["T1"].folded_end == timeline.credits["T1"].end


def test_the_terminal_recalls_its_last_ten_uth_games(clean: tuple[Path, Path]) -> None:
    """GetRecall: T1's last 10 games, newest first, with its cards, the board, the dealer's
    cards and hand, its decisions and results; never T2's cards."""
    with closing(EventLogReader.open(clean[0])) as reader:
        document = terminal_recall(reader, "T1")
        other = fetch_round(reader, CONFIG.table_id, ROUNDS)
        assert other is not None
    games = document["games"]
    assert [g["round"] for g in games] == list(range(ROUNDS, ROUNDS - 10, -1))
    newest = games[0]
    assert newest["game"] == "uth" and newest["seat"] == 1
    assert len(newest["cards"]) == 2 and len(newest["board"]) == 5
    assert len(newest["dealer"]["cards"]) == 2 and newest["dealer"]["hand"]["name"]
    assert newest["wagers"] == EVERYTHING | (
        {"play": newest["wagers"]["play"]} if "play" in newest["wagers"] else {}
    )
    assert newest["results"] and all(r["line"] for r in newest["results"])
    assert newest["credits_end"] == newest["credits_start"] - newest["wagered"] + newest["paid"]
    theirs = [
        str(item.event.card)
        for item in other.events
        if item.event.kind == "uth_card_dealt" and item.event.seat == SEATS["T2"]
    ]
    assert len(theirs) == 2
    text = json.dumps(newest)
    assert all(f'"{card}"' not in text for card in theirs if card not in newest["board"])


def test_recall_list_sums_and_finds_uth_rounds(clean: tuple[Path, Path]) -> None:
    """``etg recall list`` on a Hold 'Em log: each round complete with what was wagered and
    paid back (its own ``uth_*`` events); ``--wager`` and ``--min-payout`` find exactly the
    rounds whose events qualify, newest first."""
    from game_server.recall.query import list_rounds

    db, _ = clean
    with EventLogReader.open(db) as reader:
        events = list(reader.iter_events())
        summaries = list_rounds(reader, last=ROUNDS)
        assert len(summaries) == ROUNDS and all(s.complete for s in summaries)
        for summary in summaries:
            mine = [e for e in events if e.round_id == summary.round_id]
            placed = sum(e.body["amount"] for e in mine if e.kind == "uth_wager_placed")
            paid = sum(e.body["paid"] for e in mine if e.kind == "uth_wager_settled")
            assert (summary.wagered, summary.paid) == (placed, paid) and placed > 0
        big = {
            e.round_id for e in events if e.kind == "uth_wager_settled" and e.body["paid"] >= 2_000
        }
        found = list_rounds(reader, last=ROUNDS, min_payout=2_000)
        assert big and {s.round_id for s in found} == big
        trips = list_rounds(reader, last=ROUNDS, wager="trips")
        with_trips = {
            e.round_id
            for e in events
            if e.kind == "uth_wager_placed" and e.body["wager"] == "trips"
        }
        assert [s.round_id for s in trips] == sorted(with_trips, reverse=True)


def test_recall_pictures_of_a_uth_round_show_what_the_player_saw(
    clean: tuple[Path, Path], tmp_path: Path
) -> None:
    """``etg recall show --png/--frames`` at a Hold 'Em table: one view per logged event,
    the dealer's and the other seat's cards face down until the logged showdown, the player's
    own two cards from the deal, credits folded to the balance ``round_closed`` logs, and his
    settlements as logged; every frame drawn."""
    from game_server.games.uth.rules.events import UthDealerRevealed, UthWagerSettled
    from game_server.recall.pictures import round_views
    from game_server.recall.rounds import walk
    from game_server.table.events import RoundClosed
    from tools.recall_pictures import write_pictures

    db, _ = clean
    with EventLogReader.open(db) as reader:
        logged = next(r for r in walk(reader.iter_events()) if r.round_id == 3)
        timeline = build_timeline(logged)
    kinds = [type(item.event) for item in logged.events]
    revealed = kinds.index(UthDealerRevealed)
    closed = next(item.event for item in logged.events if type(item.event) is RoundClosed)
    for terminal, seat in SEATS.items():
        views = round_views(logged, terminal)
        assert len(views) == len(logged.events)
        # Nothing of a hidden card before the reveal is logged (an event inside the
        # showdown's step shows the table before that step); all of them at the end.
        for view in views[:revealed]:
            assert all(isinstance(c, dict) for c in view["uth"]["dealer"]["cards"])
            for other in (s for s in view["uth"]["seats"] if not s["mine"]):
                assert all(isinstance(c, dict) for c in other["cards"])
        final = views[-1]
        assert all(isinstance(c, str) for c in final["uth"]["dealer"]["cards"])
        assert final["uth"]["hole"] and all(isinstance(c, str) for c in final["uth"]["hole"])
        balances = dict(zip(closed.terminals, closed.balances, strict=True))
        assert final["credits"] == balances[terminal]
        settled = [
            (item.event.wager, item.event.paid)
            for item in logged.events
            if type(item.event) is UthWagerSettled and item.event.seat == seat
        ]
        assert [(s["wager"], s["paid"]) for s in final["settlements"]] == settled
    written = write_pictures(
        logged, timeline, png=tmp_path / "final.png", frames=tmp_path / "frames", terminal="T2"
    )
    assert len(written) == len(logged.events) + 1
    assert all(path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for path in written)


def test_recall_show_leaves_out_absent_seats_and_names_an_empty_lucky_seat(
    tmp_path: Path,
) -> None:
    """653a.12(e)(3): the Lucky Bonus position is drawn among every seat; when it falls on a
    seat where nobody wagered, recall says "(no player)" rather than naming the terminal
    that merely holds the seat; and the credits table leaves out the terminals that had no
    credits and no wager in the round, naming them on one line."""
    seats = {f"T{n}": n for n in range(1, 7)}
    certs = tmp_path / "certs"
    init_keys(certs)
    db = tmp_path / "uth.db"
    # A table pays the Magic Card or the Lucky Bonus (653a.12(e)(3)); the example pays the
    # Magic Card, this one the Lucky Bonus.
    path = example_path("uth.toml")
    toml = path.read_text(encoding="utf-8")
    toml = toml.replace("magic_card = true", "magic_card = false")
    lucky_config = parse_config(toml.replace("lucky_bonus = false", "lucky_bonus = true"))
    log, tables = open_tables(
        [lucky_config],
        db,
        certs,
        lambda _: seats,
        clock=system_clock,
        seeds=lambda table: simulation_seeds(4, table.table_id),
    )
    session = tables[0][0]
    assert isinstance(session, UthSession)
    session.cash_in("T1", 200_000, "test")
    for _ in range(8):
        session.start_round()
        session.place_wagers("T1", EVERYTHING)
        session.deal()
        while session.round is not None:
            action, multiple = strategy.decide(session.round, 1)
            session.decide("T1", action, multiple)
    log.close()
    empty_draws = 0
    with closing(EventLogReader.open(db)) as reader:
        for round_id in range(1, 9):
            logged = fetch_round(reader, lucky_config.table_id, round_id)
            assert logged is not None
            text = format_timeline(build_timeline(logged))
            drawn = next(line for line in text if "settlement begins" in line)
            lucky = drawn.rsplit("Lucky Bonus position ", 1)[1]
            if lucky not in ("the dealer", "seat 1 (T1)"):
                empty_draws += 1
                assert lucky.endswith("(no player)"), drawn
                assert "(T" not in lucky, drawn
            table = text[text.index(next(t for t in text if t.lstrip().startswith("Credits"))) :]
            credit_rows = [line for line in table[: table.index("")] if line.startswith("  T")]
            assert [row.split()[0] for row in credit_rows] == ["T1"], text
            assert "  not shown: T2, T3, T4, T5, T6 (no credits and no wager this round)" in text
    assert empty_draws, "no round drew an empty seat: choose another seed"
