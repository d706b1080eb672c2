"""The pictures of ``docs/screens``: every table type's betting, play and results screens, as
windowed terminals drew them.

For each table every game pictures (the fully automated table, the two hybrid tables,
Ultimate Texas Hold 'Em) it runs the live demo (:func:`tools.live_demo.run_live_demo`) with
two bot-played terminals in windows (``bots=True``) that keep their latest screen of each kind
(``screens=True``), then copies terminal T1's into ``<out>/<table>-<screen>.png``. It needs a
display; on a machine without one, run it under Xvfb with a screen on which two 1280x720
windows fit side by side::

    xvfb-run -s "-screen 0 2600x1500x24" python -m tools.screens docs/screens

Entry point: :func:`write_screens` (``python -m tools.screens OUT``).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from game_server import games
from tools.live_demo import has_display, run_live_demo, table_folder

SCREENS: Final = ("betting", "play", "results")


def tables() -> list[tuple[str, Path]]:
    """The tables pictured, every registered game's (:attr:`Game.pictured
    <game_server.games.api.Game.pictured>`): (file name prefix, Rules Submission)."""
    return [(name, path) for game in games.games() for name, path in game.pictured.items()]


def write_screens(out: Path, rounds: int = 4, echo: Callable[[str], Any] = print) -> list[Path]:
    """Play ``rounds`` rounds at each table of :func:`tables` and keep T1's latest betting,
    play and results screens in ``out``; returns the pictures written."""
    if not has_display():
        raise SystemExit("no display: run it under Xvfb (see the module doc)")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, config in tables():
        with tempfile.TemporaryDirectory(prefix=f"etg-screens-{name}-") as data:
            run_live_demo(
                Path(data),
                2,
                rounds,
                lambda line: None,
                headless=False,
                rules=config,
                bots=True,
                screens=True,
                deal_when_all_bet=False,
            )
            shots = table_folder(Path(data), config) / "screenshots"
            for screen in SCREENS:
                shot = shots / f"T1-{screen}.png"
                if not shot.exists():
                    echo(f"{name}: no {screen} screen was shown to T1 in {rounds} rounds")
                    continue
                target = out / f"{name}-{screen}.png"
                shutil.copyfile(shot, target)
                written.append(target)
                echo(f"wrote {target}")
    return written


if __name__ == "__main__":  # pragma: no cover
    write_screens(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screens"))
