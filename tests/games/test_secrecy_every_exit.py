"""No exit shows a card its viewer may not see, for every registered game (a property).

The rule is the platform's (:mod:`game_server.table.secrecy`): a card dealt face down is seen
by nobody until the record that turns it up, a player's own card by that player's terminal
only, and the log and the floor store hold neither in clear while the round is in play. So
the test is the platform's too: every game the registry knows (the six built-in ones, with
every example Rules Submission, and the test-only High Card) gets it without writing it.

For each game: a table is played by bots (:mod:`secrecy_worlds`) for a few rounds, then one
round more, every input recorded (world A). For each viewer (the public: every staff role
and tool; each terminal) the same inputs are played again at a second table (world B) whose
shoe, once that round opened, holds the cards the viewer may not see swapped with cards
from the shoe's far end (cards no round reaches: "permute the face-down cards", and the
cards still in the shoe are face down too). After every step of that round, until one of
the swapped cards may be seen, every exit's output for that viewer is read in both worlds
(:func:`secrecy_worlds.exits`): the terminal's view as the wire carries it and its
``GetRecall``; the console's pages for every role; ``etg recall show/list/receipt``; the
recall pictures' views; the live demo's narration; the log's rows of the round in play. A
card, or anything computed from one, that leaks makes them differ.

A swap that changes what the table does in public (a Blackjack the dealer's peek would have
found) is not a leak: it is tried again with other cards from the shoe's end.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
import secrecy_worlds
from high_card.game import GAME as HIGH_CARD
from secrecy_worlds import TERMINALS, Input, World, exits

from game_server import games
from game_server.config import load_config
from game_server.games.api import Game
from game_server.keys import init_keys
from game_server.table.secrecy import PUBLIC, RoundSight

#: Rounds played before the round the test swaps cards in (recall has history to list).
WARM_UP = 2
#: Steps a round may take before the test gives up on it (a stuck table is a failure).
MAX_STEPS = 400
#: How many sets of cards from the shoe's end are tried before a round is given up.
TRIES = 6


def _every_game() -> Iterator[Any]:
    with games.registered(HIGH_CARD):
        found = [(game, path) for game in games.games() for path in game.examples]
    for game, path in found:
        yield pytest.param(game, path, id=f"{game.name}-{path.stem}")


EXAMPLES = list(_every_game())


class Run:
    """World A's record: every input, and at each step of the tested round the exits'
    outputs and which swapped-able positions each viewer may see."""

    def __init__(self) -> None:
        self.inputs: list[Input] = []
        #: Index in ``inputs`` where the tested round is open and not yet dealt.
        self.opened_at = 0
        self.round_id = 0
        #: Per step of the tested round: (inputs so far, exits, kinds logged so far).
        self.steps: list[tuple[int, dict[str, dict[str, str]], list[str]]] = []
        #: Viewer -> positions dealt in the round that viewer may not see at some step.
        self.hidden: dict[str, set[int]] = {}
        #: Per step: viewer -> positions it may see then.
        self.seen: list[dict[str, set[int]]] = []
        #: The last position the round dealt.
        self.last_dealt = -1


def _viewers() -> list[str]:
    return ["public", *TERMINALS]


def _viewer(name: str) -> str | None:
    return PUBLIC if name == "public" else name


def _kinds(world: World, round_id: int) -> list[str]:
    from game_server.eventlog import EventLogReader

    with EventLogReader.open(world.db) as reader:
        return [s.kind for s in reader.events_for_round(world.config.table_id, round_id)]


def _sight_positions(world: World) -> dict[str, set[int]]:
    sight = world.session.sight
    seen: dict[str, set[int]] = {}
    for name in _viewers():
        seen[name] = {
            position
            for position in sight._dealt  # the sight's own record of the round's cards
            if sight.can_see(position, _viewer(name))
        }
    return seen


def _play_a(game: Game, config: Any, folder: Path, keys: Path, seed: int) -> Run:
    run = Run()
    world = World(game, config, folder / "A", keys, seed)
    try:
        steps = 0
        while world.round_id < WARM_UP + 1 or not world.in_play:
            run.inputs += world.play()
            steps += 1
            assert steps < MAX_STEPS * (WARM_UP + 1), "the warm-up rounds did not finish"
        run.opened_at, run.round_id = len(run.inputs), world.round_id
        while world.in_play and world.round_id == run.round_id:
            run.inputs += world.play()
            sight = world.session.sight
            seen = _sight_positions(world)
            for name in _viewers():
                hidden = set(sight._dealt) - seen[name]
                run.hidden.setdefault(name, set()).update(hidden)
            run.seen.append(seen)
            run.steps.append(
                (len(run.inputs), exits(world, run.round_id).by_viewer, _kinds(world, run.round_id))
            )
            assert len(run.steps) < MAX_STEPS, "the tested round did not finish"
        run.last_dealt = max(world.session.sight._dealt, default=-1)
    finally:
        world.close()
    return run


def _swap(world: World, positions: set[int], run: Run, attempt: int) -> list[int]:
    """Swap each of ``positions`` in the open round's shoe with a card from the shoe's far
    end of another face (``attempt`` picks another set); the shoe's commitment is kept as it
    was (it is public, and the swapped shoe is the test's, not a dealt one)."""
    session = world.session
    shoe = session.shoe
    session._commitment(shoe)  # cached for the shoe object: the views keep showing it
    order = list(shoe.order)
    tail = [p for p in range(len(order) - 1, run.last_dealt, -1)]
    tail = tail[attempt:] + tail[:attempt]
    swapped = []
    for position in sorted(positions):
        for candidate in tail:
            if candidate not in swapped and order[candidate] != order[position]:
                order[position], order[candidate] = order[candidate], order[position]
                swapped.append(candidate)
                tail.remove(candidate)
                break
    shoe._order = tuple(order)
    return swapped


def _compare(game: Game, config: Any, folder: Path, keys: Path, seed: int, run: Run) -> int:
    """Play world B for each viewer and compare; the number of steps compared."""
    compared = 0
    for name in _viewers():
        positions = run.hidden.get(name, set())
        if not positions:
            continue
        for attempt in range(TRIES):
            world = World(game, config, folder / f"B-{name}-{attempt}", keys, seed)
            try:
                done = _replay_and_compare(world, run, name, positions, attempt)
            finally:
                world.close()
            if done is not None:
                compared += done
                break
        else:
            pytest.fail(f"no swap of {name}'s hidden cards kept the table's public course")
    return compared


def _replay_and_compare(
    world: World, run: Run, name: str, positions: set[int], attempt: int
) -> int | None:
    """World B for viewer ``name``: None when the swap changed the table's public course
    (try other cards), else the steps compared."""
    for step in run.inputs[: run.opened_at]:
        world.apply(step)
    _swap(world, positions, run, attempt)
    done = run.opened_at
    compared = 0
    for (upto, outputs, kinds), seen in zip(run.steps, run.seen, strict=True):
        for step in run.inputs[done:upto]:
            if world.apply(step) != step.refused:
                return None  # the swap changed what the table accepts
        done = upto
        if positions & seen[name]:
            break  # a swapped card may be seen from here on
        if _kinds(world, run.round_id) != kinds:
            return None  # the swap changed what the table did in public
        theirs = exits(world, run.round_id).by_viewer[name]
        for exit_name, output in outputs[name].items():
            assert theirs[exit_name] == output, (
                f"{exit_name} of {name} at step {len(run.inputs[:upto])} shows a card it may "
                f"not see (positions {sorted(positions)} swapped):\nA: {output[:2000]}\n"
                f"B: {theirs[exit_name][:2000]}"
            )
        compared += 1
    return compared


@pytest.mark.slow
@pytest.mark.parametrize("log", ["sealed", "in-clear"])
@pytest.mark.parametrize(("game", "path"), EXAMPLES)
def test_no_exit_shows_a_card_its_viewer_may_not_see(
    game: Game, path: Path, log: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every exit of every viewer reads the same whatever the cards it may not see are, at
    every step of a round in play (the module docstring).

    Twice: as the log is written (every hidden card sealed), and with a log that holds every
    card in clear, as a log of an older build does: then each exit's own redaction is all
    that keeps the cards hidden (the log's rows themselves are not compared then)."""
    if log == "in-clear":
        monkeypatch.setattr(RoundSight, "log_form", lambda self, record: record)
        monkeypatch.setattr(secrecy_worlds, "LOG_ROWS", False)
    keys = tmp_path / "keys"
    init_keys(keys)
    with games.registered(HIGH_CARD) if game is HIGH_CARD else nullcontext():
        config = load_config(path)
        run = _play_a(game, config, tmp_path, keys, seed=7)
        compared = _compare(game, config, tmp_path, keys, 7, run)
    hidden = any(run.hidden.values())
    assert compared > 0 or not hidden, "nothing was compared"
