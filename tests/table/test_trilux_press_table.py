"""The TriLux Deluxe Press at the table (633b.11(f)-(h)): offered in the view only when the
credits can pay it, debited from the credits like a double, and settled with the hand."""

from __future__ import annotations

from game_server.config import example_config_path, parse_config
from game_server.games.blackjack.rules.actions import Action
from game_server.games.blackjack.rules.events import WagerPlaced, WagerSettled
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.views import view_for
from game_server.rng.shoe import StackedShoe
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds

TRILUX = '[wagers.trilux]\nmin = "1.00"\nmax = "100.00"\npress = true\n'
CONFIG = parse_config(example_config_path().read_text(encoding="utf-8") + "\n" + TRILUX)


def dealt(credits: int) -> TableSession:
    """T1: Blackjack $10, TriLux $1; 7H 9H with the dealer's 8H up: a straight flush, 25 to 1
    on 6 decks (Paytable TLX-3); the dealer holds 8H TC (18)."""
    shoes = SealedShoes(CONFIG, simulation_seeds(1, CONFIG.table_id), bytes(32), "k")
    table = TableSession(CONFIG, MemorySink(), shoes, {"T1": 1})
    table.open()
    table.cash_in("T1", credits, "test")
    table.start_round()
    table.place_wagers("T1", {"blackjack": 1_000, "trilux": 100})
    real, table.shoe = table.shoe, StackedShoe("7H 8H 9H TC")
    table.deal()
    table.shoe = real
    return table


def test_press_the_winnings_then_lose_the_hand() -> None:
    table = dealt(1_100)
    # The straight flush paid $26.00 (stake back + $25.00): the credits cover the Press.
    assert table.ledger.wallets["T1"] == 2_600
    assert "press" in view_for(table, "T1")["actions"]
    events = table.act("T1", Action.PRESS, 0)
    assert [e for e in events if type(e) is WagerPlaced] == [
        WagerPlaced(1, 0, "trilux_press", 2_500)
    ]
    assert table.ledger.wallets["T1"] == 100
    assert "press" not in view_for(table, "T1")["actions"]  # once only, first decision
    events = table.act("T1", Action.STAND, 0)  # 16 against the dealer's 18
    settled = {e.wager: e for e in events if type(e) is WagerSettled}
    assert settled["trilux_press"].paid == 0 and settled["blackjack"].paid == 0
    assert table.ledger.wallets["T1"] == 100 and table.ledger.conserved()


def test_a_split_after_a_press_must_match_the_pressed_portion_too() -> None:
    """633b.11(h): the new hand matches the initial wager and the pressed portion, so the
    split is offered only when the credits cover both."""
    for credits, offered in ((1_100, False), (3_600, True)):
        shoes = SealedShoes(CONFIG, simulation_seeds(1, CONFIG.table_id), bytes(32), "k")
        table = TableSession(CONFIG, MemorySink(), shoes, {"T1": 1})
        table.open()
        table.cash_in("T1", credits, "test")
        table.start_round()
        table.place_wagers("T1", {"blackjack": 1_000, "trilux": 100})
        real, table.shoe = table.shoe, StackedShoe("8H 8D 8H TC 3C 4D TS TS")
        table.deal()  # 8H 8H with the 8D up: three of a kind, 15 to 1
        table.shoe = real
        table.act("T1", Action.PRESS, 0)  # presses the $15.00 winnings
        assert table.round is not None and table.round.split_cost(1, 0) == 2_500
        assert ("split" in view_for(table, "T1")["actions"]) is offered
        assert table.ledger.conserved()
