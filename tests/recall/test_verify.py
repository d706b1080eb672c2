"""``etg verify``: a clean log verifies, and every kind of tampering is found at the right seq.

The logs are written by the live table's own session (``run_logged_sim``). Tampering with
the file is done on a copy with a raw sqlite3 connection, as someone holding the file would
(triggers dropped first and put back after, so that only the intended checks fail); a
dishonest server is simulated by patching the session before it logs, so that the chain and
every signature are valid and only the semantic checks can catch it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from verify_helpers import (
    ROUNDS,
    body,
    checkpoint_rows,
    copy_log,
    drop_triggers,
    make_keys,
    make_log,
    raw,
    readonly,
    rehash_from,
    resign_checkpoints,
    restore_triggers,
    seqs,
    set_body,
)

from game_server.eventlog import AnchorFile, EventLog, EventLogReader, NewEvent, system_clock
from game_server.games.blackjack.rules.events import WagerSettled
from game_server.games.blackjack.session import TableSession
from game_server.keys import load_public_key, load_sealing_key, load_signing_key
from game_server.recall.verify import CHECKS, VerifyReport, verify_log
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.events import to_dict
from game_server.table.events import CreditsIn, RoundClosed, ShoeRevealed
from game_server.table.session import SealedShoes
from tools.verify_cli import verify

Edit = Callable[[sqlite3.Connection], None]
Tamper = Callable[[Edit], Path]


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One clean log (24 rounds, 3 seats, two shoes) and its keys, shared by the tests that
    tamper with copies of it."""
    directory = tmp_path_factory.mktemp("clean")
    certs = make_keys(directory / "certs")
    return make_log(directory, certs), certs


@pytest.fixture
def tamper(clean: tuple[Path, Path], tmp_path: Path) -> Tamper:
    """Applies an edit to a copy of the clean log with the triggers dropped, puts the
    triggers back, and returns the copy's path."""

    def apply(edit: Edit) -> Path:
        path = copy_log(clean[0], tmp_path / "copy.db")
        conn = raw(path)
        try:
            drop_triggers(conn)
            edit(conn)
            restore_triggers(conn)
        finally:
            conn.close()
        return path

    return apply


def money_moves(db: Path) -> int:
    """Cash ins and outs: each has a signed checkpoint of its own (money-moved)."""
    with EventLogReader.open(db) as reader:
        return sum(len(reader.events_of_kind(k)) for k in ("credits_in", "credits_out"))


def run(
    db: Path,
    certs: Path,
    *,
    sealing: bool | Path = False,
    key: Path | None = None,
    anchors: Path | None = None,
) -> VerifyReport:
    """verify_log on ``db`` with the keys of ``certs`` (or the public key ``key``, and the
    sealing key of the directory ``sealing``), against the anchor stream ``anchors``."""
    sealing_key = None
    if sealing:
        sealing_key = load_sealing_key(certs if sealing is True else sealing)
    with EventLogReader.open(db) as reader:
        return verify_log(
            reader,
            load_public_key(key or certs),
            sealing_key=sealing_key,
            anchors=None if anchors is None else AnchorFile(anchors),
        )


def anchors_of(db: Path) -> Path:
    """The anchor stream the clean log was written with."""
    return db.parent / "anchors.jsonl"


def failing(report: VerifyReport) -> set[str]:
    return {f.check for f in report.failures}


def first_seq(report: VerifyReport, check: str) -> int | None:
    return next(f.seq for f in report.failures if f.check == check)


def cli(*args: str) -> Result:
    return CliRunner().invoke(verify, list(args))


def kind_seqs(db: Path, kind: str, round_id: int | None = None) -> list[int]:
    with closing(readonly(db)) as conn:
        return seqs(conn, kind, round_id)


def events_of(db: Path, kind: str) -> list[tuple[int, dict[str, Any]]]:
    with closing(readonly(db)) as conn:
        return [(seq, body(conn, seq)) for seq in seqs(conn, kind)]


def checkpoint_seqs(db: Path) -> list[int]:
    with closing(readonly(db)) as conn:
        return [seq for _, seq in checkpoint_rows(conn)]


def first_failure(report: VerifyReport) -> tuple[int | None, str]:
    assert report.first_failure is not None, "expected a failure"
    return report.first_failure.seq, report.first_failure.check


# ------------------------------------------------------------------------------ clean


