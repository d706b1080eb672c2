"""Money is conserved across every wager, the progressive meters and their reserves
(docs/design.md "Money"): whatever the players wager, with every side wager of 633b.6-633b.13 and
the Must-Hit-By Mystery Bonus offered, after every round

    credits in = credits out + wallets + wagers in play + house result - progressive paid

and each meter's books balance (what fed it + what the house funded = its amount + reserve +
what it paid), no meter is below its reset amount, and the meters recovered from the log
equal the live ones. Hypothesis picks the wagers, the seeds and the cash-outs."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_server.config import example_path, parse_config
from game_server.games.blackjack.rules.strategy import BasicStrategy
from game_server.games.blackjack.session import TableSession, meter_specs
from game_server.games.blackjack.sim import play_bots, table_wagers
from game_server.rules.events import from_dict
from game_server.rules.meters import METER_EVENTS, MeterBank
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds

PATH = example_path("fully-automated-all-side-wagers.toml")
TEXT = (
    PATH.read_text(encoding="utf-8")
    + '\n[must_hit_by]\nconfiguration = "A"\nminimum_wager = "1.00"\nqualifying = ["blazing_7s"]\n'
)
CONFIG = parse_config(TEXT)
FULL = table_wagers(CONFIG.rules, 2_500)
SIDE = sorted(set(FULL) - {"blackjack"})
TERMINALS = {f"T{n}": n for n in range(1, 8)}
STRATEGY = BasicStrategy(CONFIG.rules)

seat_wagers = st.lists(st.sampled_from(SIDE), unique=True, max_size=len(SIDE))
plays = st.lists(
    st.tuples(st.integers(1, 7), st.lists(seat_wagers, min_size=7, max_size=7), st.booleans()),
    min_size=1,
    max_size=3,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**16), rounds=plays)
def test_money_and_meters_balance_after_every_round(seed: int, rounds: Any) -> None:
    sink = MemorySink()
    shoes = SealedShoes(CONFIG, simulation_seeds(seed, CONFIG.table_id), bytes(32), "k")
    table = TableSession(CONFIG, sink, shoes, TERMINALS)
    table.open()
    for terminal in TERMINALS:
        table.cash_in(terminal, 500_000, "test")
    for seats_playing, choices, cash_out in rounds:
        table.start_round()
        for number in range(1, seats_playing + 1):
            wagers = {"blackjack": FULL["blackjack"]}
            for name in choices[number - 1]:
                if all(r in wagers for r in CONFIG.rules.offers[name].wager.requires):
                    wagers[name] = FULL[name]
                elif name == "top_3":
                    wagers["three_card_poker"] = FULL["three_card_poker"]
                    wagers[name] = FULL[name]
            table.place_wagers(f"T{number}", wagers)
        table.deal()
        play_bots(table, STRATEGY)
        if cash_out and table.ledger.wallets.get("T1", 0) > 0:
            table.cash_out("T1", None, "test")
            table.cash_in("T1", 500_000, "back again")
        ledger = table.ledger
        assert ledger.conserved()
        for meter_id in table.meter_specs:
            meter = table.meters.meter(meter_id)
            assert meter.balanced()
            assert meter.amount >= meter.spec.reseed * 1000
    specs = {mid: spec for mid, (_, spec) in meter_specs(CONFIG).items()}
    events = [
        from_dict(e.body)
        for step in sink.steps
        for e in step
        if e.body["kind"] in {cls.kind for cls in METER_EVENTS}  # type: ignore[attr-defined]
    ]
    assert MeterBank.replay(specs, events).snapshot() == table.meters.snapshot()
