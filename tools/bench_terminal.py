"""``etg bench terminal``: the player terminal's frame time, idle CPU and start-up time.

Entry point: :func:`bench_terminal`, which returns a dict of figures and asserts nothing
(docs/design.md "Tests": benchmarks are not timed tests). Every figure is a median of
``repeats`` repetitions, each measured back to back with a peer in the same run, so that a
ratio survives a shared, noisy machine. All at 1920x1080 on SDL's dummy video driver, the
app drawing its card faces and playing its sounds (into SDL's dummy audio driver).

- ``frame_ms`` (target p95 <= 10 ms while cards animate): the views of one whole round at
  the example table with seven terminals, built by the real server (its game's session and
  round machine, through the registry; every terminal played by the game's wire bot; the
  view after every logged step, as terminal T1 at seat 1 sees it), fed one by one to a
  :class:`~terminal_client.app.TerminalApp`
  whose fake clock advances 1/30 s per frame; each ``tick`` (screen choice, card
  animation, drawing) is timed with :func:`time.perf_counter` while cards move. Peer: one
  blit of a 1920x1080 surface onto the window, timed after every frame; ``frame_vs_blit``
  is the median frame over the median blit.
- ``idle_cpu_percent`` (target <= 10 % of one core): the app ticking at 30 fps in real
  time on a model that does not change (the settled play screen of that round), CPU time
  (:func:`time.process_time`) over wall time. Peer: the same app forced to redraw every
  frame (``idle_vs_redraw`` is the ratio of the two CPU shares).
- ``start_ms`` (target < 2,000 ms): a fresh ``python`` process that starts pygame and a
  terminal app on a model connected to an open table with no credits, from the parent's
  ``Popen`` to the child's report of its first drawn attract frame. The view is handed to
  the model as the network client would hand the server's first answer (no sockets, no
  TLS). Peer: a fresh process that only imports pygame and opens the dummy window
  (``start_vs_pygame``).

Run ``python -m tools.bench_terminal [--quick]`` to print the figures as JSON.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

SIZE: Final = (1920, 1080)
FPS: Final = 30
ROOT: Final = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class TerminalBenchSizes:
    """How much each measurement does."""

    repeats: int = 5
    idle_seconds: float = 1.5
    starts: int = 5
    settle_frames: int = 3

    @classmethod
    def quick(cls) -> TerminalBenchSizes:
        return cls(repeats=2, idle_seconds=0.4, starts=2)

    @classmethod
    def tiny(cls) -> TerminalBenchSizes:
        """For a smoke test: one repetition of everything, a fraction of a second idle."""
        return cls(repeats=1, idle_seconds=0.1, starts=1, settle_frames=1)


def _headless() -> None:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # keep stdout for the figures


class _NoClient:
    """An intent sender that sends nothing (the benchmark's player never touches): every
    request the screens may make answers None."""

    def __getattr__(self, name: str) -> Callable[..., None]:
        return _nothing


def _nothing(*_: Any, **__: Any) -> None:
    return None


def _no_input(*_: Any) -> list[Any]:
    return []


class _ViewRecorder:
    """A table listener keeping T1's view after every logged step (repeats dropped)."""

    def __init__(self, machine: Any, terminal: str) -> None:
        self.machine = machine
        self.terminal = terminal
        self.views: list[dict[str, Any]] = []

    def step_logged(self, events: Sequence[Any], terminals: Collection[str] | None = None) -> None:
        view = self.machine.view(self.terminal)
        if not self.views or view != self.views[-1]:
            self.views.append(view)


def _table(seed: int, seats: int) -> tuple[Any, Any, Any]:
    """The example table's game, its machine (opened) and a fake reactor clock, with
    ``seats`` terminals T1, T2... at seats 1, 2..."""
    from twisted.internet.task import Clock

    from game_server import games
    from game_server.config import example_config_path, load_config
    from game_server.rules.meters import MeterBank
    from game_server.table.session import MemorySink, SealedShoes, simulation_seeds

    config = load_config(example_config_path())
    game = games.game_for(config)
    shoes = SealedShoes(config, simulation_seeds(seed, config.table_id), bytes(32), "bench")
    terminals = {f"T{i}": i for i in range(1, seats + 1)}
    session = game.open_session(config, MemorySink(), shoes, terminals, MeterBank())
    session.open()
    clock = Clock()
    machine = game.machine(session, clock, 5.0)
    machine.open()
    return config, machine, clock


def _send(machine: Any, terminal: str, step: Any) -> None:
    """Do what a bot's step asks of the table, as the server does for its command."""
    arguments = dict(step.arguments)
    if step.command == "place_wagers":
        machine.place_wagers(terminal, arguments["wagers"], arguments.get("position"))
    elif step.command == "answer_insurance":
        machine.answer_insurance(terminal, arguments["choice"], arguments["amount"])
    elif step.command == "act":
        action = machine.parse_action(terminal, arguments["action"])
        machine.act(terminal, action, arguments["hand"], arguments.get("amount"))
    else:
        raise ValueError(f"a bot asked for {step.command!r}, which the benchmark cannot send")


def round_views(seed: int = 11, seats: int = 7) -> list[dict[str, Any]]:
    """The views T1 gets through one whole round of the example table with ``seats``
    terminals, from the betting view to the results: every terminal is played by its game's
    wire bot (:meth:`Game.wire_bot <game_server.games.api.Game.wire_bot>`, the bot of ``etg
    loadtest``), which wagers the table minimum."""
    from game_server import games

    config, machine, clock = _table(seed, seats)
    terminals = [f"T{i}" for i in range(1, seats + 1)]
    for terminal in terminals:
        machine.cash_in(terminal, 1_000_000, "bench")
    game = games.game_for(config)
    bots = {terminal: game.wire_bot(config) for terminal in terminals}
    for terminal, bot in bots.items():
        step = bot.next_step(machine.view(terminal))
        if step is not None:
            _send(machine, terminal, step)
    recorder = _ViewRecorder(machine, "T1")
    recorder.views.append(machine.view("T1"))
    machine.add_listener(recorder)
    clock.advance(config.timers.betting_seconds)
    for _ in range(600):
        if machine.view("T1").get("phase") == "complete":
            break
        moved = False
        for terminal, bot in bots.items():
            step = bot.next_step(machine.view(terminal))
            if step is not None:
                _send(machine, terminal, step)
                moved = True
        if not moved:
            clock.advance(1)
    return recorder.views


def _percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def _app(clock: Any, surface: Any) -> Any:
    """The terminal app as it runs: card faces, and its sounds played through SDL's dummy
    audio driver (mixed, then discarded), so that their cost is in every figure."""
    from terminal_client.app import TerminalApp
    from terminal_client.model import ConnectionState, TerminalModel
    from terminal_client.sound import Sounds

    model = TerminalModel()
    model.apply_connection(ConnectionState.CONNECTED)
    client: Any = _NoClient()
    sounds = Sounds.open(0.6)
    return TerminalApp(
        model, client, clock, lambda: surface, fps=FPS, poll=_no_input, sounds=sounds
    )


def frame_times(
    views: Sequence[dict[str, Any]], surface: Any, settle_frames: int = 3
) -> tuple[list[float], list[float], int]:
    """Feed ``views`` to a fresh app frame by frame (fake clock, 1/30 s a frame), each view
    until its cards rest plus ``settle_frames``. Returns the milliseconds of the frames drawn
    while cards moved, of the peer (a full-window blit after each of those frames) and the
    number of frames ticked."""
    import pygame
    from twisted.internet.task import Clock

    clock = Clock()
    app = _app(clock, surface)
    other = pygame.Surface(surface.get_size())
    other.fill((30, 60, 40))
    moving_ms: list[float] = []
    blit_ms: list[float] = []
    ticks = 0
    for data in views:
        app.model.apply_view(data)
        quiet = 0
        while quiet < settle_frames and ticks < 100_000:
            clock.advance(1 / FPS)
            start = time.perf_counter()
            app.tick()
            elapsed = time.perf_counter() - start
            ticks += 1
            if app.cards.frame().moving:
                moving_ms.append(elapsed * 1000)
                start = time.perf_counter()
                surface.blit(other, (0, 0))
                blit_ms.append((time.perf_counter() - start) * 1000)
                quiet = 0
            else:
                quiet += 1
    return moving_ms, blit_ms, ticks


def idle_cpu(view: dict[str, Any], surface: Any, seconds: float, redraw: bool) -> dict[str, float]:
    """Tick an app on an unchanging ``view`` at 30 fps in real time for ``seconds``; with
    ``redraw`` every frame is drawn (the peer). Returns CPU percent of one core and draws."""
    from twisted.internet.task import Clock

    clock = Clock()
    app = _app(clock, surface)
    app.model.apply_view(view)
    app.tick()
    for _ in range(60):  # let any motion finish before measuring
        clock.advance(1 / FPS)
        app.tick()
    draws = app.draws
    frames = max(1, round(seconds * FPS))
    wall0, cpu0 = time.perf_counter(), time.process_time()
    deadline = wall0
    for _ in range(frames):
        deadline += 1 / FPS
        clock.advance(1 / FPS)
        if redraw:
            app.dirty = True
        app.tick()
        pause = deadline - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return {"cpu_percent": 100 * cpu / wall, "draws": app.draws - draws, "frames": frames}


_ATTRACT_CHILD: Final = """
import os, sys
os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
import pygame
from twisted.internet.task import Clock
from terminal_client.app import TerminalApp
from terminal_client.model import ConnectionState, TerminalModel
from terminal_client.screens import AttractScreen
pygame.display.init()
pygame.font.init()
window = pygame.display.set_mode((1920, 1080))
model = TerminalModel()
model.apply_connection(ConnectionState.CONNECTED)
model.apply_view(VIEW)
class Quiet:
    def __getattr__(self, name):
        return lambda *a, **k: None
def shown(model, surface):
    if app.draws and isinstance(app.stack.top, AttractScreen):
        sys.stdout.write("attract\\n")
        sys.stdout.flush()
        raise SystemExit(0)
app = TerminalApp(model, Quiet(), Clock(), pygame.display.get_surface,
                  present=pygame.display.flip, poll=lambda *a: [], after_draw=shown)
for _ in range(100):
    app.tick()
sys.exit(1)
"""

_PYGAME_CHILD: Final = """
import os, sys
os.environ["SDL_VIDEODRIVER"] = "dummy"
os.environ["SDL_AUDIODRIVER"] = "dummy"
import pygame
pygame.display.init()
pygame.display.set_mode((1920, 1080))
sys.stdout.write("window\\n")
sys.stdout.flush()
"""


def attract_view() -> dict[str, Any]:
    """The example table open and taking wagers, as the server shows it to a terminal with
    no credits."""
    _, machine, _ = _table(seed=11, seats=1)
    return dict(machine.view("T1"))


def start_time(code: str, expect: str) -> float:
    """Milliseconds from starting ``python -c code`` to the line ``expect`` on its stdout."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, PYGAME_HIDE_SUPPORT_PROMPT="1")
    start = time.perf_counter()
    with subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, cwd=ROOT, env=env, text=True
    ) as child:
        assert child.stdout is not None
        line = ""
        for line in child.stdout:
            if line.strip() == expect:
                break
        elapsed = time.perf_counter() - start
        child.stdout.read()
        child.wait(timeout=30)
    if line.strip() != expect:
        raise RuntimeError(f"the timed process never printed {expect!r}")
    return elapsed * 1000


def bench_terminal(
    sizes: TerminalBenchSizes | None = None,
    progress: Callable[[str], Any] | None = None,
) -> dict[str, Any]:
    """Measure the terminal (see the module doc); returns the figures as a dict."""
    _headless()
    import pygame

    sizes = sizes or TerminalBenchSizes()
    say = progress or (lambda text: None)
    median = statistics.median
    pygame.display.init()
    pygame.font.init()
    window = pygame.display.set_mode(SIZE)
    views = round_views()
    settled = views[-1]
    for data in views:  # the last view in which T1's seat still plays
        if data["seats"] and data["phase"] in ("insurance", "playing"):
            settled = data
    runs: list[dict[str, Any]] = []
    attract_code = _ATTRACT_CHILD.replace("VIEW", repr(attract_view()))
    for repeat in range(sizes.repeats):
        say(f"repetition {repeat + 1} of {sizes.repeats}")
        moving, blits, ticks = frame_times(views, window, sizes.settle_frames)
        idle = idle_cpu(settled, window, sizes.idle_seconds, redraw=False)
        busy = idle_cpu(settled, window, sizes.idle_seconds, redraw=True)
        starts = [start_time(attract_code, "attract") for _ in range(sizes.starts)]
        bare = [start_time(_PYGAME_CHILD, "window") for _ in range(sizes.starts)]
        runs.append(
            {
                "frames_moving": len(moving),
                "ticks": ticks,
                "p50_ms": _percentile(moving, 0.5),
                "p95_ms": _percentile(moving, 0.95),
                "max_ms": max(moving, default=0.0),
                "blit_ms": median(blits) if blits else 0.0,
                "idle_cpu_percent": idle["cpu_percent"],
                "idle_draws": idle["draws"],
                "idle_frames": idle["frames"],
                "redraw_cpu_percent": busy["cpu_percent"],
                "start_ms": median(starts),
                "pygame_start_ms": median(bare),
            }
        )

    def mid(name: str) -> float:
        return float(median(run[name] for run in runs))

    def ratio(top: str, bottom: str) -> float:
        return float(median(run[top] / run[bottom] if run[bottom] else 0.0 for run in runs))

    return {
        "size": f"{SIZE[0]}x{SIZE[1]}",
        "repeats": sizes.repeats,
        "views": len(views),
        "frame_ms": {"p50": mid("p50_ms"), "p95": mid("p95_ms"), "max": mid("max_ms")},
        "blit_ms": mid("blit_ms"),
        "frame_vs_blit": ratio("p50_ms", "blit_ms"),
        "frames_moving": int(mid("frames_moving")),
        "idle_cpu_percent": mid("idle_cpu_percent"),
        "idle_draws_per_s": float(
            median(run["idle_draws"] * FPS / run["idle_frames"] for run in runs)
        ),
        "redraw_cpu_percent": mid("redraw_cpu_percent"),
        "idle_vs_redraw": ratio("idle_cpu_percent", "redraw_cpu_percent"),
        "start_ms": mid("start_ms"),
        "pygame_start_ms": mid("pygame_start_ms"),
        "start_vs_pygame": ratio("start_ms", "pygame_start_ms"),
        "runs": runs,
    }


def format_bench_terminal(figures: dict[str, Any]) -> str:
    """The figures as a table, with their targets."""
    frame = figures["frame_ms"]
    rows = [
        ("frame p50 ms (cards moving)", f"{frame['p50']:.2f}", ""),
        ("frame p95 ms (cards moving)", f"{frame['p95']:.2f}", "target <= 10"),
        ("frame max ms (cards moving)", f"{frame['max']:.2f}", ""),
        ("peer: 1920x1080 blit ms", f"{figures['blit_ms']:.3f}", ""),
        ("frame p50 / blit", f"{figures['frame_vs_blit']:.1f}", ""),
        ("idle CPU % of one core", f"{figures['idle_cpu_percent']:.2f}", "target <= 10"),
        ("idle draws per second", f"{figures['idle_draws_per_s']:.2f}", ""),
        ("peer: redraw-every-frame CPU %", f"{figures['redraw_cpu_percent']:.1f}", ""),
        ("idle / redraw CPU", f"{figures['idle_vs_redraw']:.3f}", ""),
        ("start to attract ms", f"{figures['start_ms']:.0f}", "target < 2000"),
        ("peer: python + pygame window ms", f"{figures['pygame_start_ms']:.0f}", ""),
        ("start / pygame window", f"{figures['start_vs_pygame']:.2f}", ""),
    ]
    width = max(len(name) for name, _, _ in rows)
    head = (
        f"terminal at {figures['size']}, medians of {figures['repeats']} repetitions, "
        f"{figures['frames_moving']} frames with cards moving over {figures['views']} views"
    )
    lines = [head] + [
        f"{name:<{width}}  {value:>9}  {target}".rstrip() for name, value, target in rows
    ]
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    chosen = TerminalBenchSizes.quick() if "--quick" in sys.argv else TerminalBenchSizes()
    print(json.dumps(bench_terminal(chosen), indent=2))
