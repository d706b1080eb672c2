"""The terminal's model of an Ultimate Texas Hold 'Em table's view (58 Pa. Code 653a), read
from views the real server code builds: a :class:`~game_server.games.uth.machine.UthMachine`
over a :class:`~game_server.games.uth.session.UthSession` on a MemorySink, seeded sealed
shoes and a ``task.Clock``, whose views come from
:func:`~game_server.games.uth.views.uth_view_for`; and from the example view of that
module's docstring.

The builders here (:class:`Table`, :func:`model_of`, :func:`round_at`, :data:`EXAMPLE`) are
also used by the UTH screen tests.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from twisted.internet.task import Clock

from game_server.config import example_path, load_config
from game_server.games.uth.machine import UthMachine, UthState
from game_server.games.uth.session import UthSession
from game_server.table.session import MemorySink, SealedShoes, simulation_seeds
from terminal_client.games.hybrid.model import hybrid_of
from terminal_client.games.uth.model import Decision, parse_uth_view, uth_of
from terminal_client.model import ConnectionState, TerminalModel
from terminal_client.model.view import MalformedView, ViewVersionError

CONFIG = load_config(example_path("uth.toml"))
KEY = bytes(range(32))
SEATS = {"T1": 1, "T2": 2, "T3": 3}
#: The minimum Ante and its Blind (uth.toml: $5), with every side and bonus wager.
ALL_WAGERS = {
    "ante": 500,
    "blind": 500,
    "trips": 500,
    "progressive": 100,
    "five_card_player": 100,
    "five_card_dealer": 500,
}
MAIN = {"ante": 500, "blind": 500}

#: The example view of game_server/table/uth_views.py's docstring (seat 2 on the flop,
#: having checked preflop; the dealer and seat 4 hidden).
EXAMPLE: dict[str, Any] = {
    "v": 1,
    "game": "uth",
    "table": "uth-1",
    "state": "open",
    "machine": "deciding",
    "round": 12,
    "phase": "flop",
    "terminal": "T2",
    "seat": 2,
    "credits": 48500,
    "limits": {
        "ante": {"min": 500, "max": 50000},
        "blind": {"equals": "ante"},
        "trips": {"min": 500, "max": 50000},
        "progressive": {"amounts": [100, 500]},
        "five_card_player": {"amounts": [100, 500]},
        "five_card_dealer": {"amounts": [100, 500]},
    },
    "chips": [100, 500, 2500, 10000],
    "countdown": {"for": "decision", "seconds_left": 12, "then": "check"},
    "to_act": [2, 4],
    "actions": ["bet", "check"],
    "settlements": [],
    "meters": [{"wager": "progressive", "name": "Progressive Payout", "amount": 1000000}],
    "uth": {
        "seats": [
            {
                "seat": 2,
                "mine": True,
                "wagers": {"ante": 500, "blind": 500, "trips": 500},
                "status": "waiting",
                "play_multiple": 0,
                "cards": ["AS", "KD"],
                "hand": None,
            },
            {
                "seat": 4,
                "mine": False,
                "wagers": {"ante": 1000, "blind": 1000, "play": 4000},
                "status": "played",
                "play_multiple": 4,
                "cards": [{"hidden": True}, {"hidden": True}],
                "hand": None,
            },
        ],
        "hole": ["AS", "KD"],
        "board": ["2C", "7H", "KS"],
        "dealer": {
            "cards": [{"hidden": True}, {"hidden": True}],
            "revealed": False,
            "hand": None,
            "qualifies": None,
        },
        "legal": [{"action": "check"}, {"action": "bet", "multiples": [2], "amounts": [1000]}],
        "magic_card": None,
        "lucky_position": None,
    },
}


# Builders --------------------------------------------------------------------------------------


class Table:
    """A UTH machine with its clock; T1, T2 and T3 hold seats 1 to 3 and $10,000 each."""

    def __init__(self, seed: int = 5) -> None:
        shoes = SealedShoes(CONFIG, simulation_seeds(seed, CONFIG.table_id), KEY, "test-key")
        self.session = UthSession(CONFIG, MemorySink(), shoes, SEATS)
        self.session.open()
        self.clock = Clock()
        self.machine = UthMachine(self.session, self.clock, next_round_delay=5.0)
        for terminal in SEATS:
            self.machine.cash_in(terminal, 1_000_000, "test")
        self.machine.open()

    def view(self, terminal: str = "T1") -> dict[str, Any]:
        return self.machine.view(terminal)

    def deal(self, bets: dict[str, dict[str, int]]) -> None:
        """Place ``bets`` (terminal -> wagers) and let the betting window run out."""
        assert self.machine.machine_state is UthState.BETTING
        for terminal, wagers in bets.items():
            self.machine.place_wagers(terminal, wagers)
        self.expire()

    def expire(self) -> None:
        """Let the running countdown run out."""
        seconds = self.machine.seconds_left()
        assert seconds is not None
        self.clock.advance(seconds)

    def act(self, terminal: str, action: str, multiple: int = 0) -> None:
        self.machine.act(terminal, action, 0, multiple)

    def to_next_round(self) -> None:
        while self.machine.machine_state is not UthState.BETTING:
            self.expire()


def model_of(*views: dict[str, Any]) -> TerminalModel:
    """A connected model that took ``views`` in order."""
    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    for view in views:
        model.apply_view(view)
    return model


def round_at(street: str, seed: int = 5) -> Table:
    """A table where T1 (all wagers) and T2 (Ante and Blind) were dealt and everybody
    checked up to ``street`` ("preflop", "flop", "river"); T1 still to decide on it."""
    table = Table(seed)
    table.deal({"T1": ALL_WAGERS, "T2": MAIN})
    for step in ("preflop", "flop"):
        if street == step:
            break
        table.act("T1", "check")
        table.act("T2", "check")
    assert table.view()["phase"] == street
    return table


def completed(seed: int = 5, t1: tuple[str, int] = ("bet", 4)) -> Table:
    """A table whose round settled: T1 (all wagers) decided ``t1`` preflop (checks then bets
    1x at the river otherwise), T2 checked and folded."""
    table = round_at("preflop", seed)
    table.act("T1", *t1)
    table.act("T2", "check")
    if t1[0] == "check":
        table.act("T1", "check")
    table.act("T2", "check")
    if t1[0] == "check":
        table.act("T1", "bet", 1)
    table.act("T2", "fold")
    assert table.view()["phase"] == "complete"
    return table


# The server's views ------------------------------------------------------------------------------


def test_the_docstring_example_reads_as_documented() -> None:
    """653a: the example view reads into the table's cards, the decisions with their Play
    multiples and the common view (this seat to act, the wagers, the fixed amounts)."""
    uth = parse_uth_view(EXAMPLE)
    assert uth.hole == ("AS", "KD")
    assert uth.board == ("2C", "7H", "KS")
    assert uth.dealer.cards == (None, None) and not uth.dealer.revealed
    assert uth.legal == (Decision("check"), Decision("bet", 2, 1000))
    assert uth.street == "flop" and uth.to_act == (2, 4)
    assert [s.seat for s in uth.seats] == [2, 4]
    assert uth.seats[1].cards == (None, None) and uth.seats[1].play_multiple == 4
    assert uth.amounts["progressive"] == (100, 500)
    view = uth.view
    assert view.seat == 2 and view.my_turn and view.to_act == (2, 0)
    assert view.limits["blind"] == view.limits["ante"]
    assert view.limits["five_card_dealer"].minimum == 100
    assert view.my_seat is not None and dict(view.my_seat.wagers)["trips"] == 500
    assert view.dealer.cards == (None, None)
    assert view.meters[0].amount == 1_000_000


def test_the_model_picks_the_uth_reader_by_the_views_game() -> None:
    """A view with ``"game": "uth"`` is a UTH view; the next Blackjack view is not."""
    from client_helpers import _VIEW

    model = model_of(EXAMPLE)
    assert uth_of(model) is not None and hybrid_of(model) is None and model.last_error is None
    assert model.my_turn and model.hand_to_act == 0
    model.apply_view(copy.deepcopy(_VIEW))
    assert uth_of(model) is None and model.view is not None and model.last_error is None


def test_betting_view_of_the_server() -> None:
    """Before the deal: the offered wagers' limits (the Blind equal to the Ante, the fixed
    amounts of the Progressive and Five Card Hand Bonus, 653a.12(d), (e)), no cards."""
    table = Table()
    uth = parse_uth_view(table.view())
    assert uth.view.machine == "betting" and uth.view.phase == "betting"
    assert not uth.joined and uth.hole == () and uth.board == ()
    assert uth.view.limits["ante"].minimum == 500
    assert uth.view.limits["blind"] == uth.view.limits["ante"]
    assert uth.amounts == {
        "progressive": (100, 500),
        "five_card_player": (100, 500),
        "five_card_dealer": (100, 500),
    }
    table.machine.place_wagers("T1", ALL_WAGERS)
    uth = parse_uth_view(table.view())
    assert uth.joined and dict(uth.wagers) == ALL_WAGERS and uth.me is not None
    assert uth.me.status == "betting"


@pytest.mark.parametrize("street", ["preflop", "flop", "river"])
def test_each_streets_view_gives_the_engines_decisions(street: str) -> None:
    """On each street the decisions read are exactly the engine's for the seat (the Play
    multiples of 653a.7 per regs-653a.md), the dealer's cards are face down and the other
    seats' cards hidden; only this terminal's own two cards are shown."""
    table = round_at(street)
    uth = parse_uth_view(table.view("T1"))
    game = table.session.round
    assert game is not None
    engine = {
        (str(a).replace("play", "bet"), m) for a, m in game.legal_actions(table.session.seats["T1"])
    }
    assert {(d.action, d.multiple) for d in uth.legal} == engine
    assert uth.view.my_turn and uth.street == street
    assert uth.dealer.cards == (None, None)
    assert uth.hole == tuple(str(c) for c in game.seats[1].cards)
    other = next(s for s in uth.seats if s.seat == 2)
    assert other.cards == (None, None)
    assert len(uth.board) == {"preflop": 0, "flop": 3, "river": 5}[street]
    assert (uth.my_hand is not None) == (street == "river")
    for d in uth.legal:
        if d.action == "bet":
            assert d.amount == 500 * d.multiple


def test_a_decided_seat_has_no_decision_and_the_play_wager_shows() -> None:
    """Once T1 bets 4x preflop it has no decision left on any street, its Play Wager is
    4 times the Ante on its seat."""
    table = round_at("preflop")
    table.act("T1", "bet", 4)
    uth = parse_uth_view(table.view("T1"))
    assert uth.legal == () and not uth.view.my_turn
    assert uth.play_multiple == 4 and uth.wagers["play"] == 2_000
    table.act("T2", "check")
    uth = parse_uth_view(table.view("T1"))
    assert uth.street == "flop" and uth.legal == () and uth.play_multiple == 4


def test_the_completed_round_shows_every_hand_and_the_settlements() -> None:
    """653a.12: after the river the dealer is revealed with its best five and whether it
    qualifies, every seat's cards and hand are shown, and T1's settlements (Ante, Blind,
    Play, Trips, Progressive, Five Card Hand Bonus ...) are of the round shown."""
    table = completed()
    uth = parse_uth_view(table.view("T1"))
    assert uth.view.phase == "complete" and uth.showdown
    assert uth.dealer.revealed and None not in uth.dealer.cards
    assert uth.dealer.hand is not None and len(uth.dealer.hand.five) == 5
    assert uth.dealer.qualifies is not None
    assert all(s.hand is not None and None not in s.cards for s in uth.seats)
    wagers = {s.wager for s in uth.view.settlements}
    assert {"ante", "blind", "play", "trips", "progressive"} <= wagers
    assert {"five_card_player", "five_card_dealer"} <= wagers
    assert uth.results_current and uth.settled_round == uth.view.round
    assert any(s.line for s in uth.view.settlements)
    table.expire()  # the next round's betting: the last results are not the round shown
    uth = parse_uth_view(table.view("T1"))
    assert uth.view.machine == "betting" and not uth.joined


# Refusals ----------------------------------------------------------------------------------------


def _bad(change: Any) -> dict[str, Any]:
    view = copy.deepcopy(EXAMPLE)
    change(view)
    return view


MALFORMED = {
    "no uth block": lambda v: v.pop("uth"),
    "a hole card that is not a card": lambda v: v["uth"].__setitem__("hole", ["AS", "XX"]),
    "four community cards": lambda v: v["uth"].__setitem__("board", ["2C", "7H", "KS", "9D"]),
    "a revealed dealer still hidden": lambda v: v["uth"]["dealer"].__setitem__("revealed", True),
    "a bet without multiples": lambda v: v["uth"]["legal"][1].pop("multiples"),
    "an unknown action": lambda v: v.__setitem__("actions", ["raise"]),
    "no Ante in the limits": lambda v: v["limits"].pop("ante"),
    "a Blind equal to nothing": lambda v: v["limits"]["blind"].__setitem__("equals", "x"),
    "credits as text": lambda v: v.__setitem__("credits", "485.00"),
    "a Play multiple of 5": lambda v: v["uth"]["seats"][1].__setitem__("play_multiple", 5),
    "two seats marked mine": lambda v: v["uth"]["seats"][1].__setitem__("mine", True),
    "settlements of two rounds": lambda v: v.__setitem__(
        "settlements",
        [
            {
                "round": r,
                "wager": "ante",
                "stake": 500,
                "paid": 0,
                "from_meter": 0,
                "outcome": "lost",
                "line": "",
            }
            for r in (11, 12)
        ],
    ),
}


@pytest.mark.parametrize("change", list(MALFORMED.values()), ids=list(MALFORMED))
def test_a_malformed_view_is_refused_with_a_reason(change: Any) -> None:
    """A view that is not the documented shape raises MalformedView naming the problem."""
    with pytest.raises(MalformedView, match="cannot read"):
        parse_uth_view(_bad(change))


def test_a_malformed_view_is_a_notice_and_the_last_good_view_stays() -> None:
    """The model keeps the last good UTH view and records a MALFORMED_VIEW notice."""
    model = model_of(EXAMPLE)
    good = uth_of(model)
    model.apply_view(_bad(MALFORMED["a hole card that is not a card"]))
    assert uth_of(model) is good and model.view is not None and model.view is good.view
    assert model.last_error is not None and model.last_error.code == "MALFORMED_VIEW"


def test_a_view_of_another_version_needs_an_update() -> None:
    """``"v": 2`` puts the terminal in NEEDS_UPDATE."""
    view = copy.deepcopy(EXAMPLE)
    view["v"] = 2
    with pytest.raises(ViewVersionError):
        parse_uth_view(view)
    model = model_of(view)
    assert model.needs_update and uth_of(model) is None