def test_clean_log_verifies_through_the_api(clean: tuple[Path, Path]) -> None:
    """A log written by the table session passes every check: every event chained and
    signed, every shoe regenerated, every card checked, every round replayed, every
    checkpoint anchored; no warning. Without the anchor stream the one warning says a
    cut-back tail cannot be detected."""
    db, certs = clean
    report = run(db, certs, anchors=anchors_of(db))
    assert report.ok, report.failures
    assert report.first_failure is None and report.failure_count == 0
    assert report.warnings == ()
    counts = report.counts
    assert counts.rounds == counts.rounds_replayed == ROUNDS
    assert counts.shoes == counts.shoes_checked >= 2
    assert counts.cards_checked > 4 * ROUNDS
    assert counts.checkpoints == counts.valid_checkpoints == ROUNDS + 1 + money_moves(db)
    assert counts.events == counts.last_seq == counts.last_proven_seq
    # What needs the floor store is not checked without it, and says so (never PASS).
    not_run = {"linked", "store"}
    assert [c.status for c in report.checks] == [
        "SKIP" if name in not_run else "PASS" for name in CHECKS
    ]
    sealed = run(db, certs, sealing=True, anchors=anchors_of(db))
    assert sealed.ok and sealed.warnings == () and sealed.counts == counts
    bare = run(db, certs)
    assert bare.ok and [(w.check, w.seq) for w in bare.warnings] == [("anchors", None)]
    assert "cut back" in bare.warnings[0].reason
    calls: list[tuple[int, int]] = []
    with EventLogReader.open(db) as reader:
        verify_log(reader, load_public_key(certs), progress=lambda *a: calls.append(a))
    assert calls and calls[-1] == (counts.last_seq, counts.last_seq)
    assert [seq for seq, _ in calls] == sorted(seq for seq, _ in calls)


