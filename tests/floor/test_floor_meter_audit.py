"""``etg verify DB --store URL`` checks a log's linked meter records (605a.8) against the
floor store, both ways, and the store's own history of each meter by the rules' arithmetic
(:mod:`game_server.floor.meter_audit`), reading as the investigator.

The set-up is a real table (the Blackjack session recovered from its real log, its
linked meter on a real PostgreSQL through :func:`~game_server.floor.serving.linked_meters`)
whose first round deals seat 1 three suited sevens (Blazing 7's 100%, a seed found by search,
as the two-server end-to-end test's), so the log holds contributions and an award; a second
table's contributions (another server's, straight through the meter client) interleave in
the meter's history. Each tamper case changes the store as its superuser (the append-only
triggers disabled) or writes a change the log never recorded, and must fail naming what is
wrong.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from floor_helpers import StoreUrls

from game_server.config import TableConfig, example_config_path, parse_config
from game_server.eventlog import EventLogReader, system_clock
from game_server.floor.meter_audit import (
    TOTALS,
    ClaimRow,
    StepRow,
    StoredMeter,
    StoreMeterAudit,
    check_history,
)
from game_server.floor.meters import LinkedMeterClient
from game_server.floor.serving import linked_meters
from game_server.games.blackjack.rules.actions import Action
from game_server.keys import init_keys, load_public_key, load_sealing_key
from game_server.recall.rounds import decode
from game_server.recall.verify import VerifyReport, verify_log
from game_server.rules.meters import (
    LinkedMeterAwarded,
    LinkedMeterContributed,
    Meter,
    MeterAwarded,
    MeterReseeded,
    apply,
)
from game_server.rules.wagers.base import MeterSpec
from game_server.table.recovery import open_tables
from game_server.table.session import simulation_seeds
from tools.verify_cli import verify

sys.path.insert(0, str(Path(__file__).parents[1]))
from linked_tables import BLAZING, METER, linked_section

TABLE = "BJ-A"
#: The two-server end-to-end test's seed: round 1 deals seat 1 7-7 and the dealer a 7 up,
#: all of one suit (Three 7's Same Suit, 100% of the meter).
SEED = 13825
WAGERS = {"blackjack": 500, "blazing_7s": 100}


def linked_config() -> TableConfig:
    text = example_config_path().read_text(encoding="utf-8")
    text = re.sub(r'^id = "BJ-01"', f'id = "{TABLE}"', text, flags=re.M)
    text = re.sub(r'^shuffle = "cut-card"', 'shuffle = "every-round"', text, flags=re.M)
    text = re.sub(r"^cut_card = \d+.*$", "", text, flags=re.M)
    return parse_config(text + BLAZING + linked_section(share_window_ms=0))


@dataclass
class Played:
    db: Path
    certs: Path
    store: StoreUrls
    #: (log seq, table, round, record) of every linked record of the log.
    links: list[tuple[int, str, int | None, Any]]

    def verify(self, url: str | None = None) -> VerifyReport:
        audit = None if url is None else StoreMeterAudit(url)
        try:
            with EventLogReader.open(self.db) as reader:
                return verify_log(
                    reader,
                    load_public_key(self.certs),
                    sealing_key=load_sealing_key(self.certs),
                    meters=audit,
                )
        finally:
            if audit is not None:
                audit.close()

    def linked(self, url: str | None = None) -> list[tuple[str, int | None, str]]:
        """The failures and warnings of the ``linked`` check: (FAIL|WARN, seq, reason)."""
        report = self.verify(self.store.investigator if url is None else url)
        found = [("FAIL", f.seq, f.reason) for f in report.failures if f.check == "linked"]
        found += [("WARN", w.seq, w.reason) for w in report.warnings if w.check == "linked"]
        return found

    def contribution(self, n: int = 0) -> tuple[int, int, Any]:
        """The n-th logged contribution: (log seq, round, record)."""
        fed = [x for x in self.links if isinstance(x[3], LinkedMeterContributed)]
        seq, _, round_id, ev = fed[n]
        assert round_id is not None
        return seq, round_id, ev

    def award(self) -> tuple[int, int, LinkedMeterAwarded]:
        """The logged award: (log seq, round, record)."""
        seq, _, round_id, ev = next(x for x in self.links if isinstance(x[3], LinkedMeterAwarded))
        assert round_id is not None
        return seq, round_id, ev

    def superuser(self, *statements: tuple[str, tuple[Any, ...]]) -> None:
        """Run ``statements`` as the store's superuser with the append-only triggers off."""
        with psycopg.connect(self.store.superuser, autocommit=True) as conn:
            for table in ("meter_steps", "meter_claims"):
                conn.execute(f"ALTER TABLE floor.{table} DISABLE TRIGGER {table}_no_change")
            try:
                for sql, params in statements:
                    conn.execute(sql.encode(), params)
            finally:
                for table in ("meter_steps", "meter_claims"):
                    conn.execute(f"ALTER TABLE floor.{table} ENABLE TRIGGER {table}_no_change")


