"""``etg verify`` folds a progressive meter's award into the wallets exactly as the table's own
``Ledger`` does (``Game.new_ledger``): at a Blackjack table a ``meter_awarded`` (a local
Blazing 7's meter, 633b.9) and a ``mystery_awarded`` (a Must-Hit-By meter, 633b.14(c)(7))
credit the places they name, so every ``round_closed`` balance and the conservation of
credits hold on the log the live table's session wrote.

The log is ``etg sim --log``'s (the live table's session, sealed shoes from a simulation
seed); the seed and round count were found by search so that the log holds both awards."""

from __future__ import annotations

from collections import Counter
from contextlib import closing
from pathlib import Path

import pytest
from verify_helpers import make_keys

from game_server.config import example_config_path, parse_config
from game_server.eventlog import EventLogReader
from game_server.keys import load_public_key, load_sealing_key
from game_server.recall.verify import verify_log
from game_server.rules.events import from_dict
from game_server.simlog import run_logged_sim
from game_server.table.ledger import Ledger

BLAZING_AND_MYSTERY = """
[wagers.blazing_7s]
paytable = "Paytable A"
min = "1.00"
max = "1.00"
meter_seed = "2000.00"
meter_reseed = "2000.00"
meter_increment = "7.5%"

[must_hit_by]
configuration = "A"
minimum_wager = "1.00"
qualifying = ["blazing_7s"]
"""
#: A simulation seed whose 120 rounds at 7 seats hold a Blazing 7's award (a local meter)
#: and a Must-Hit-By award (found by searching seeds 1..200 with the session in memory).
SEED, ROUNDS, SEATS = 58, 120, 7


@pytest.fixture(scope="module")
def awarded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Ledger]:
    directory = tmp_path_factory.mktemp("awards")
    certs = make_keys(directory / "certs")
    config = parse_config(example_config_path().read_text() + BLAZING_AND_MYSTERY)
    db = directory / "table.db"
    table = run_logged_sim(config, db, certs, rounds=ROUNDS, seats=SEATS, seed=SEED)
    return db, certs, table.ledger


def test_a_blackjack_log_with_local_and_mystery_awards_folds_as_the_ledger(
    awarded: tuple[Path, Path, Ledger],
) -> None:
    db, certs, ledger = awarded
    with closing(EventLogReader.open(db)) as reader:
        events = [from_dict(e.body) for e in reader.iter_events()]
        report = verify_log(reader, load_public_key(certs), sealing_key=load_sealing_key(certs))
    kinds = Counter(ev.kind for ev in events)
    assert kinds["meter_awarded"] >= 1 and kinds["mystery_awarded"] >= 1
    paid = sum(ev.share * len(ev.places) for ev in events if ev.kind == "meter_awarded")
    paid += sum(ev.paid for ev in events if ev.kind == "mystery_awarded")
    # The live table's Ledger paid the awards into the wallets (none through a settlement)...
    assert ledger.progressive_paid == paid > 0
    # ...and verify's fold agrees with every balance the log states, and with conservation.
    assert report.ok, [f.to_json() for f in report.failures]
    closing_balances = {}
    for ev in events:
        if ev.kind == "round_closed":
            closing_balances.update(zip(ev.terminals, ev.balances, strict=True))
    assert closing_balances == ledger.wallets
