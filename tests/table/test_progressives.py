"""Progressive meters at the table (game_server.table.session with game_server.rules.meters):
every progressive wager feeds its meter when the cards are dealt, a 100% jackpot hit by two
players in one round is shared equally (633b.9(e)(3)) while two 10% payouts are each paid in
full in seat order, the meter goes back to its reset
amount, wallets are credited in the same logged step, and credits are conserved; the
meters recover from the log exactly, and tables naming the same meter share it (605a.8)."""

from __future__ import annotations

from typing import Any

import pytest
from logged_records import logged_records

from game_server.config import TableConfig, example_config_path, parse_config
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import ProgressiveWon, RoundCompleted
from game_server.games.blackjack.session import TableSession, meter_specs
from game_server.games.blackjack.views import view_for
from game_server.rng.shoe import StackedShoe
from game_server.rules.meters import MeterAwarded, MeterBank, MeterContributed, MeterReseeded
from game_server.table.events import RoundClosed
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds

KEY = bytes(range(32))
BLAZING = (
    '[wagers.blazing_7s]\npaytable = "Paytable A"\nmin = "1.00"\nmax = "1.00"\n'
    'meter_seed = "2000.00"\nmeter_reseed = "2000.00"\nmeter_increment = "7.5%"\n'
)


def config(extra: str = "", table: str = "BJ-01") -> TableConfig:
    text = example_config_path().read_text(encoding="utf-8") + "\n" + BLAZING + extra
    return parse_config(text.replace('id = "BJ-01"', f'id = "{table}"', 1))


def session(cfg: TableConfig, sink: MemorySink, meters: MeterBank | None = None) -> TableSession:
    shoes = SealedShoes(cfg, simulation_seeds(1, cfg.table_id), KEY, "test-key")
    table = TableSession(cfg, sink, shoes, {"T1": 1, "T2": 2}, meters)
    table.open()
    for terminal in ("T1", "T2"):
        table.cash_in(terminal, 100_000, "test")
    return table


def logged(sink: MemorySink) -> list[tuple[str | None, Any]]:
    """The log's records, each round whole (its sealed cards filled in)."""
    return logged_records(sink)


def stacked_deal(table: TableSession, cards: str) -> list[Any]:
    """Deal the open round from ``cards``: the engine draws the whole round from the shoe it
    was dealt from; the sealed shoe stays the table's shoe for the rounds after."""
    real = table.shoe
    table.shoe = StackedShoe(cards)
    try:
        return table.deal()
    finally:
        table.shoe = real


def play_three_sevens(table: TableSession) -> list[Any]:
    """Both seats: 7H 7H, hit a third 7H (Three 7's Same Suit, 100% of the meter)."""
    table.start_round()
    for terminal in ("T1", "T2"):
        table.place_wagers(terminal, {"blackjack": 1_000, "blazing_7s": 100})
    events = stacked_deal(table, "7H 7H TD 7H 7H 9S 7H 7H")
    events += table.act("T1", Action.HIT, 0)
    events += table.act("T2", Action.HIT, 0)
    return events


def test_a_jackpot_hit_by_two_players_is_shared_and_the_meter_reset() -> None:
    sink = MemorySink()
    table = session(config(), sink)
    (meter_id,) = meter_specs(table.config)
    assert view_for(table, "T1")["meters"] == [
        {
            "wager": "blazing_7s",
            "name": "Blazing 7's Progressive",
            "amount": 200_000,
            "must_hit_by": None,
        }
    ]
    events = play_three_sevens(table)
    contributed = [e for e in events if type(e) is MeterContributed]
    assert [(e.place, e.increment) for e in contributed] == [("T1", 7_500), ("T2", 7_500)]
    assert [e.seat for e in events if type(e) is ProgressiveWon] == [1, 2]
    (award,) = [e for e in events if type(e) is MeterAwarded]
    # $2,000.15 split two ways: $1,000.07 each, the odd cent stays in the meter.
    assert (award.places, award.share, award.percent) == (("T1", "T2"), 100_007, 100)
    (reseed,) = [e for e in events if type(e) is MeterReseeded]
    assert reseed.amount == 200_000_000  # millicents: back to $2,000.00
    kinds = [type(e) for e in events]
    assert kinds.index(MeterAwarded) < kinds.index(RoundClosed)
    assert kinds.index(RoundCompleted) < kinds.index(RoundClosed)
    closed = events[-1]
    assert type(closed) is RoundClosed
    # Each: 1,000.00 - 10.00 - 1.00 + 20.00 (21 beats 19) + 1.00 (stake back) + 1,000.07
    assert closed.balances == (100_000 - 1_100 + 2_000 + 100 + 100_007,) * 2
    assert table.ledger.conserved()
    assert table.ledger.progressive_paid == 200_014
    assert table.meters.meter(meter_id).balanced()
    assert view_for(table, "T1")["meters"][0]["amount"] == 200_000