def play_round(table: Any, wagers: dict[str, int]) -> None:
    table.start_round()
    table.place_wagers("T1", wagers)
    table.deal()
    while table.round is not None and table.round.to_act is not None:
        hand = table.round.to_act
        table.act(table.terminal_of[hand.seat], Action.STAND, hand.index)


@pytest.fixture
def played(store: StoreUrls, tmp_path: Path) -> Played:
    """Three rounds of a linked table (the first wins the meter), with another table's
    contributions to the meter between them; the log closed cleanly."""
    return play(store, tmp_path)


def play(store: StoreUrls, tmp_path: Path, *, open_round: bool = False) -> Played:
    """:func:`played`'s floor; ``open_round``: then a fourth round dealt (its contribution
    logged) and waiting for T1 when the log stops (a crash, or a copy taken mid-round)."""
    certs = tmp_path / "certs"
    init_keys(certs)
    db = tmp_path / "table.db"
    config = linked_config()
    make, close = linked_meters(store.shipper)
    other = LinkedMeterClient(store.shipper)
    try:
        log, tables = open_tables(
            [config],
            db,
            certs,
            lambda _: {"T1": 1},
            clock=system_clock,
            seeds=lambda c: simulation_seeds(SEED, c.table_id),
            linked=make,
        )
        table: Any = tables[0][0]  # the Blackjack session
        table.cash_in("T1", 100_000, "test")
        for round_id in range(1, 4):
            play_round(table, WAGERS)
            other.contribute(METER, "BJ-B", round_id, f"c:{METER}:T1:1", "T1", 100)
        if open_round:  # the contributions are made at the deal
            table.start_round()
            table.place_wagers("T1", WAGERS)
            table.deal()
            assert table.round is not None and table.round.to_act is not None
        log.close()
    finally:
        close()
        other.close()
    with EventLogReader.open(db) as reader:
        links = [
            (s.seq, s.table_id, s.round_id, decode(s))
            for s in reader.events_of_kind("linked_meter_contributed", "linked_meter_awarded")
        ]
    assert sum(isinstance(x[3], LinkedMeterAwarded) for x in links) == 1
    assert sum(isinstance(x[3], LinkedMeterContributed) for x in links) == 3 + open_round
    return Played(db, certs, store, links)


def test_a_linked_floor_log_verifies_against_the_store_as_the_investigator(
    played: Played,
) -> None:
    report = played.verify(played.store.investigator)
    assert report.ok, report.failures
    assert report.linked is not None
    assert (report.linked.checked, report.linked.meters) == (4, 1)
    assert not [w for w in report.warnings if w.check == "linked"]
    # Without the store, the linked records are named as not checked.
    alone = played.verify()
    assert alone.ok and alone.linked is None
    assert [w.check for w in alone.warnings].count("linked") == 1
    assert "not checked against the floor store" in next(
        w.reason for w in alone.warnings if w.check == "linked"
    )


def test_the_cli_exits_0_with_the_store_1_when_it_disagrees_2_when_unreadable(
    played: Played,
) -> None:
    key = str(played.certs / "log-signing.pub")
    runner = CliRunner()
    ok = runner.invoke(verify, [str(played.db), "--key", key, "--store", played.store.investigator])
    assert ok.exit_code == 0, ok.output
    assert "linked meters: 4 record(s) of this log checked" in ok.output
    seq, _, ev = played.contribution(1)
    played.superuser(
        (
            "UPDATE floor.meter_steps SET wager = wager + 1, kept = kept + 1000 "
            "WHERE meter_id = %s AND seq = %s",
            (METER, ev.store_seq),
        )
    )
    bad = runner.invoke(
        verify, [str(played.db), "--key", key, "--store", played.store.investigator]
    )
    assert bad.exit_code == 1, bad.output
    assert f"First failure at seq {seq} [linked]" in bad.output
    assert f"linked meter {METER} store seq {ev.store_seq}: the log records wager 100" in (
        bad.output
    )
    down = "postgresql://etg_investigator@127.0.0.1:1/etg_floor"
    gone = runner.invoke(verify, [str(played.db), "--key", key, "--store", down])
    assert gone.exit_code == 2, gone.output
    # The shipping role may not read the meter tables: unusable input, with the store's word.
    shipper = runner.invoke(verify, [str(played.db), "--key", key, "--store", played.store.shipper])
    assert shipper.exit_code == 2, shipper.output
    assert "refused reading the linked meters: permission denied" in shipper.output