def test_clean_log_verifies_through_the_cli_with_exit_0(clean: tuple[Path, Path]) -> None:
    """etg verify exits 0 on a clean log and prints every check as PASS; --json has the
    documented shape; --key takes the .pub file or the certs directory."""
    db, certs = clean
    human = cli(str(db), "--key", str(certs), "--anchors", str(anchors_of(db)))
    assert human.exit_code == 0, human.output
    assert "VERIFIED" in human.output
    assert human.output.count("PASS") == len(CHECKS) - 2
    assert human.output.count("SKIP") == 2
    assert "linked meters agree with the floor store" in human.output
    assert human.output.count("not checked (no --store)") == 2
    anchored = ROUNDS + 1 + money_moves(db)
    assert f"{anchored} anchored checkpoint(s) of this log checked" in human.output
    bare = cli(str(db), "--key", str(certs))
    assert bare.exit_code == 0 and "WARN" in bare.output
    assert "none given: a cut-back tail cannot be detected" in bare.output
    result = cli(
        str(db), "--key", str(certs / "log-signing.pub"), "--json", "--anchors", str(anchors_of(db))
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert {"ok", "first_failure", "failures", "warnings", "counts"} <= set(data)
    assert data["ok"] is True and data["first_failure"] is None
    assert data["failures"] == [] and data["warnings"] == []
    assert data["counts"]["rounds_replayed"] == ROUNDS


def test_verification_writes_nothing_to_the_log(clean: tuple[Path, Path], tmp_path: Path) -> None:
    """Verifying leaves the log file byte for byte as it was (the reader is read-only); with
    --evidence not even SQLite's companion files appear beside a copy."""
    db, certs = clean
    before = db.read_bytes()
    assert cli(str(db), "--key", str(certs), "--sealing-key", str(certs)).exit_code == 0
    assert db.read_bytes() == before
    folder = tmp_path / "evidence"
    folder.mkdir()
    evidence = copy_log(db, folder / "table.db")
    assert cli(str(evidence), "--key", str(certs), "--evidence").exit_code == 0
    assert sorted(p.name for p in folder.iterdir()) == ["table.db"]
    assert evidence.read_bytes() == before


# ----------------------------------------------------------------- tampered files


def test_edited_row_is_named_by_the_chain_and_by_the_replay(
    clean: tuple[Path, Path], tamper: Tamper
) -> None:
    """A settlement whose paid amount is changed in place is named by the hash chain at its
    seq, and the replay of its round names the same seq; the CLI exits 1 naming it."""
    target = kind_seqs(clean[0], "wager_settled", round_id=4)[0]

    def edit(conn: sqlite3.Connection) -> None:
        event = body(conn, target)
        set_body(conn, target, {**event, "paid": event["paid"] + 5_000})

    db = tamper(edit)
    report = run(db, clean[1])
    assert first_failure(report) == (target, "chain")
    assert first_seq(report, "replay") == target
    human = cli(str(db), "--key", str(clean[1]))
    assert human.exit_code == 1
    assert f"First failure at seq {target} [chain]" in human.output
    result = cli(str(db), "--key", str(clean[1]), "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert data["first_failure"]["seq"] == target
    assert data["first_failure"]["check"] == "chain"


def test_rehashed_forgery_is_named_by_the_replay_signatures_and_ledger(
    clean: tuple[Path, Path], tamper: Tamper
) -> None:
    """A settlement changed and the whole chain after it recomputed (anyone can; only the
    signatures need the key) passes the hash chain, but the replay names the settlement's
    seq, the first checkpoint after it no longer matches, and the round's closing balance no
    longer folds."""
    target = kind_seqs(clean[0], "wager_settled", round_id=4)[0]
    closed = kind_seqs(clean[0], "round_closed", round_id=4)[0]

    def edit(conn: sqlite3.Connection) -> None:
        event = body(conn, target)
        set_body(conn, target, {**event, "paid": event["paid"] + 5_000})
        rehash_from(conn, target)

    report = run(tamper(edit), clean[1])
    assert "chain" not in failing(report)
    assert first_failure(report) == (target, "replay")
    after = min(seq for seq in checkpoint_seqs(clean[0]) if seq >= target)
    assert first_seq(report, "checkpoints") == after
    assert first_seq(report, "ledger") == closed
    assert "conservation" in failing(report)


def test_deleted_row_is_named_by_the_chain(clean: tuple[Path, Path], tamper: Tamper) -> None:
    """A deleted card is named by the chain at the missing seq, before anything the
    semantic checks find after it."""
    target = kind_seqs(clean[0], "card_dealt", round_id=6)[2]
    db = tamper(lambda conn: conn.execute("DELETE FROM events WHERE seq = ?", (target,)))
    report = run(db, clean[1])
    assert first_failure(report) == (target, "chain")
    assert "missing" in report.failures[0].reason
    assert all(f.seq is not None and f.seq >= target for f in report.failures)


def test_swapped_rows_are_named_at_the_lower_seq(clean: tuple[Path, Path], tamper: Tamper) -> None:
    """Two settlements swapped (contents exchanged, seqs kept) are named by the chain at
    the lower seq, and the replay names the same seq."""
    low, high = kind_seqs(clean[0], "wager_settled", round_id=5)[:2]

    def edit(conn: sqlite3.Connection) -> None:
        columns = "round_id, terminal, kind, body"
        a = conn.execute(f"SELECT {columns} FROM events WHERE seq = ?", (low,)).fetchone()
        b = conn.execute(f"SELECT {columns} FROM events WHERE seq = ?", (high,)).fetchone()
        update = "UPDATE events SET round_id = ?, terminal = ?, kind = ?, body = ? WHERE seq = ?"
        conn.execute(update, (*b, low))
        conn.execute(update, (*a, high))

    report = run(tamper(edit), clean[1])
    assert first_failure(report) == (low, "chain")
    assert first_seq(report, "replay") == low


def test_truncated_file_is_a_clear_error_with_exit_2(
    clean: tuple[Path, Path], tmp_path: Path
) -> None:
    """A log cut short (bytes removed from the end) cannot be read: etg verify says the file
    is damaged, without a traceback, and exits 2."""
    db = copy_log(clean[0], tmp_path / "cut.db")
    data = db.read_bytes()
    db.write_bytes(data[: len(data) * 2 // 3])
    result = cli(str(db), "--key", str(clean[1]))
    assert result.exit_code == 2
    assert "damaged" in result.stderr
    assert "Traceback" not in result.output


def test_checkpoints_signed_with_another_key_all_fail(
    clean: tuple[Path, Path], tamper: Tamper
) -> None:
    """Checkpoints re-signed with a key other than the table's are each a failure at the
    checkpoint's seq, naming the foreign key; the chain itself still holds."""
    other = Ed25519PrivateKey.generate()
    db = tamper(lambda conn: resign_checkpoints(conn, other))
    report = run(db, clean[1])
    rows = checkpoint_seqs(db)
    assert first_failure(report) == (rows[0], "checkpoints")
    assert failing(report) == {"checkpoints"}
    assert report.failure_count == len(rows)
    assert report.counts.valid_checkpoints == 0
    assert "not by the expected key" in report.failures[0].reason


def test_missing_trigger_is_a_failure_naming_it(clean: tuple[Path, Path], tmp_path: Path) -> None:
    """A dropped trigger (the log no longer refuses UPDATE) fails the triggers check, which
    names it, though every row is intact; the CLI exits 1."""
    db = copy_log(clean[0], tmp_path / "trigger.db")
    with closing(raw(db)) as conn:
        conn.execute("DROP TRIGGER events_no_update")
    report = run(db, clean[1])
    assert first_failure(report) == (None, "triggers")
    assert failing(report) == {"triggers"}
    assert "events_no_update" in report.failures[0].reason
    result = cli(str(db), "--key", str(clean[1]))
    assert result.exit_code == 1
    assert "events_no_update" in result.output


def test_a_file_that_is_not_ours_is_refused_with_exit_2(
    clean: tuple[Path, Path], tmp_path: Path
) -> None:
    """Another application's SQLite database, or a file that is not SQLite at all, is not
    verified: etg verify says so without a traceback and exits 2, writing nothing."""
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x INTEGER)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    result = cli(str(other), "--key", str(clean[1]))
    assert result.exit_code == 2
    assert "not an ETG event log" in result.stderr
    assert other.read_bytes() == before
    noise = tmp_path / "noise.db"
    noise.write_bytes(bytes(range(256)) * 40)
    as_json = cli(str(noise), "--key", str(clean[1]), "--json")
    assert as_json.exit_code == 2
    assert json.loads(as_json.stdout)["ok"] is False
    missing = cli(str(tmp_path / "none.db"), "--key", str(clean[1]))
    assert missing.exit_code == 2 and "Traceback" not in missing.output


def test_missing_or_malformed_key_is_exit_2(clean: tuple[Path, Path], tmp_path: Path) -> None:
    """A --key that does not exist, or is not an Ed25519 public key, is unusable input:
    a message naming the file and exit 2."""
    absent = cli(str(clean[0]), "--key", str(tmp_path / "nowhere"))
    assert absent.exit_code == 2
    assert "log-signing public key" in absent.stderr
    wrong_kind = cli(str(clean[0]), "--key", str(clean[1] / "shoe-sealing.key"))
    assert wrong_kind.exit_code == 2
    assert "shoe-sealing.key" in wrong_kind.stderr


def test_wrong_public_key_gives_signature_failures(
    clean: tuple[Path, Path], tmp_path: Path
) -> None:
    """Verified with another table's public key, every checkpoint fails (signed by a key
    other than the one given) while the chain and the rounds still hold."""
    other = make_keys(tmp_path / "other-certs")
    report = run(clean[0], clean[1], key=other)
    assert failing(report) == {"checkpoints"}
    assert report.failure_count == report.counts.checkpoints
    assert first_failure(report) == (checkpoint_seqs(clean[0])[0], "checkpoints")
    assert cli(str(clean[0]), "--key", str(other)).exit_code == 1


def test_sealing_key_of_another_table_is_a_warning_per_shoe(
    clean: tuple[Path, Path], tmp_path: Path
) -> None:
    """A sealing key that opens none of the sealed seeds proves nothing either way: each
    shoe gets a warning naming its commitment, and the log (every shoe revealed and
    matching its commitment) still verifies."""
    other = make_keys(tmp_path / "other-certs")
    report = run(clean[0], clean[1], sealing=other, anchors=anchors_of(clean[0]))
    assert report.ok, report.failures
    committed = kind_seqs(clean[0], "shoe_committed")
    assert [(w.seq, w.check) for w in report.warnings] == [(seq, "shoes") for seq in committed]
    assert "does not open with the sealing key given" in report.warnings[0].reason


# ---------------------------------------------------- a dishonest server (valid signatures)


def build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, patch: Callable[[], None], **kwargs: Any
) -> tuple[Path, Path]:
    """A log written by a table session with ``patch`` applied while it plays."""
    certs = make_keys(tmp_path / "certs")
    patch()
    try:
        db = make_log(tmp_path, certs, **kwargs)
    finally:
        monkeypatch.undo()
    return db, certs


def test_forged_shoe_reveal_is_caught_only_by_the_shoe_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that reveals another seed than the one it committed to writes a log whose
    chain and signatures hold; the shoe check names the reveal's seq ("forged or wrong shoe
    reveal") and says the shoe's cards could not be checked without the sealing key; with
    it, they are checked against the sealed seed."""
    reveal = SealedShoes.reveal

    def forged(number: int, shoe: Shoe, salt: bytes) -> ShoeRevealed:
        if number != 1:
            return reveal(number, shoe, salt)
        other = ShoeSeed.from_test_seed(999, "BJ-01", 1).to_dict()
        return ShoeRevealed(
            1, other["entropy_input"], other["nonce"], other["personalization"], salt.hex()
        )

    db, certs = build(
        tmp_path,
        monkeypatch,
        lambda: monkeypatch.setattr(SealedShoes, "reveal", staticmethod(forged)),
    )
    revealed = kind_seqs(db, "shoe_revealed")[0]
    report = run(db, certs)
    assert failing(report) == {"shoes"}
    assert first_failure(report) == (revealed, "shoes")
    assert "forged or wrong shoe reveal" in report.failures[0].reason
    assert any("not checked" in w.reason for w in report.warnings)
    sealed = run(db, certs, sealing=True)
    assert failing(sealed) == {"shoes"} and first_failure(sealed) == (revealed, "shoes")
    assert sealed.counts.cards_checked > report.counts.cards_checked


def _swap(shoe: Shoe, a: int, b: int) -> tuple[int, int]:
    """Deal positions ``a`` and ``b`` of ``shoe`` the other way round (the committed order
    is unchanged); returns the two positions that now differ."""
    order = list(shoe.order)
    while order[a] == order[b]:
        b += 1
    order[a], order[b] = order[b], order[a]
    shoe._order = tuple(order)  # a dishonest server deals another order than it committed
    return a, b


def test_dealt_card_not_from_the_committed_shoe_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that commits one shoe but deals two of its cards the other way round writes
    a log whose chain, signatures and replay hold; the card check names the seq of the first
    card that is not the committed shoe's card at its position."""
    new_shoe = SealedShoes.new_shoe
    swapped: list[int] = []

    def dishonest(self: SealedShoes, number: int) -> Any:
        shoe, committed, salt = new_shoe(self, number)
        if number == 1:
            swapped.extend(_swap(shoe, 5, 6))
        return shoe, committed, salt

    db, certs = build(
        tmp_path, monkeypatch, lambda: monkeypatch.setattr(SealedShoes, "new_shoe", dishonest)
    )
    cards = [
        (seq, event) for seq, event in events_of(db, "card_dealt") if event["position"] in swapped
    ][:2]
    report = run(db, certs)
    assert failing(report) == {"cards"}
    assert first_failure(report) == (cards[0][0], "cards")
    assert [f.seq for f in report.failures] == [seq for seq, _ in cards]
    assert f"position {swapped[0]}" in report.failures[0].reason


def test_settlement_that_does_not_replay_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that pays one settlement $1 more than the rules give (and folds it into its
    wallets, so every balance agrees) writes a log whose chain and signatures hold; the
    replay names that settlement's seq."""
    log_engine = TableSession._log_engine
    paid: list[WagerSettled] = []

    def overpay(self: TableSession, events: Sequence[Any], before: Sequence[Any] = ()) -> list[Any]:
        if self.round_id == 2 and not paid:
            events = list(events)
            for index, ev in enumerate(events):
                if type(ev) is WagerSettled:
                    events[index] = ev._replace(paid=ev.paid + 100)
                    paid.append(events[index])
                    break
        return log_engine(self, events, before)

    db, certs = build(
        tmp_path, monkeypatch, lambda: monkeypatch.setattr(TableSession, "_log_engine", overpay)
    )
    target = next(seq for seq, event in events_of(db, "wager_settled") if event == to_dict(paid[0]))
    report = run(db, certs)
    assert failing(report) == {"replay"}
    assert first_failure(report) == (target, "replay")
    assert "differs on replay" in report.failures[0].reason


def test_closing_balance_that_does_not_fold_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A round_closed stating a balance $1 above what the round's wagers and settlements
    give is named by the ledger check at its seq (and the next round_started, which states
    the true balance, is named as disagreeing with it); money is still conserved."""
    log = TableSession._log

    def misstate(
        self: TableSession, items: Sequence[tuple[str | None, Any]], checkpoint: str | None = None
    ) -> list[Any]:
        changed = []
        for terminal, ev in items:
            if type(ev) is RoundClosed and ev.round == 3:
                ev = ev._replace(balances=(ev.balances[0] + 100, *ev.balances[1:]))
            changed.append((terminal, ev))
        return log(self, changed, checkpoint)

    db, certs = build(
        tmp_path, monkeypatch, lambda: monkeypatch.setattr(TableSession, "_log", misstate)
    )
    closed = kind_seqs(db, "round_closed", round_id=3)[0]
    started = kind_seqs(db, "round_started", round_id=4)[0]
    report = run(db, certs)
    assert failing(report) == {"ledger"}
    assert first_failure(report) == (closed, "ledger")
    assert [f.seq for f in report.failures] == [closed, started]
    assert "$" in report.failures[0].reason


def test_unrevealed_shoe_is_a_warning_without_the_sealing_key_and_checked_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the log ends with its last shoe still sealed, its rounds are reported as not
    checked (a warning, the log verifies); with the sealing key the sealed seed is opened
    and a card dealt out of order in that shoe is named at its seq."""
    new_shoe = SealedShoes.new_shoe
    retire = TableSession.retire_shoe
    swapped: list[int] = []
    finished: list[bool] = []

    def dishonest(self: SealedShoes, number: int) -> Any:
        shoe, committed, salt = new_shoe(self, number)
        if number == 2:
            swapped.extend(_swap(shoe, 2, 3))
        return shoe, committed, salt

    def keep_sealed(self: TableSession) -> list[Any]:
        return [] if finished else retire(self)

    def patch() -> None:
        monkeypatch.setattr(SealedShoes, "new_shoe", dishonest)
        monkeypatch.setattr(TableSession, "retire_shoe", keep_sealed)

    db, certs = build(
        tmp_path,
        monkeypatch,
        patch,
        progress=lambda done: finished.append(True) if done == ROUNDS else None,
    )
    assert len(kind_seqs(db, "shoe_committed")) == 2 and len(kind_seqs(db, "shoe_revealed")) == 1
    report = run(db, certs, anchors=anchors_of(db))
    assert report.ok, report.failures
    assert [w.check for w in report.warnings] == ["cards"]
    assert "of unrevealed shoe 2 of table BJ-01 not checked (no sealing key)" in (
        report.warnings[0].reason
    )
    sealed = run(db, certs, sealing=True)
    card = next(
        seq
        for seq, event in events_of(db, "card_dealt")
        if event["position"] == swapped[0] and seq > kind_seqs(db, "shoe_committed")[1]
    )
    assert failing(sealed) == {"cards"}
    assert first_failure(sealed) == (card, "cards")
    assert sealed.counts.shoes_checked == 2


def test_events_after_the_last_checkpoint_are_a_warning(
    clean: tuple[Path, Path], tmp_path: Path
) -> None:
    """Events appended after the last signed checkpoint are reported as unproven (a clearly
    worded warning naming the first of them), not as a failure: the log verifies."""
    db = copy_log(clean[0], tmp_path / "tail.db")
    before = kind_seqs(db, "credits_in")
    with closing(readonly(db)) as conn:
        (balance,) = conn.execute(
            "SELECT json_extract(body, '$.balances[0]') FROM events WHERE kind = 'round_closed' "
            "ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        (last,) = conn.execute("SELECT max(seq) FROM events").fetchone()
    signing = load_signing_key(clean[1])
    anchors = copy_log(anchors_of(clean[0]), tmp_path / "anchors.jsonl")
    with EventLog.create_or_open(
        db, signing, system_clock, kind="simulation", anchors=AnchorFile(anchors)
    ) as log:
        event = CreditsIn("T1", 500, balance + 500, "late")
        log.append([NewEvent("BJ-01", None, "T1", to_dict(event))])
        log.close(checkpoint=False)
    report = run(db, clean[1], anchors=anchors)
    assert report.ok, report.failures
    assert len(kind_seqs(db, "credits_in")) == len(before) + 1
    assert report.counts.unproven_events == 1
    (warning,) = report.warnings
    assert (warning.seq, warning.check) == (last + 1, "checkpoints")
    assert "not covered by any signed checkpoint" in warning.reason