def test_633b_9_e_3_two_ten_percent_payouts_are_each_paid_in_full_in_seat_order() -> None:
    """633b.9(e)(3) shares equally only "a progressive payout that is 100% of the jackpot
    amount": two players' "Three 7's Same Color" (10% of meter, Paytable A) in one round are
    each paid in full, seat 1 first, from the meter as it stands. The meter of $2,000.15
    pays seat 1 $200.01, is topped back to its $2,000.00 reset, and pays seat 2 $200.00
    (shared, the two were paid $100.00 each)."""
    sink = MemorySink()
    table = session(config(), sink)
    (meter_id,) = meter_specs(table.config)
    table.start_round()
    for terminal in ("T1", "T2"):
        table.place_wagers(terminal, {"blackjack": 1_000, "blazing_7s": 100})
    events = stacked_deal(table, "7H 7D TD 7D 7H 9S 7H 7D")
    events += table.act("T1", Action.HIT, 0)
    events += table.act("T2", Action.HIT, 0)
    won = [(e.seat, e.line, e.percent) for e in events if type(e) is ProgressiveWon]
    assert won == [(1, "Three 7's Same Color", 10), (2, "Three 7's Same Color", 10)]
    awards = [(e.places, e.share, e.percent) for e in events if type(e) is MeterAwarded]
    assert awards == [(("T1",), 20_001, 10), (("T2",), 20_000, 10)]
    assert table.ledger.conserved()
    assert table.meters.meter(meter_id).balanced()


def test_meters_recover_from_the_log_exactly() -> None:
    sink = MemorySink()
    table = session(config(), sink)
    play_three_sevens(table)
    table.start_round()
    table.place_wagers("T1", {"blackjack": 1_000, "blazing_7s": 100})
    stacked_deal(table, "9H 5D 8C TS")
    specs = {mid: spec for mid, (_, spec) in meter_specs(table.config).items()}
    meter_events = [ev for _, ev in logged(sink) if type(ev).__module__.endswith("meters")]
    rebuilt = MeterBank.replay(specs, meter_events)
    assert rebuilt.snapshot() == table.meters.snapshot()


def test_linked_tables_feed_one_meter() -> None:
    """Two tables naming meter "floor:blazing" share it: both tables' wagers feed it."""
    bank = MeterBank()
    linked = BLAZING.replace(
        'meter_increment = "7.5%"\n', 'meter_increment = "7.5%"\nmeter = "floor:blazing"\n'
    )
    text = example_config_path().read_text(encoding="utf-8") + "\n" + linked
    first = session(parse_config(text), MemorySink(), bank)
    second = session(
        parse_config(text.replace('id = "BJ-01"', 'id = "BJ-02"', 1)), MemorySink(), bank
    )
    assert list(meter_specs(first.config)) == ["floor:blazing"] == list(meter_specs(second.config))
    for table in (first, second):
        table.start_round()
        table.place_wagers("T1", {"blackjack": 1_000, "blazing_7s": 100})
        stacked_deal(table, "9H 5D 8C TS")
    assert bank.meter("floor:blazing").amount == 200_000_000 + 2 * 7_500


def test_a_restarted_server_resumes_the_meters_from_its_log(tmp_path: Any) -> None:
    """The meters are the fold of the log: after a restart they hold exactly what they held,
    and ``etg verify``'s replay of every round agrees."""
    from game_server.eventlog import system_clock
    from game_server.keys import init_keys
    from game_server.recall.verify import verify_log
    from game_server.table.recovery import open_table

    certs = tmp_path / "keys"
    init_keys(certs)
    db = tmp_path / "table.db"
    cfg = config()
    seats = {"T1": 1, "T2": 2}
    seeds = simulation_seeds(3, cfg.table_id)
    table = open_table(cfg, db, certs, seats, clock=system_clock, seeds=seeds)
    for terminal in seats:
        table.cash_in(terminal, 100_000, "test")
    for _ in range(4):
        table.start_round()
        for terminal in seats:
            table.place_wagers(terminal, {"blackjack": 1_000, "blazing_7s": 100})
        table.deal()
        while table.round is not None and table.round.to_act is not None:
            game = table.round
            hand = game.to_act
            assert hand is not None
            table.act(table.terminal_of[hand.seat], Action.STAND, hand.index)
    before = table.meters.snapshot()
    assert next(iter(before.values()))["wagered"] == 800  # 8 wagers of $1 fed the meter
    wallets = dict(table.ledger.wallets)
    table.sink.close()  # type: ignore[attr-defined]  # the EventLog
    again = open_table(cfg, db, certs, seats, clock=system_clock, seeds=seeds)
    assert again.meters.snapshot() == before
    assert again.ledger.wallets == wallets and again.ledger.conserved()
    again.sink.close()  # type: ignore[attr-defined]
    from game_server.eventlog import EventLogReader
    from game_server.keys import load_public_key, load_sealing_key

    with EventLogReader.open(db) as reader:
        report = verify_log(reader, load_public_key(certs), sealing_key=load_sealing_key(certs))
        assert report.ok, report.failures
        from game_server.recall.query import recall_round

        timeline = recall_round(reader, 1, cfg.table_id)
    fed = [e for e in timeline.entries if e.kind == "meter_contributed"]
    assert [e.who for e in fed] == ["T1", "T2"]
    assert all("$1.00 wager feeds meter" in e.text for e in fed)
    assert fed[0].data["increment"] == 7_500  # 7.5% of $1, in millicents