def test_an_altered_meter_row_fails_naming_the_seq_the_meter_and_the_field(
    played: Played,
) -> None:
    seq, _, ev = played.contribution(2)
    # Amount and the contributed total raised together: the row still balances on its own.
    played.superuser(
        (
            "UPDATE floor.meter_steps SET amount = amount + 5000, contributed = contributed + 5000 "
            "WHERE meter_id = %s AND seq = %s",
            (METER, ev.store_seq),
        )
    )
    found = played.linked()
    assert (
        "FAIL",
        seq,
        f"linked meter {METER} store seq {ev.store_seq}: the log records amount {ev.amount} "
        f"but the store's row says {ev.amount + 5000}",
    ) in found
    history = [r for kind, _, r in found if "the store's linked meter" in r]
    assert history == [
        f"the store's linked meter {METER} at seq {ev.store_seq}: amount is {ev.amount + 5000}, "
        f"but a wager of 100 cents by the rules' arithmetic gives {ev.amount}; its later rows "
        "are not checked"
    ]


def test_the_store_history_alone_is_walked_by_the_rules_arithmetic(played: Played) -> None:
    """Another table's row (in no record of this log) whose increment was raised with its
    amount and contributed total: only the history walk can see it."""
    with psycopg.connect(played.store.investigator) as conn:
        row = conn.execute(
            "SELECT seq, increment FROM floor.meter_steps WHERE meter_id = %s AND table_id = "
            "'BJ-B' ORDER BY seq LIMIT 1",
            (METER,),
        ).fetchone()
    assert row is not None
    store_seq, increment = row
    played.superuser(
        (
            "UPDATE floor.meter_steps SET increment = increment + 1, kept = kept - 1, "
            "amount = amount + 1, contributed = contributed + 1 "
            "WHERE meter_id = %s AND seq = %s",
            (METER, store_seq),
        )
    )
    found = played.linked()
    assert [kind for kind, _, _ in found] == ["FAIL"]
    assert found[0][2].startswith(
        f"the store's linked meter {METER} at seq {store_seq}: increment is {increment + 1}, "
        f"but a wager of 100 cents by the rules' arithmetic gives {increment}"
    )
    # Filed at the first record of the log that relies on the row (one after it).
    later = [s for s, _, _, ev in played.links if ev.store_seq >= store_seq]
    assert found[0][1] == min(later)


def test_an_award_that_is_not_the_rules_share_fails(played: Played) -> None:
    seq, _, ev = played.award()
    played.superuser(
        (
            "UPDATE floor.meter_steps SET share = share - 1, amount = amount + 1000, "
            "paid = paid - 1 WHERE meter_id = %s AND seq >= %s AND kind = 'awarded'",
            (METER, ev.store_seq),
        )
    )
    found = played.linked()
    reasons = [r for _, _, r in found]
    assert (
        "FAIL",
        seq,
        f"linked meter {METER} store seq {ev.store_seq}: the log records share {ev.share} but "
        f"the store's row says {ev.share - 1}",
    ) in found
    assert any(
        r.startswith(f"the store's linked meter {METER} at seq {ev.store_seq}: share is ")
        for r in reasons
    )


def test_a_row_missing_from_the_store_fails(played: Played) -> None:
    seq, _, ev = played.contribution(0)
    played.superuser(
        ("DELETE FROM floor.meter_steps WHERE meter_id = %s AND seq = %s", (METER, ev.store_seq))
    )
    found = played.linked()
    assert (
        "FAIL",
        seq,
        f"linked meter {METER} store seq {ev.store_seq}: the store has no such row (the change "
        "is missing)",
    ) in found
    assert any(
        f"at seq {ev.store_seq + 1}: it follows seq {ev.store_seq - 1}: the meter's history has "
        f"a gap (seq {ev.store_seq} to {ev.store_seq} missing)" in r
        for _, _, r in found
    )


