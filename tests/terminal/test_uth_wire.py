"""An Ultimate Texas Hold 'Em round (58 Pa. Code 653a) played by the terminal's own AMP
client (terminal_client.net) through the real table server factory over the real
:class:`~game_server.games.uth.machine.UthMachine`, in memory with a fake clock: the
PlaceWagers the betting screen sends, the Act each decision button sends (``"bet"`` with the
Play multiple as ``amount``), and the views pushed back reaching the screens."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from client_helpers import MemoryTable
from test_uth_model import Table
from twisted.application.internet import backoffPolicy

from game_server.net.floor import FloorConfig
from game_server.net.server import TableServerFactory
from terminal_client.games.uth.model import uth_of
from terminal_client.games.uth.screens import UthBettingScreen, UthPlayScreen, UthResultsScreen
from terminal_client.input import Tap
from terminal_client.model import ConnectionState, TerminalModel
from terminal_client.net import TerminalClient
from terminal_client.screens import screen_for

NO_JITTER: Callable[[int], float] = backoffPolicy(
    initialDelay=0.5, maxDelay=10, factor=2, jitter=lambda: 0
)

pytestmark = pytest.mark.usefixtures("headless")


class UthWire(MemoryTable):
    """:class:`MemoryTable`'s in-memory endpoint, serving a UTH machine (T1 at seat 1)."""

    def __init__(self, table: Table) -> None:
        super().__init__()
        self.table = table
        self.clock = table.clock
        self.factory = TableServerFactory(
            table.machine, FloorConfig(terminals={"T1": 1}), table.clock, self._identify
        )


def test_a_whole_round_over_amp_from_the_screens() -> None:
    """The betting screen's Ante tap and DEAL reach the machine as one PlaceWagers of the
    Ante and the equal Blind; the pushed views deal the cards; BET 4X reaches it as Act
    ("bet", hand 0, amount 4) and stakes 4 times the Ante; the round settles and the
    results screen shows it."""
    table = Table()
    wire = UthWire(table)
    model = TerminalModel()
    client = TerminalClient(wire, model, table.clock, retry_policy=NO_JITTER)
    client.start()
    wire.flush()
    assert model.connection.state is ConnectionState.CONNECTED
    assert uth_of(model) is not None and model.last_error is None
    screen = screen_for(model)(model, client)
    assert isinstance(screen, UthBettingScreen)
    screen.handle(Tap("chip:500"))
    screen.handle(Tap("spot:ante"))
    screen.handle(Tap("button:deal"))
    wire.flush()
    assert model.last_error is None, model.last_error
    game = table.session.round
    assert game is not None and game.seats[1].wagers == {"ante": 500, "blind": 500}
    table.expire()  # the betting window ends: the deal
    wire.flush()
    assert uth_of(model) is not None and uth_of(model).street == "preflop", model.view
    assert len(uth_of(model).hole) == 2 and uth_of(model).dealer.cards == (None, None)
    screen = screen_for(model)(model, client)
    assert isinstance(screen, UthPlayScreen)
    assert screen.handle(Tap("button:bet-4")) is not None
    wire.flush()
    assert model.last_error is None, model.last_error
    assert game.seats[1].play_multiple == 4 and game.seats[1].wagers["play"] == 2_000
    for _ in range(3):  # the flop and river wait for nobody: the round settles
        if uth_of(model) is not None and uth_of(model).results_current:
            break
        table.expire()
        wire.flush()
    assert uth_of(model) is not None and uth_of(model).results_current
    assert screen_for(model) is UthResultsScreen
    assert {"ante", "blind", "play"} <= {s.wager for s in model.results}