MYSTERY = (
    '[must_hit_by]\nconfiguration = "A"\nminimum_wager = "1.00"\nqualifying = ["blazing_7s"]\n'
)


def test_must_hit_by_meter_opens_with_a_secret_trigger_and_pays_the_crossing_player() -> None:
    """633b.14(c)(3): a trigger drawn between the minimum and maximum by the table's DRBG;
    the qualifying contribution that takes the meter past it wins 100% of the meter (c)(7);
    the meter resets to the minimum and a new trigger is drawn. The trigger never reaches
    a terminal's view."""
    from game_server.rules.meters import MysteryAwarded, MysteryTriggerDrawn

    sink = MemorySink()
    table = session(config(MYSTERY), sink)
    mystery_id = "BJ-01:must_hit_by"
    meter = table.meters.meter(mystery_id)
    trigger = meter.trigger
    assert trigger is not None and 10_000 <= trigger <= 20_000  # Configuration A, $1
    opened = [ev for _, ev in logged(sink) if type(ev) is MysteryTriggerDrawn]
    assert [ev.trigger for ev in opened] == [trigger]
    view = view_for(table, "T1")
    assert str(trigger) not in str([m for m in view["meters"] if m["wager"] == "must_hit_by"])
    # A linked table's players bring the meter to a few cents below its trigger (2% of the
    # qualifying wagers, Configuration A); then this table's $1 wagers add 2 cents a round.
    from game_server.rules.wagers import must_hit_by

    gap = trigger - meter.amount_cents - 5
    feed = must_hit_by.contribute(meter, gap * 50, "BJ-02/T9", table._draw)
    table.meters.commit(feed)
    assert not feed.paid and table.meters.meter(mystery_id).amount_cents == trigger - 5
    rounds = 0
    won: list[Any] = []
    while not won and rounds < 10:
        rounds += 1
        table.start_round()
        table.place_wagers("T1", {"blackjack": 1_000, "blazing_7s": 100})
        table.place_wagers("T2", {"blackjack": 1_000})  # no qualifying wager: no contribution
        events = stacked_deal(table, "9H 9D 5C 8S TC TC TC TC")
        won = [e for e in events if type(e) is MysteryAwarded]
        while table.round is not None and table.round.to_act is not None:
            hand = table.round.to_act
            table.act(table.terminal_of[hand.seat], Action.STAND, hand.index)
        for terminal in ("T1",):
            if table.ledger.wallets[terminal] < 5_000:
                table.cash_in(terminal, 100_000, "top up")
    (award,) = won
    assert rounds == 3  # 2 cents a round from trigger - 5: the third round crosses
    assert award.place == "T1" and award.paid == trigger + 1 and award.trigger == trigger
    after = table.meters.meter(mystery_id)
    assert after.amount_cents == 10_000 and after.trigger is not None
    # A new trigger was drawn after the hit (the trigger may repeat by chance: count draws).
    drawn = [ev for _, ev in logged(sink) if type(ev) is MysteryTriggerDrawn]
    assert len(drawn) == 2 and drawn[-1].trigger == after.trigger
    assert table.ledger.conserved() and after.balanced()


def test_must_hit_by_config_is_checked_against_633b14() -> None:
    from game_server.config import ConfigError

    bad = MYSTERY.replace('"A"', '"E"')
    with pytest.raises(ConfigError, match=r"633b\.14\(c\)\(4\)"):
        config(bad)
    unoffered = MYSTERY.replace('["blazing_7s"]', '["axman"]')
    with pytest.raises(ConfigError, match=r"633b\.14\(c\)\(1\)"):
        config(unoffered)
    good = config(MYSTERY)
    assert good.must_hit_by is not None
    from game_server.config import config_from_dict

    assert config_from_dict(good.to_dict()) == good


def test_super_4_mystery_configuration_feeds_its_own_mystery_meter() -> None:
    """633b.6(j): with a mystery configuration selected, every Super 4 wager feeds a mystery
    meter opened at the configuration's reseed with a trigger up to its must-hit-by amount."""
    super_4 = (
        '[wagers.super_4]\npaytable = "Paytable 1\\u2014Option 1"\nmin = "5.00"\n'
        'max = "5.00"\nmystery = 3\n'
    )
    table = session(config(super_4), MemorySink())
    mystery_id = "BJ-01:super_4:mystery"
    assert mystery_id in table.meter_specs
    meter = table.meters.meter(mystery_id)
    assert meter.amount_cents == 10_000 and meter.trigger is not None
    assert 10_000 <= meter.trigger <= 20_000  # Configuration 3: $100 reseed, must hit by $200
    table.start_round()
    table.place_wagers("T1", {"blackjack": 1_000, "super_4": 500})
    stacked_deal(table, "9H 5D 8C TS TC TC")
    # 2% of $5 = 10 cents
    assert table.meters.meter(mystery_id).amount == 10_000_000 + 10_000