def test_a_record_whose_store_row_names_another_table_or_round_fails(played: Played) -> None:
    seq, round_id, ev = played.contribution(1)
    played.superuser(
        (
            "UPDATE floor.meter_steps SET round_id = round_id + 7 WHERE meter_id = %s AND seq = %s",
            (METER, ev.store_seq),
        )
    )
    found = played.linked()
    assert (
        "FAIL",
        seq,
        f"linked meter {METER} store seq {ev.store_seq}: the log records round_id {round_id} "
        f"but the store's row says {round_id + 7}",
    ) in found
    played.superuser(
        (
            "UPDATE floor.meter_steps SET round_id = round_id - 7, table_id = 'BJ-C' "
            "WHERE meter_id = %s AND seq = %s",
            (METER, ev.store_seq),
        )
    )
    assert (
        "FAIL",
        seq,
        f"linked meter {METER} store seq {ev.store_seq}: the log records table_id '{TABLE}' "
        "but the store's row says 'BJ-C'",
    ) in played.linked()


def test_an_award_whose_claim_names_another_round_fails(played: Played) -> None:
    seq, round_id, ev = played.award()
    played.superuser(
        (
            "UPDATE floor.meter_claims SET round_id = round_id + 1 WHERE meter_id = %s "
            "AND table_id = %s AND award = %s",
            (METER, TABLE, ev.award),
        )
    )
    found = played.linked()
    assert (
        "FAIL",
        seq,
        f"linked meter {METER} store seq {ev.store_seq}: the store holds no claim of table "
        f"{TABLE} round {round_id} step {ev.step}; award {ev.award}'s claims are by table "
        f"{TABLE} round {round_id + 1} step {ev.step}",
    ) in found
    # The claim moved to round 2, which the log closed without recording it.
    assert any(
        kind == "FAIL"
        and f"holds a claim of award {ev.award} by table {TABLE} round "
        f"{round_id + 1} that this log does not record, and the log closed that round"
        in r
        for kind, _, r in found
    )


def test_a_store_change_for_this_table_that_the_log_lacks_fails_once_the_round_closed(
    played: Played,
) -> None:
    """A change the store made for a closed round of the log is a failure; one for a round
    the log has not reached is the log being behind (a crash between the store's commit and
    the log's append is retried with the same step key): a warning only."""
    client = LinkedMeterClient(played.store.shipper)
    try:
        late = client.contribute(METER, TABLE, 2, f"c:{METER}:T1:2", "T1", 100)
        ahead = client.contribute(METER, TABLE, 4, f"c:{METER}:T1:1", "T1", 100)
    finally:
        client.close()
    found = played.linked()
    with EventLogReader.open(played.db) as reader:
        closed = next(s.seq for s in reader.events_of_kind("round_closed") if s.round_id == 2)
    assert [(kind, seq, r) for kind, seq, r in found if f"store seq {late.store_seq}" in r] == [
        (
            "FAIL",
            closed,
            f"the store's linked meter {METER} holds a contribution at store seq "
            f"{late.store_seq} by table {TABLE} round 2 that this log does not record, and "
            "the log closed that round: a meter change that no wallet of the log saw (a "
            "crash whose retry did not ask for the same step again, a row written by hand, or "
            "another log of the same table)",
        )
    ]
    assert [(kind, r) for kind, _, r in found if f"store seq {ahead.store_seq}" in r] == [
        (
            "WARN",
            f"the store's linked meter {METER} holds a contribution at store seq "
            f"{ahead.store_seq} by table {TABLE} round 4 that this log does not record yet: "
            "the log has not started round 4 (its last is 3); the table may still record it",
        )
    ]
    assert len(found) == 2  # the store's history still follows: both are real changes


def test_a_log_record_repeated_fails(played: Played) -> None:
    """Two records of the log naming one store change (the wallets saw it twice)."""
    from game_server.floor.meter_audit import LoggedLink, check_log, read_log, read_meters
    from game_server.floor.store import FloorStore

    with EventLogReader.open(played.db) as reader:
        links, rounds = read_log(reader)
    store = FloorStore.connect(played.store.investigator)
    try:
        meters = read_meters(store, {METER}, rounds.tables)
    finally:
        store.close()
    first = next(x for x in links if isinstance(x.event, LinkedMeterContributed))
    twice = LoggedLink(first.seq + 1000, first.table_id, first.round_id, first.event)
    assert check_log(links, rounds, meters).failures == []
    result = check_log([*links, twice], rounds, meters)
    assert result.failures == [
        (
            first.seq + 1000,
            f"linked meter {METER} store seq {first.event.store_seq}: the log records this "
            f"change again (first at seq {first.seq})",
        )
    ]


