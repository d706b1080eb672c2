"""Every game's wagers are whole multiples of its wager unit: the platform's check, one
sentence for every table (a Caribbean Stud Ante of $5.01 was taken; Four Card Poker and
Spanish 21 refused it), for every registered game."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

import pytest
from high_card.game import GAME as HIGH_CARD
from secrecy_worlds import Input, World
from test_secrecy_every_exit import EXAMPLES

from game_server import games
from game_server.config import load_config
from game_server.games.api import Game
from game_server.keys import init_keys
from game_server.rules.errors import BetOutOfLimits
from shared.money import format_money


@pytest.mark.parametrize(("game", "path"), EXAMPLES)
def test_a_wager_off_the_unit_is_refused_with_the_platforms_sentence(
    game: Game, path: Path, tmp_path: Path
) -> None:
    """The bot's own first wagers, one of them a cent more, are refused before anything is
    logged, naming the wager and the unit; the wagers as the bot chose them are taken."""
    keys = tmp_path / "keys"
    init_keys(keys)
    with games.registered(HIGH_CARD) if game is HIGH_CARD else nullcontext():
        config = load_config(path)
        world = World(game, config, tmp_path / "A", keys, seed=3)
        try:
            placed = None
            for _ in range(50):
                placed = next((i for i in world.play() if i.op == "place_wagers"), None)
                if placed is not None:
                    break
            assert placed is not None and not placed.refused, "the bot placed no wager"
            wagers, position = placed.args
        finally:
            world.close()
        again = World(game, config, tmp_path / "B", keys, seed=3)
        try:
            for _ in range(50):
                if again.in_play:
                    break
                again.apply(Input(None, "tick", (1.0,)))
            unit = config.rules.wager_unit
            name = next(iter(wagers))
            off = {**wagers, name: wagers[name] + 1}
            before = again.log.head.seq
            with pytest.raises(BetOutOfLimits) as refused:
                again.machine.place_wagers("T1", off, position)
            assert str(refused.value) == (
                f"{name} wager {format_money(off[name])} is not a multiple of the wager unit "
                f"{format_money(unit)}"
            )
            assert again.log.head.seq == before
            again.machine.place_wagers("T1", wagers, position)
            assert again.log.head.seq > before
        finally:
            again.close()
