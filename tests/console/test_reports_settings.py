"""The 605a.5(d) shift report folded from a real log (``tests/recall/recall_logs.py``'s two
tables written by the live session with a fake clock), against sums taken straight from the
log's wager events; the shifts of a floor; the servers file."""

from __future__ import annotations

import datetime as dt
import sys
import zoneinfo
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "recall"))
from recall_logs import START, build_log  # tests/recall/recall_logs.py

from game_server.console.reports import (
    MeterHistory,
    Reading,
    ShiftClock,
    report_csv,
    shift_rows,
)
from game_server.console.settings import SettingsError, load_settings
from game_server.eventlog import EventLog, EventLogReader, NewEvent
from game_server.keys import init_keys
from game_server.rules.events import to_dict
from game_server.table.events import OperatorAction

#: Four ten-minute shifts from 15:00 UTC, then the night: the log's rounds (15:00 to about
#: 15:26) fall in three of them.
SHIFTS = ShiftClock([dt.time(15, 0), dt.time(15, 10), dt.time(15, 20), dt.time(15, 30)], dt.UTC)
DAY = START.date()


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The recall tests' two-table log, plus an attendant's cash out at 15:40 (BJ-02), after
    its last round (a log's times never go back)."""
    folder = tmp_path_factory.mktemp("report")
    init_keys(folder)
    db = folder / "table.db"
    build_log(db, folder)
    action = OperatorAction("cash-out", "ann", "attendant", "B1", 1_250, "slip 9", "r9", "")
    refused = action._replace(request_id="r10", refused="no credits", amount=0)
    moment = START + dt.timedelta(minutes=40)
    with EventLog.create_or_open(db, folder, lambda: moment) as writer:
        writer.append([NewEvent("BJ-02", None, "B1", to_dict(action))])
        writer.append([NewEvent("BJ-02", None, "B1", to_dict(refused))])
    return db


def _straight(db: Path, table: str, start: dt.datetime, end: dt.datetime) -> tuple[int, int]:
    """Coin in and coin out of one table in [start, end), summed from the wager events."""
    since = start.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    until = end.strftime("%Y-%m-%dT%H:%M:%S.000000Z")
    coin_in = coin_out = 0
    with EventLogReader.open(db) as reader:
        for stored in reader.iter_events():
            if stored.table_id != table or not since <= stored.time < until:
                continue
            if stored.kind == "wager_placed":
                coin_in += stored.body["amount"]
            elif stored.kind == "wager_settled":
                coin_out += stored.body["paid"]
    return coin_in, coin_out


def test_each_shift_is_what_its_wager_events_sum_to_and_the_shifts_add_up(log: Path) -> None:
    """Every table's coin in and coin out over each shift equal the sums of the log's
    wager_placed amounts and wager_settled payments in the shift; the shifts of the day add
    up to the never-reset meters at the end."""
    history = MeterHistory(SHIFTS)
    with EventLogReader.open(log) as reader:
        history.update(reader)
    now = START + dt.timedelta(days=2)
    totals: dict[str, Reading] = {}
    for shift in SHIFTS.shifts_of(DAY):
        for row in shift_rows("pit-1", history, shift, now):
            assert (row.figures.coin_in, row.figures.coin_out) == _straight(
                log, row.table, shift.start, shift.end
            ), f"{row.table} {shift.label}"
            before = totals.get(row.table, Reading())
            totals[row.table] = Reading(
                *(
                    a + b
                    for a, b in zip(vars(before).values(), vars(row.figures).values(), strict=True)
                )
            )
    busy = [r for r in shift_rows("pit-1", history, SHIFTS.shift(DAY, 2), now) if r.figures.coin_in]
    assert busy, "the log has rounds in the second shift"
    end = dt.datetime(2100, 1, 1, tzinfo=dt.UTC)
    for table, summed in totals.items():
        assert summed.coin_in == history.reading(table, end).coin_in
        assert summed.games_played == history.reading(table, end).games_played


def test_an_attendants_cash_out_is_counted_in_its_shift_and_a_refusal_is_not(log: Path) -> None:
    history = MeterHistory(SHIFTS)
    with EventLogReader.open(log) as reader:
        history.update(reader)
    now = START + dt.timedelta(days=2)
    rows = {
        (row.shift.number, row.table): row
        for number in (1, 2, 3, 4)
        for row in shift_rows("pit-1", history, SHIFTS.shift(DAY, number), now)
    }
    assert rows[(4, "BJ-02")].figures.attendant_cash_out == 1_250
    assert rows[(3, "BJ-02")].figures.attendant_cash_out == 0
    assert rows[(4, "BJ-01")].figures.attendant_cash_out == 0


def test_a_shift_not_over_is_partial_and_reads_the_meters_now(log: Path) -> None:
    """The shift that holds ``now`` is marked partial, read up to the log's end."""
    history = MeterHistory(SHIFTS)
    with EventLogReader.open(log) as reader:
        history.update(reader)
    now = START + dt.timedelta(minutes=35)
    [row, *_] = shift_rows("pit-1", history, SHIFTS.shift(DAY, 4), now)
    assert row.partial
    assert not shift_rows("pit-1", history, SHIFTS.shift(DAY, 1), now)[0].partial


def test_the_fold_is_incremental(log: Path, tmp_path: Path) -> None:
    """A second update folds nothing new; the result is the same."""
    history = MeterHistory(SHIFTS)
    with EventLogReader.open(log) as reader:
        first = history.update(reader)
        assert first > 0
        assert history.update(reader) == 0
    assert history.folded_seq == first


def test_the_csv_has_one_header_and_a_row_per_table_in_cents(log: Path) -> None:
    history = MeterHistory(SHIFTS)
    with EventLogReader.open(log) as reader:
        history.update(reader)
    rows = shift_rows("pit-1", history, SHIFTS.shift(DAY, 2), START + dt.timedelta(days=1))
    lines = report_csv(rows).splitlines()
    assert lines[0].startswith("server,table,gaming_day,shift,start_utc,end_utc,complete,")
    assert "coin_in_cents" in lines[0] and "attendant_paid_jackpots_cents" in lines[0]
    assert [line.split(",")[1] for line in lines[1:]] == ["BJ-01", "BJ-02"]
    assert lines[1].split(",")[2:4] == [DAY.isoformat(), "2"]


def test_shifts_tile_the_day_in_local_time_across_a_clock_change() -> None:
    """New York's shifts on the day clocks go back (2026-11-01): the night shift is nine
    hours long, every moment is in exactly one shift, and boundaries run in order."""
    clock = ShiftClock(
        [dt.time(6), dt.time(14), dt.time(22)], zoneinfo.ZoneInfo("America/New_York")
    )
    night = clock.shift(dt.date(2026, 10, 31), 3)
    assert night.end - night.start == dt.timedelta(hours=9)
    moment = dt.datetime(2026, 11, 1, 5, 59, tzinfo=dt.UTC)
    assert clock.shift_at(moment).label == "2026-10-31 shift 3 (22:00-06:00)"
    boundaries = clock.boundaries_from(night.start)
    firsts = [next(boundaries) for _ in range(4)]
    assert firsts[0] == night.start and firsts == sorted(firsts)
    assert firsts[1] == night.end
    with pytest.raises(ValueError, match="shifts 1 to 3"):
        clock.shift(dt.date(2026, 10, 31), 4)


# -- the servers file ------------------------------------------------------------------------


def test_the_servers_file_is_read_with_paths_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "servers.toml"
    path.write_text(
        '[console]\nshifts = ["07:00", "19:00"]\ntimezone = "Europe/London"\nport = 9443\n'
        '[[server]]\nname = "pit-1"\naddress = "10.0.0.2:7400"\nlog = "logs/pit-1.db"\n'
        '[[server]]\nname = "pit-2"\naddress = "[::1]:7401"\nhostname = "pit2.floor"\n'
    )
    settings = load_settings(path)
    assert settings.port == 9443
    assert settings.shifts == (dt.time(7), dt.time(19))
    one, two = settings.servers
    assert (one.host, one.port, one.hostname, one.log) == (
        "10.0.0.2",
        7400,
        "10.0.0.2",
        tmp_path / "logs/pit-1.db",
    )
    assert (two.host, two.hostname, two.log) == ("::1", "pit2.floor", None)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "no server"),
        ('[[server]]\nname = "a b"\naddress = "h:1"\n', "is not a name"),
        ('[[server]]\nname = "a"\naddress = "h"\n', "is not host:port"),
        ('[[server]]\nname = "a"\naddress = "h:99999"\n', "not a TCP port"),
        (
            '[[server]]\nname = "a"\naddress = "h:1"\n[[server]]\nname = "a"\naddress = "h:2"\n',
            "named twice",
        ),
        (
            '[console]\ntimezone = "Mars/Olympus"\n[[server]]\nname = "a"\naddress = "h:1"\n',
            "is not a time zone",
        ),
        (
            '[console]\nshifts = ["14:00", "06:00"]\n[[server]]\nname = "a"\naddress = "h:1"\n',
            "in order",
        ),
        ('[console]\ncolour = 1\n[[server]]\nname = "a"\naddress = "h:1"\n', "unknown field"),
        ('[[server]]\nname = "a"\naddress = "h:1"\npassword = "x"\n', "unknown field"),
        ("not toml [", "not valid TOML"),
    ],
)
def test_a_bad_servers_file_is_refused_naming_the_field(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / "servers.toml"
    path.write_text(text)
    with pytest.raises(SettingsError, match=problem):
        load_settings(path)


def test_a_missing_servers_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="no such file"):
        load_settings(tmp_path / "nowhere.toml")