def test_a_reseed_that_is_not_the_rules_top_up_fails(played: Played) -> None:
    """The award's reseed row, the house's part cut by a dollar (still balanced on its own)."""
    _, _, ev = played.award()
    with psycopg.connect(played.store.investigator) as conn:
        row = conn.execute(
            "SELECT seq, from_house FROM floor.meter_steps WHERE meter_id = %s "
            "AND kind = 'reseeded' AND award = %s",
            (METER, ev.award),
        ).fetchone()
    assert row is not None and row[0] == ev.store_seq + 1
    played.superuser(
        (
            "UPDATE floor.meter_steps SET from_house = from_house - 100000, "
            "amount = amount - 100000, house_funded = house_funded - 100000 "
            "WHERE meter_id = %s AND seq = %s",
            (METER, row[0]),
        )
    )
    assert [r for _, _, r in played.linked()] == [
        f"the store's linked meter {METER} at seq {row[0]}: from_house is {row[1] - 100000}, "
        f"but the reseed after award {ev.award} by the rules' arithmetic gives {row[1]}; its "
        "later rows are not checked"
    ]


def test_floor_meters_verify_walks_every_meter_of_the_store_as_the_investigator(
    played: Played,
) -> None:
    """``etg floor meters --verify``: every meter's whole history, with no log."""
    from tools.floor_cli import meters

    runner = CliRunner()
    url = played.store.investigator
    ok = runner.invoke(meters, ["--store", url, "--verify"])
    assert ok.exit_code == 0, ok.output
    # Six $1 wagers at 5% (5c each) on the $2,000.00 seed: the 100% award after the first
    # paid $2,000.05 and the house reseeded the meter to $2,000.00; five wagers since (25c).
    assert re.fullmatch(
        rf"{re.escape(METER)}\s+Blazing 7's Progressive\s+seq\s+9  amount \$2,000.25  "
        r"wagered \$6.00  paid \$2,000.05  hits 1  history VERIFIED\n",
        ok.output,
    )
    shown = runner.invoke(meters, ["--store", url, "--json"])
    assert shown.exit_code == 0 and "problems" not in shown.output
    with psycopg.connect(url) as conn:
        last = conn.execute(
            "SELECT max(seq) FROM floor.meter_steps WHERE meter_id = %s", (METER,)
        ).fetchone()
    assert last is not None
    # The last row's hit count raised by one: its totals no longer follow.
    played.superuser(
        (
            "UPDATE floor.meter_steps SET hits = hits + 1 WHERE meter_id = %s AND seq = %s",
            (METER, last[0]),
        )
    )
    bad = runner.invoke(meters, ["--store", url, "--verify"])
    assert bad.exit_code == 1, bad.output
    assert "FAILED" in bad.output
    assert (
        f"the store's linked meter {METER} at seq {last[0]}: hits is " in bad.output
        and "but the row before it by the rules' arithmetic gives" in bad.output
    )


def test_a_store_change_for_the_logs_open_last_round_is_a_warning(
    store: StoreUrls, tmp_path: Path
) -> None:
    """The log stopped in round 4 after its deal; the store holds a second change of
    that round the log does not (the table crashed between the store's commit and its log's
    append): a warning while the round is open. Recorded or not, round 3's are all there."""
    played = play(store, tmp_path, open_round=True)
    assert played.linked() == []
    client = LinkedMeterClient(store.shipper)
    try:
        ahead = client.contribute(METER, TABLE, 4, f"c:{METER}:T2:1", "T2", 100)
    finally:
        client.close()
    report = played.verify(store.investigator)
    assert report.ok, report.failures
    assert [w.reason for w in report.warnings if w.check == "linked"] == [
        f"the store's linked meter {METER} holds a contribution at store seq {ahead.store_seq} "
        f"by table {TABLE} round 4 that this log does not record yet: round 4 is the log's "
        "last and is not closed; the table may still record it"
    ]


# --- the history walk on its own (no store): rows built from the rules' own fold ----------

SPEC = MeterSpec("Linked 7s", seed=100_000, reseed=50_000, increment_bp=500, secondary_bp=125)


