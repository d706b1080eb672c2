"""``etg terminal``: run one player terminal against a table server over TLS.

Kiosk mode is fullscreen with no cursor; otherwise the terminal runs in a window of
``--size`` (at ``--position``), titled with the terminal and its table once connected.
Without a display it stops at once and says so (unless ``SDL_VIDEODRIVER`` asks for a
windowless driver, as the headless demo bots do); stderr gets one line each time the
connection changes (connecting, cannot reach HOST:PORT and retrying, connected, lost).

Entry point: :func:`terminal` (a click command; ``python -m terminal_client``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

import click

from terminal_client import games
from terminal_client.model import ConnectionState, TerminalModel
from terminal_client.model.state import RESULTS_SECONDS
from terminal_client.net.client import UNREACHABLE
from terminal_client.net.tls import TerminalTlsError
from terminal_client.typescale import DEFAULT_GLASS_INCHES, GLASS_RANGE, Glass

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)

#: SDL video drivers that open no window (SDL falls back to ``offscreen`` without a display).
WINDOWLESS: Final = ("offscreen", "dummy")

#: Why the terminal stops when no window can open.
NO_DISPLAY: Final = (
    "no display: neither DISPLAY nor WAYLAND_DISPLAY is set, so no window can open. Run the "
    "terminal on the kiosk's display, or set SDL_VIDEODRIVER=dummy to run it without a "
    "window (a demo bot with --autoplay)"
)


def display_problem(env: Mapping[str, str], platform: str | None = None) -> str | None:
    """Why no window can open here (before SDL tries), or None: on Linux (``platform``,
    default ``sys.platform``) a window needs ``DISPLAY`` or ``WAYLAND_DISPLAY``, unless
    ``SDL_VIDEODRIVER`` chose a driver."""
    platform = sys.platform if platform is None else platform
    if env.get("SDL_VIDEODRIVER"):
        return None
    if platform.startswith("linux") and not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        return NO_DISPLAY
    return None


def window_title(model: TerminalModel, server: str) -> str:
    """The window's title: the terminal, its game and table once the table answered
    (``"T1 \u2022 Blackjack \u2022 table BJ-01"``), else what it connects to."""
    view = model.view
    if view is None:
        return f"ETG terminal \u2022 connecting to {server}"
    game = games.of(model).window_title(model)
    who = view.terminal or "terminal"
    return f"{who} \u2022 {game} \u2022 table {view.table}"


class ConnectionReport:
    """Says where the connection to the table is, one line each time that changes
    (retries that fail the same way say nothing new).

    Args:
        model: The terminal's model (the network client keeps its connection state).
        server: The table's ``HOST:PORT``, as the operator gave it.
        echo: Writes one line (stderr).
        seconds: The clock of the retry delays (the reactor's ``seconds``).
    """

    def __init__(
        self,
        model: TerminalModel,
        server: str,
        echo: Callable[[str], Any],
        seconds: Callable[[], float],
    ) -> None:
        self.model = model
        self.server = server
        self.echo = echo
        self.seconds = seconds
        self._said: tuple[ConnectionState, str] | None = None

    def __call__(self) -> None:
        connection = self.model.connection
        now = (connection.state, connection.message)
        if now == self._said:
            return
        self._said = now
        self.echo(f"etg terminal: {self.line()}")

    def line(self) -> str:
        """The sentence for the connection as it is now."""
        model = self.model
        connection = model.connection
        state = connection.state
        if state is ConnectionState.CONNECTING:
            return f"connecting to the table at {self.server}"
        if state is ConnectionState.CONNECTED:
            view = model.view
            where = "" if view is None else f" (table {view.table}, terminal {view.terminal})"
            return f"connected to the table at {self.server}{where}"
        if state is ConnectionState.LOST:
            retry = connection.retry_in(self.seconds())
            again = "; retrying" + ("" if retry is None else f", next try in {retry} s")
            message = connection.message
            reason = message.removeprefix(f"{UNREACHABLE}: ")
            if reason != message:
                return f"cannot reach the table at {self.server} ({reason.rstrip('.')}){again}"
            return f"{message} ({self.server}){again}"
        return connection.message or str(state)


def _host_port(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{value!r} is not HOST:PORT, e.g. table1.local:8750")
    return host.strip("[]"), int(port)


def _size(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, int]:
    width, sep, height = value.lower().partition("x")
    if not sep or not width.isdigit() or not height.isdigit() or min(int(width), int(height)) < 320:
        raise click.BadParameter(f"{value!r} is not WxH with both sides >= 320, e.g. 1280x720")
    return int(width), int(height)


def _position(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> tuple[int, int] | None:
    if value is None:
        return None
    x, _, y = value.partition(",")
    try:
        return int(x), int(y)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not X,Y, e.g. 0,40") from None


def _display_surface() -> Any:
    import pygame

    surface = pygame.display.get_surface()
    if surface is None:  # pragma: no cover - the window was closed under us
        raise click.ClickException("the terminal's window is gone")
    return surface


def _to_stderr(line: str) -> None:
    click.echo(line, err=True)


def _stop_reactor(result: object, reactor: Any) -> None:
    reactor.stop()


def _open_display(kiosk: bool, size: tuple[int, int], title: str) -> None:
    """The terminal's window (full screen without a pointer in kiosk mode), titled.

    Raises:
        click.ClickException: SDL found no display to open.
    """
    import pygame

    pygame.display.init()
    if pygame.display.get_driver() in WINDOWLESS and not os.environ.get("SDL_VIDEODRIVER"):
        pygame.quit()
        raise click.ClickException(NO_DISPLAY)
    pygame.font.init()
    pygame.display.set_caption(title)
    if kiosk:
        pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
        pygame.mouse.set_visible(False)
    else:
        pygame.display.set_mode(size, pygame.RESIZABLE)


def _tls_and_display(
    ca: Path, cert: Path, key: Path, hostname: str, kiosk: bool, position: tuple[int, int] | None
) -> Any:
    """The TLS options of the terminal's certificate, and the display checked (a window's
    position set): a problem with either is one sentence, before any window opens."""
    from terminal_client.net.tls import terminal_tls_options

    try:
        options = terminal_tls_options(ca, cert, key, hostname)
    except TerminalTlsError as exc:
        raise click.ClickException(str(exc)) from None
    problem = display_problem(os.environ)
    if problem is not None:
        raise click.ClickException(problem)
    if position is not None and not kiosk:
        os.environ["SDL_VIDEO_WINDOW_POS"] = f"{position[0]},{position[1]}"
    return options


@click.command("terminal")
@click.option("--server", required=True, callback=_host_port, help="The table, as HOST:PORT.")
@click.option("--cert", required=True, type=_FILE, help="This terminal's certificate (PEM).")
@click.option("--key", required=True, type=_FILE, help="This terminal's private key (PEM).")
@click.option("--ca", required=True, type=_FILE, help="The casino CA certificate (PEM).")
@click.option(
    "--hostname",
    default=None,
    help="The name on the server's certificate (default: the server's host).",
)
@click.option("--kiosk", is_flag=True, help="Fullscreen with no cursor.")
@click.option(
    "--position",
    default=None,
    callback=_position,
    help="Where the window's top left corner goes on the screen, X,Y (not with --kiosk).",
)
@click.option(
    "--size",
    default="1280x720",
    show_default=True,
    callback=_size,
    help="Window size when not in kiosk mode, WxH.",
)
@click.option(
    "--glass",
    type=click.FloatRange(*GLASS_RANGE),
    default=DEFAULT_GLASS_INCHES,
    show_default=True,
    help="The screen's diagonal in inches: no text a player reads is smaller than 12 points "
    "on it (a window is drawn as that screen at the window's size).",
)
@click.option(
    "--results-seconds",
    type=click.FloatRange(0, 120),
    default=RESULTS_SECONDS,
    show_default=True,
    help="The last round's results stay on the next round's betting screen at least this "
    "long, then until the player's first wager.",
)
@click.option(
    "--fps",
    type=click.IntRange(5, 60),
    default=30,
    show_default=True,
    help="Frames per second of the screen's tick (it redraws only what changed).",
)
@click.option(
    "--autoplay",
    is_flag=True,
    help="Demo bot: bet the table minimum, decline insurance, play basic strategy.",
)
@click.option(
    "--screenshots",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Save a PNG of the screen to this folder when a round shows its results.",
)
@click.option(
    "--every",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="With --screenshots: the first round seen, then every N-th round (and the latest).",
)
@click.option(
    "--every-screen",
    is_flag=True,
    help="With --screenshots: also keep the latest betting, play and results screen as "
    "<terminal>-betting.png, -play.png, -results.png.",
)
@click.option(
    "--volume",
    type=click.IntRange(0, 100),
    default=60,
    show_default=True,
    help="Sound volume, 0 (silent) to 100: cards dealt, chips, a win, the last seconds.",
)
@click.option(
    "--think",
    type=click.FloatRange(0, 10),
    default=0.6,
    show_default=True,
    help="With --autoplay: seconds the bot leaves each situation on the screen before it acts.",
)
def terminal(
    server: tuple[str, int],
    cert: Path,
    key: Path,
    ca: Path,
    hostname: str | None,
    kiosk: bool,
    position: tuple[int, int] | None,
    size: tuple[int, int],
    fps: int,
    glass: float = DEFAULT_GLASS_INCHES,
    results_seconds: float = RESULTS_SECONDS,
    autoplay: bool = False,
    screenshots: Path | None = None,
    every: int = 1,
    every_screen: bool = False,
    think: float = 0.6,
    volume: int = 60,
) -> None:
    """Run a player terminal connected to the table at --server over TLS."""
    from twisted.internet import reactor as _reactor

    from terminal_client.net.tls import tls_endpoint

    host, port = server
    options = _tls_and_display(ca, cert, key, hostname or host, kiosk, position)

    import pygame
    from twisted.internet import task

    from terminal_client.app import Autoplay, Screenshots, TerminalApp
    from terminal_client.net import TerminalClient
    from terminal_client.sound import Sounds

    reactor: Any = _reactor
    server_name = f"{host}:{port}"
    model = TerminalModel(results_seconds)
    shown = {"title": window_title(model, server_name)}
    _open_display(kiosk, size, shown["title"])

    report = ConnectionReport(model, server_name, _to_stderr, reactor.seconds)
    sounds = Sounds.open(volume / 100)
    if sounds.silent is not None and volume:
        _to_stderr(f"etg terminal: sound off: {sounds.silent}")

    def watch() -> None:
        report()
        title = window_title(model, server_name)
        if title != shown["title"]:
            shown["title"] = title
            pygame.display.set_caption(title)

    client = TerminalClient(tls_endpoint(reactor, host, port, options), model, reactor)
    app = TerminalApp(
        model,
        client,
        reactor,
        _display_surface,
        fps=fps,
        present=pygame.display.flip,
        on_quit=lambda: client.stop().addBoth(_stop_reactor, reactor),
        autoplay=Autoplay(client, think=think, now=reactor.seconds) if autoplay else None,
        after_draw=None if screenshots is None else Screenshots(screenshots, every, every_screen),
        sounds=sounds,
        glass=Glass(glass),
    )
    client.start()
    app.start()
    task.LoopingCall(watch).start(0.25)
    try:
        reactor.run()
    finally:
        pygame.quit()
