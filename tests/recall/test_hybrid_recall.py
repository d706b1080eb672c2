"""``etg verify`` and ``etg recall`` on the logs of hybrid tables (58 Pa. Code 633b.5).

The logs are real signed event logs written by :class:`HybridSession` (stadium play: four
terminals, two of them sharing player position 2 at the three-position table; the
no-hole-card table numbers its players in join order). Each round is replayed through the
engine of its table type; tampering is done as in ``test_verify.py``: on a copy with a raw
sqlite3 connection, or by a dishonest session patched before it logs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

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

from game_server.config import TableConfig, example_path, load_config
from game_server.eventlog import AnchorFile, EventLog, EventLogReader
from game_server.games.blackjack.rules.events import WagerSettled
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.hybrid.rules.events import Hybrid3WagerSettled
from game_server.games.hybrid.session import HybridSession
from game_server.games.hybrid.sim import session_decision
from game_server.keys import init_keys, key_id, load_public_key, load_sealing_key
from game_server.recall.query import list_rounds, recall_round
from game_server.recall.rounds import walk
from game_server.recall.timeline import build_timeline, format_timeline
from game_server.recall.verify import VerifyReport, verify_log
from game_server.rules.events import to_dict
from game_server.table.events import RoundClosed, RoundStarted
from game_server.table.session import SealedShoes, simulation_seeds
from tools.recall_cli import recall

THREE = load_config(example_path("hybrid-three-position.toml"))
NO_HOLE = load_config(example_path("hybrid-no-hole-card.toml"))
TABLES = [THREE, NO_HOLE]
IDS = ["three-position", "no-hole-card"]
TERMINALS = ("T1", "T2", "T3", "T4")
#: Terminal -> position at the three-position table: T1 and T2 share position 2.
POSITIONS = {"T1": 2, "T2": 2, "T3": 1, "T4": 3}
BETS = {"T1": 1_000, "T2": 500, "T3": 2_500}
ROUNDS = 12
#: The settlement kind of each table type's engine.
SETTLED = {"hybrid": "hybrid3_wager_settled", "hybrid-no-hole-card": "wager_settled"}


class _Clock:
    """A clock that moves one millisecond per reading."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)
        return self.now


def play_round(session: HybridSession, bets: dict[str, int], countdown: str | None) -> None:
    """One whole round: the terminals of ``bets`` join (in that order), the cards are dealt,
    basic strategy plays every hand, the countdown acting for ``countdown``."""
    three = session.config.table_type == "hybrid"
    session.start_round()
    for terminal, amount in bets.items():
        session.join(terminal, {"blackjack": amount}, POSITIONS[terminal] if three else None)
    session.deal()
    while session.round is not None:
        waiting = session.pending()
        if not waiting:
            session.finish()
            break
        terminal = waiting[0]
        if terminal == countdown:
            session.countdown(terminal)
        elif session.waits_for_insurance(terminal):
            session.decline_insurance(terminal)
        else:
            hand = session.to_act(terminal)
            assert hand is not None
            session.act(
                terminal,
                session_decision(BasicStrategy(session.config.rules), session, terminal, hand),
                hand,
            )


def write_log(
    config: TableConfig, directory: Path, *, patch: Callable[[], None] | None = None
) -> tuple[Path, Path]:
    """A real signed log of ``ROUNDS`` rounds at a hybrid table (every shoe revealed at the
    end); returns the log and its certs directory. ``patch`` runs before the session starts
    (a dishonest server)."""
    certs = directory / "certs"
    certs.mkdir()
    init_keys(certs)
    db = directory / "hybrid.db"
    if patch is not None:
        patch()
    kid = key_id(load_public_key(certs))
    anchors = AnchorFile(directory / "anchors.jsonl")
    with EventLog.create_or_open(db, certs, _Clock(), anchors=anchors) as log:
        seeds = simulation_seeds(11, config.table_id)
        shoes = SealedShoes(config, seeds, load_sealing_key(certs), kid)
        session = HybridSession(config, log, shoes, TERMINALS)
        session.open()
        for terminal in TERMINALS:
            session.cash_in(terminal, 50_000, "ticket")
        for number in range(ROUNDS):
            # The join order changes from round to round (players renumbered each round).
            order = list(BETS.items())
            bets = dict(order[number % 3 :] + order[: number % 3])
            if number % 4 == 3:
                bets["T4"] = 500
            play_round(session, bets, "T3" if number % 5 == 2 else None)
        session.cash_out("T2", None, "voucher")
        session.retire_shoe()
    return db, certs