def history() -> StoredMeter:
    """Open, two contributions, a 100% award shared by 2 places at two tables (reseeded from
    the reserve and then the house), one more contribution: the rows the store writes."""
    rows: list[StepRow] = []

    def row(m: Meter, kind: str, **kw: Any) -> None:
        values: dict[str, Any] = dict.fromkeys(f.name for f in fields(StepRow))
        values.update(seq=len(rows) + 1, kind=kind, **kw)
        values.update({name: getattr(m, name) for name in (*TOTALS, "paid", "hits")})
        rows.append(StepRow(**values))

    def contribute(m: Meter, round_id: int, wager: int) -> Meter:
        ev = m.contribution(wager, "T1")
        after = apply(m, ev)
        row(
            after,
            "contributed",
            table_id=TABLE,
            round_id=round_id,
            step="c",
            place="T1",
            wager=wager,
            increment=ev.increment,
            secondary=ev.secondary,
            kept=ev.kept,
        )
        return after

    meter = Meter.open(METER, SPEC).meter
    row(meter, "opened")
    meter = contribute(meter, 1, 100)
    meter = contribute(meter, 2, 333)
    paid, reseed = meter.award_shared(100, ["a", "b"]).events
    assert isinstance(paid, MeterAwarded) and isinstance(reseed, MeterReseeded)
    assert reseed.from_reserve > 0 and reseed.from_house > 0
    meter = apply(meter, paid)
    row(meter, "awarded", award=1, percent=100, share=paid.share, winners=2)
    meter = apply(meter, reseed)
    row(meter, "reseeded", award=1, from_reserve=reseed.from_reserve, from_house=reseed.from_house)
    contribute(meter, 4, 100)
    claims = (ClaimRow(1, 1, TABLE, 3, "a", ("a",)), ClaimRow(1, 2, "BJ-B", 9, "a", ("b",)))
    return StoredMeter(METER, SPEC, tuple(rows), claims, {1: 100})


def test_a_history_built_by_the_rules_follows() -> None:
    meter = history()
    assert [r.kind for r in meter.steps] == [
        "opened",
        "contributed",
        "contributed",
        "awarded",
        "reseeded",
        "contributed",
    ]
    assert check_history(meter) == []


def _set(rows: tuple[StepRow, ...], at: int, **changes: Any) -> tuple[StepRow, ...]:
    """``rows`` with row ``at`` (0-based) changed."""
    return (*rows[:at], replace(rows[at], **changes), *rows[at + 1 :])


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda r: _set(r, 1, kind="opened"), "at seq 2: a opened row: only seq 1 opens"),
        (lambda r: _set(r, 0, seq=0), "at seq 0: it follows seq 0: the meter's history has"),
        (
            lambda r: _set(r, 1, wager=0),
            "at seq 2: meter 'floor:blazing7s': a contribution needs a wager of at least 1 cent",
        ),
        (
            lambda r: (*r[:4], *r[5:]),
            "at seq 6: it follows seq 4: the meter's history has a gap (seq 5 to 5 missing)",
        ),
        (
            lambda r: (*r[:4], _set(r, 4, seq=5, kind="contributed")[4], *r[5:]),
            "at seq 5: award 1 left the meter below its reseed, so this row must be its "
            "reseed, not a contributed row",
        ),
        (
            lambda r: r[:4],
            "at seq 4: award 1 left the meter below its reseed and no reseed row follows",
        ),
        (lambda r: _set(r, 3, winners=3), "at seq 4: winners is 3, but the claims of award 1"),
        (lambda r: _set(r, 3, percent=10), "at seq 4: percent is 10, but award 1 is of 100%"),
        (
            lambda r: _set(
                r,
                4,
                from_reserve=r[4].from_reserve - 1,
                from_house=r[4].from_house + 1,
                reserve=r[4].reserve + 1,
                house_funded=r[4].house_funded + 1,
            ),
            "at seq 5: from_reserve is ",
        ),
        (lambda r: _set(r, 2, paid=r[2].paid + 1), "at seq 3: it does not balance: "),
        (lambda r: _set(r, 2, hits=1), "at seq 3: hits is 1, but the row before it by "),
        (
            lambda r: _set(r, 2, reserve=r[2].reserve + 1, reserved=r[2].reserved + 1),
            "at seq 3: reserve is ",
        ),
        (lambda r: _set(r, 5, wagered=r[5].wagered + 1), "at seq 6: wagered is "),
    ],
)
def test_a_history_that_does_not_follow_the_rules_fails_at_its_row(
    change: Callable[[tuple[StepRow, ...]], tuple[StepRow, ...]], reason: str
) -> None:
    meter = history()
    problems = check_history(replace(meter, steps=change(meter.steps)))
    assert len(problems) == 1, problems
    assert problems[0].reason.startswith(f"the store's linked meter {METER} {reason}"), problems
