"""``etg terminal``: run one player terminal against a table server over TLS.

Kiosk mode is fullscreen with no cursor; otherwise the terminal runs in a window of
``--size``. Entry point: :func:`terminal` (a click command; ``python -m terminal_client``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from terminal_client.net.tls import TerminalTlsError

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


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


def _display_surface() -> Any:
    import pygame

    surface = pygame.display.get_surface()
    if surface is None:  # pragma: no cover - the window was closed under us
        raise click.ClickException("the terminal's window is gone")
    return surface


def _stop_reactor(result: object, reactor: Any) -> None:
    reactor.stop()


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
    "--size",
    default="1280x720",
    show_default=True,
    callback=_size,
    help="Window size when not in kiosk mode, WxH.",
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
    help="With --screenshots: the first round seen, then every N-th round.",
)
def terminal(
    server: tuple[str, int],
    cert: Path,
    key: Path,
    ca: Path,
    hostname: str | None,
    kiosk: bool,
    size: tuple[int, int],
    fps: int,
    autoplay: bool = False,
    screenshots: Path | None = None,
    every: int = 1,
) -> None:
    """Run a player terminal connected to the table at --server over TLS."""
    from twisted.internet import reactor as _reactor

    from terminal_client.net.tls import terminal_tls_options, tls_endpoint

    host, port = server
    try:
        options = terminal_tls_options(ca, cert, key, hostname or host)
    except TerminalTlsError as exc:
        raise click.ClickException(str(exc)) from None

    import pygame

    from terminal_client.app import Autoplay, Screenshots, TerminalApp
    from terminal_client.model import TerminalModel
    from terminal_client.net import TerminalClient

    reactor: Any = _reactor
    pygame.display.init()
    pygame.font.init()
    pygame.display.set_caption("Blackjack terminal")
    if kiosk:
        pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
        pygame.mouse.set_visible(False)
    else:
        pygame.display.set_mode(size, pygame.RESIZABLE)

    model = TerminalModel()
    client = TerminalClient(tls_endpoint(reactor, host, port, options), model, reactor)
    app = TerminalApp(
        model,
        client,
        reactor,
        _display_surface,
        fps=fps,
        present=pygame.display.flip,
        on_quit=lambda: client.stop().addBoth(_stop_reactor, reactor),
        autoplay=Autoplay(client) if autoplay else None,
        after_draw=None if screenshots is None else Screenshots(screenshots, every),
    )
    client.start()
    app.start()
    try:
        reactor.run()
    finally:
        pygame.quit()