@pytest.fixture(scope="module", params=TABLES, ids=IDS)
def clean(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One clean log per hybrid table type, shared by the tests that tamper with copies."""
    config: TableConfig = request.param
    db, certs = write_log(config, tmp_path_factory.mktemp(config.table_type.value))
    return config, db, certs


def run(db: Path, certs: Path, anchors: Path | None = None) -> VerifyReport:
    with EventLogReader.open(db) as reader:
        return verify_log(
            reader,
            load_public_key(certs),
            sealing_key=load_sealing_key(certs),
            anchors=None if anchors is None else AnchorFile(anchors),
        )


def kind_seqs(db: Path, kind: str, round_id: int | None = None) -> list[int]:
    with closing(readonly(db)) as conn:
        return seqs(conn, kind, round_id)


def tamper(db: Path, directory: Path, edit: Callable[[sqlite3.Connection], None]) -> Path:
    path = copy_log(db, directory / "copy.db")
    conn = raw(path)
    try:
        drop_triggers(conn)
        edit(conn)
        restore_triggers(conn)
    finally:
        conn.close()
    return path


# ----------------------------------------------------------------------------- verify


def test_a_clean_hybrid_log_verifies(clean: Any) -> None:
    """633b.5: a log written by the hybrid table passes every check of ``etg verify``: every
    round replays through its table type's engine, every card is the committed shoe's, every
    stated balance is the fold; nothing is left unchecked."""
    _, db, certs = clean
    report = run(db, certs, db.parent / "anchors.jsonl")
    assert report.failures == (), report.failures
    assert report.warnings == ()
    assert report.anchors == report.counts.checkpoints > 0
    assert report.ok
    counts = report.counts
    assert counts.rounds == counts.rounds_replayed == ROUNDS
    assert counts.shoes_checked == counts.shoes >= 1
    assert counts.cards_checked > 4 * ROUNDS


def test_a_rehashed_hybrid_settlement_is_named_by_the_replay_and_the_ledger(
    clean: Any, tmp_path: Path
) -> None:
    """A hybrid settlement paid $50 more, the chain recomputed after it: the chain holds,
    the replay through the hybrid engine names the settlement's seq, the round's closing
    balances no longer fold, and the signed checkpoint after it fails."""
    config, db, certs = clean
    target = kind_seqs(db, SETTLED[config.table_type.value], round_id=4)[0]
    closed = kind_seqs(db, "round_closed", round_id=4)[0]

    def edit(conn: sqlite3.Connection) -> None:
        event = body(conn, target)
        set_body(conn, target, {**event, "paid": event["paid"] + 5_000})
        rehash_from(conn, target)

    report = run(tamper(db, tmp_path, edit), certs)
    failing = {f.check for f in report.failures}
    assert "chain" not in failing
    assert report.first_failure is not None
    assert (report.first_failure.seq, report.first_failure.check) == (target, "replay")
    assert "differs on replay" in report.first_failure.reason
    assert next(f.seq for f in report.failures if f.check == "ledger") == closed
    assert {"replay", "ledger", "checkpoints", "conservation"} <= failing


def test_an_edited_hybrid_settlement_is_named_by_the_chain(clean: Any, tmp_path: Path) -> None:
    """The same settlement changed in place (chain not recomputed) is named by the hash chain
    at its seq, and by the replay."""
    config, db, certs = clean
    target = kind_seqs(db, SETTLED[config.table_type.value], round_id=2)[0]

    def edit(conn: sqlite3.Connection) -> None:
        event = body(conn, target)
        set_body(conn, target, {**event, "paid": event["paid"] + 100})

    report = run(tamper(db, tmp_path, edit), certs)
    assert report.first_failure is not None
    assert (report.first_failure.seq, report.first_failure.check) == (target, "chain")
    assert next(f.seq for f in report.failures if f.check == "replay") == target


def test_a_player_event_under_another_terminal_is_named(clean: Any, tmp_path: Path) -> None:
    """633b.5(l): a settlement filed, in its envelope, under a terminal that did not play the
    hand (chain recomputed) is named by the round check at its seq."""
    config, db, certs = clean
    target = kind_seqs(db, SETTLED[config.table_type.value], round_id=3)[0]

    def edit(conn: sqlite3.Connection) -> None:
        (terminal,) = conn.execute(
            "SELECT terminal FROM events WHERE seq = ?", (target,)
        ).fetchone()
        other = "T4" if terminal != "T4" else "T1"
        conn.execute("UPDATE events SET terminal = ? WHERE seq = ?", (other, target))
        rehash_from(conn, target)

    report = run(tamper(db, tmp_path, edit), certs)
    rounds = [f for f in report.failures if f.check == "rounds"]
    assert rounds and rounds[0].seq == target
    assert "envelope names terminal" in rounds[0].reason


def test_a_dishonest_hybrid_server_is_named_by_the_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that pays one three-position settlement $1 more than 633b.5 gives (and folds
    it into its wallets, so every balance agrees, every signature holds) is named by the
    replay alone, at that settlement."""
    log_engine = HybridSession._log_engine
    paid: list[Hybrid3WagerSettled] = []

    def overpay(self: HybridSession, events: Sequence[Any]) -> list[Any]:
        if self.round_id == 3 and not paid:
            events = list(events)
            for index, ev in enumerate(events):
                if type(ev) is Hybrid3WagerSettled:
                    events[index] = ev._replace(paid=ev.paid + 100)
                    paid.append(events[index])
                    break
        return log_engine(self, events)

    db, certs = write_log(
        THREE,
        tmp_path,
        patch=lambda: monkeypatch.setattr(HybridSession, "_log_engine", overpay),
    )
    with closing(readonly(db)) as conn:
        target = next(
            seq
            for seq in seqs(conn, "hybrid3_wager_settled")
            if body(conn, seq) == to_dict(paid[0])
        )
    report = run(db, certs)
    assert {f.check for f in report.failures} == {"replay"}
    assert report.first_failure is not None
    assert (report.first_failure.seq, report.first_failure.check) == (target, "replay")


def test_an_engine_event_of_another_table_type_is_named(clean: Any, tmp_path: Path) -> None:
    """An engine event the table type's engine never produces (a fully automated
    ``wager_settled`` at the three-position table, a ``hybrid3_wager_settled`` at the
    no-hole-card table) is a round failure at its seq."""
    config, db, certs = clean
    target = kind_seqs(db, SETTLED[config.table_type.value], round_id=5)[0]

    def edit(conn: sqlite3.Connection) -> None:
        event = body(conn, target)
        if config.table_type.value == "hybrid":
            forged = WagerSettled(1, event["hand"], event["wager"], event["stake"], 0, "lost", "x")
        else:
            forged = Hybrid3WagerSettled(
                "T1", 1, event["hand"], event["wager"], event["stake"], 0, "lost", "x"
            )
        set_body(conn, target, to_dict(forged))
        rehash_from(conn, target)

    report = run(tamper(db, tmp_path, edit), certs)
    rounds = [f for f in report.failures if f.check == "rounds"]
    assert rounds and rounds[0].seq == target
    assert "not an event of the" in rounds[0].reason


# ----------------------------------------------------------------------------- recall


def test_the_timeline_gives_every_event_and_each_terminals_credits(clean: Any) -> None:
    """GLI-11 game recall at a hybrid table: every event of each round in log order, each
    with a sentence, and each terminal's credits at the start and end of the round are the
    balances round_started and round_closed log, equal to the fold of the round."""
    _, db, _ = clean
    with EventLogReader.open(db) as reader:
        rounds = [r for r in walk(reader.iter_events()) if r.started is not None]
    assert len(rounds) == ROUNDS
    for logged in rounds:
        timeline = build_timeline(logged)
        assert timeline.problems == ()
        assert [e.seq for e in timeline.entries] == [item.seq for item in logged.events]
        for entry in timeline.entries:
            assert entry.text and entry.text != entry.kind.replace("_", " "), entry
        started = logged.started
        closed = logged.closed
        assert isinstance(started, RoundStarted) and isinstance(closed, RoundClosed)
        assert tuple(timeline.credits) == started.terminals
        for terminal, start, end in zip(
            started.terminals, started.balances, closed.balances, strict=True
        ):
            line = timeline.credits[terminal]
            assert (line.start, line.end, line.folded_end) == (start, end, end)
            assert line.seat is None
            assert line.end == line.start - line.wagered + line.paid
        assert timeline.complete and timeline.closed and timeline.games_played == 1


def test_the_sentences_name_the_hybrid_steps(clean: Any) -> None:
    """The steps particular to each hybrid table read as sentences: community cards and the
    cards a player used (633b.5(q)); cards designated to a player's hand or his dealer hand
    and a player's dealer hand completed (633b.5(y), (aa), (bb))."""
    config, db, _ = clean
    with EventLogReader.open(db) as reader:
        texts = [
            entry.text
            for logged in walk(reader.iter_events())
            for entry in build_timeline(logged).entries
        ]
    joined = "\n".join(texts)
    if config.table_type.value == "hybrid":
        assert "community card 1 is" in joined
        assert "uses community card" in joined
        assert "(position 2) wagers" in joined
    else:
        assert "every player is dealt" in joined
        assert "'s dealer hand" in joined
        assert "dealer hand is complete" in joined
        assert "player 1 (T" in joined


def test_recall_show_prints_a_hybrid_round(clean: Any) -> None:
    """``etg recall show DB ROUND`` prints a hybrid round: its steps, its credits table, no
    problem; ``etg recall list`` lists the hybrid rounds with what was wagered."""
    config, db, _ = clean
    with EventLogReader.open(db) as reader:
        timeline = recall_round(reader, 4)
        summaries = list_rounds(reader, last=ROUNDS)
    assert len(summaries) == ROUNDS
    assert all(s.wagered > 0 and s.complete for s in summaries)
    result = CliRunner().invoke(recall, ["show", str(db), "4"])
    assert result.exit_code == 0, result.output
    assert f"Table {config.table_id}  round 4  complete" in result.output
    for line in format_timeline(timeline):
        assert line.rstrip() in result.output
    assert "PROBLEM" not in result.output
    listed = CliRunner().invoke(recall, ["list", str(db)])
    assert listed.exit_code == 0, listed.output
    assert config.table_id in listed.output


def test_recall_list_finds_hybrid_rounds_by_wager_and_by_payout(clean: Any) -> None:
    """``etg recall list --wager`` and ``--min-payout`` at a hybrid table: exactly the rounds
    whose logged wager events qualify (the three-position table logs its own
    ``hybrid3_wager_placed`` / ``hybrid3_wager_settled``), with and without a terminal."""
    config, db, _ = clean
    placed_kind = "hybrid3_wager_placed" if config is THREE else "wager_placed"
    settled_kind = SETTLED[str(config.table_type)]
    with EventLogReader.open(db) as reader:
        events = list(reader.iter_events())
        every = {s.round_id for s in list_rounds(reader, last=ROUNDS)}

        def rounds_where(
            kind: str, test: Callable[[Any], bool], who: str | None = None
        ) -> set[int]:
            return {
                e.round_id
                for e in events
                if e.kind == kind
                and e.round_id is not None
                and test(e.body)
                and (who is None or e.terminal == who)
            }

        doubled = rounds_where(placed_kind, lambda b: b["wager"] == "double")
        big = rounds_where(settled_kind, lambda b: b["paid"] >= 2_000)
        big_t3 = rounds_where(settled_kind, lambda b: b["paid"] >= 2_000, "T3")
        assert doubled and big and big_t3 and big_t3 < every, "change the seed: no case"
        assert {s.round_id for s in list_rounds(reader, last=ROUNDS, wager="double")} == doubled
        assert {s.round_id for s in list_rounds(reader, last=ROUNDS, min_payout=2_000)} == big
        found = list_rounds(reader, last=ROUNDS, min_payout=2_000, terminal="T3")
        assert {s.round_id for s in found} == big_t3
        ids = [s.round_id for s in list_rounds(reader, last=ROUNDS, wager="blackjack")]
        assert ids == sorted(every, reverse=True), "newest first"


# ----------------------------------------------------------------------- recall pictures


def test_recall_pictures_of_a_hybrid_round_show_what_its_player_saw(
    clean: Any, tmp_path: Path
) -> None:
    """``etg recall show --png/--frames`` at a hybrid table: one view per logged event of
    the player's own table (633b.5: his hands, the community cards, his dealer hand), the
    hole card face down until its reveal is logged, credits folded event by event to the
    balance ``round_closed`` logs, his settlements as logged; every frame drawn."""
    from game_server.recall.pictures import round_views
    from tools.recall_pictures import write_pictures

    config, db, _ = clean
    with EventLogReader.open(db) as reader:
        logged = next(r for r in walk(reader.iter_events()) if r.round_id == 3)
        timeline = recall_round(reader, 3)
    closed = next(item.event for item in logged.events if type(item.event) is RoundClosed)
    for terminal in ("T1", "T3"):
        views = round_views(logged, terminal)
        assert len(views) == len(logged.events)
        final = views[-1]
        assert (
            final["credits"] == dict(zip(closed.terminals, closed.balances, strict=True))[terminal]
        )
        settled = [
            item.event
            for item in logged.events
            if item.stored.terminal == terminal
            and type(item.event) in (WagerSettled, Hybrid3WagerSettled)
        ]
        assert [(s["wager"], s["paid"]) for s in final["settlements"]] == [
            (ev.wager, ev.paid) for ev in settled
        ]
        assert final["hybrid"]["hands"], "the player's own hands"
        if config is THREE:
            dealer = [v["hybrid"]["dealer"] for v in views]
            hidden = [k for k, d in enumerate(dealer) if not d["hole_revealed"]]
            shown = [k for k, d in enumerate(dealer) if d["hole_revealed"]]
            assert hidden and shown and max(hidden) < min(shown)
            for k in hidden:
                # Nothing of the hole card's value before its reveal.
                assert all(not isinstance(c, str) for c in dealer[k]["cards"][1:])
                assert dealer[k]["total"] is None
    written = write_pictures(
        logged, timeline, png=tmp_path / "final.png", frames=tmp_path / "frames", terminal="T1"
    )
    assert len(written) == len(logged.events) + 1
    assert all(path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for path in written)


def test_terminal_recall_gives_each_player_his_own_hybrid_games(clean: Any) -> None:
    """GetRecall at a hybrid table: a terminal's last 10 games, each with its own wagers,
    hands, decisions, results and credits; the dealer hand it faced (at the no-hole-card
    table its own, 633b.5(aa)); the community cards; nothing of the other players. The
    terminal's recall screen reads the document."""
    from game_server.recall.terminal import terminal_recall
    from terminal_client.model.documents import parse_recall

    config, db, _ = clean
    with EventLogReader.open(db) as reader:
        recalled = {t: terminal_recall(reader, t) for t in ("T1", "T2", "T3")}
        events = list(reader.iter_events())
    for terminal, document in recalled.items():
        games = document["games"]
        assert len(games) == 10
        assert [g["round"] for g in games] == list(range(ROUNDS, ROUNDS - 10, -1))
        parse_recall(document)
        for game in games:
            placed = sum(
                e.body["amount"]
                for e in events
                if e.round_id == game["round"]
                and e.terminal == terminal
                and e.kind in ("hybrid3_wager_placed", "wager_placed")
            )
            paid = sum(
                e.body["paid"]
                for e in events
                if e.round_id == game["round"]
                and e.terminal == terminal
                and e.kind == SETTLED[str(config.table_type)]
            )
            assert (game["wagered"], game["paid"]) == (placed, paid)
            assert game["hands"] and all(h["cards"] for h in game["hands"])
            assert game["credits_end"] - game["credits_start"] == paid - placed
            assert all(terminal in d for d in game["decisions"]) or config is NO_HOLE
    # The terminal reads and draws it: the community cards, the position or no seat.
    import pygame

    from terminal_client.model import Document, TerminalModel
    from terminal_client.render import Layout
    from terminal_client.screens.recall import RecallScreen

    class _Client:
        def request_recall(self) -> bool:
            return True

    model = TerminalModel()
    model.apply_document_requested(Document.RECALL)
    model.apply_document(Document.RECALL, recalled["T1"])
    parsed = model.recall
    assert parsed is not None and all(g.hybrid for g in parsed.games)
    for game, sent in zip(parsed.games, recalled["T1"]["games"], strict=True):
        assert game.board == tuple(sent["community"])
    screen = RecallScreen(model, _Client())  # type: ignore[arg-type]
    heading = screen.summary(parsed.games[0])[0][0]
    assert "seat" not in heading
    assert ("position 2" in heading) is (config is THREE)
    surface = pygame.Surface((1280, 720))
    screen.draw(surface, Layout.for_window((1280, 720)))
    if config is THREE:
        # T1 and T2 share position 2 (633b.5(l)): the same first cards, their own hands.
        for one, two in zip(recalled["T1"]["games"], recalled["T2"]["games"], strict=True):
            assert one["position"] == two["position"] == 2
            assert one["hands"][0]["cards"][:2] == two["hands"][0]["cards"][:2]