def test_each_table_is_folded_with_its_own_games_ledger(tmp_path: Path) -> None:
    """A table's shift figures are its own game's Ledger fold (what its ``ReadMeters``
    answers), not Blackjack's: a Four Card Poker table (like a UTH or Caribbean Stud one)
    pays a meter's award through its own record, so the meter's award record moves no
    credits there; folded as Blackjack's, the award was counted a second time. The log:
    ``etg sim --log`` of the Four Card Poker example, six seats, seed 6, in which the
    Must-Hit-By meter pays (641b.1)."""
    from click.testing import CliRunner

    from game_server.config import example_path
    from game_server.games import logged_game
    from game_server.rules.events import from_dict
    from game_server.table.events import TableOpened
    from tools.cli import main

    runner = CliRunner()
    assert runner.invoke(main, ["certs", "init", str(tmp_path / "k")]).exit_code == 0
    log = tmp_path / "fourcard.db"
    config = str(example_path("fourcard.toml"))
    played = ["--rounds", "20", "--seats", "6", "--seed", "6", "--log", str(log)]
    result = runner.invoke(
        main, ["sim", "--config", config, *played, "--certs", str(tmp_path / "k")]
    )
    assert result.exit_code == 0, result.output
    history = MeterHistory(SHIFTS)
    own: dict[str, Any] = {}
    with EventLogReader.open(log) as reader:
        history.update(reader)
        kinds = {stored.kind for stored in reader.iter_events()}
        for stored in reader.iter_events():
            event = from_dict(stored.body)
            if stored.table_id not in own:
                assert type(event) is TableOpened
                own[stored.table_id] = logged_game(event.config).new_ledger()
            own[stored.table_id].apply(stored.terminal, event)
    assert "mystery_awarded" in kinds, "the log pays the Must-Hit-By meter"
    end = dt.datetime(2100, 1, 1, tzinfo=dt.UTC)
    for table, ledger in own.items():
        assert not ledger.awards_move_credits
        reading = history.reading(table, end)
        meters = ledger.meters.values()
        assert reading.games_played == ledger.games_played == 20
        assert reading.coin_in == sum(m.wagered for m in meters) > 0, table
        assert reading.coin_out == sum(m.paid for m in meters), table
        assert reading.progressive_paid == ledger.progressive_paid > 0, table
