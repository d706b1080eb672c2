"""The kiosk session's terminal, run as the kiosk unit runs it, on a bare X server.

The kiosk unit (``etg install terminal``) runs ``cage -- etg terminal --kiosk ...``: cage,
a Wayland compositor without a window manager, shows its one application fullscreen. There
is no display here for cage; what runs here is the same ``etg terminal`` command line, taken
from the unit, on Xvfb without any window manager (the X way of a kiosk), with a terminal
that enrolled (its own key, a signed certificate). Read back from the X server itself
(libX11, XFixes, the MIT screen saver extension):

- the terminal's window covers the whole screen from (0, 0);
- the pointer over it shows no cursor (every pixel of the cursor image transparent);
- with the screen saver set to start after 1 s idle, it starts without the terminal, and
  does not while the terminal runs (SDL suspends it: no blanking).

Not run here: cage itself, on a real display and seat (docs/install.md says how to check a
kiosk after the install).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import shutil
import subprocess
import sys
import time
from ctypes import (
    POINTER,
    Structure,
    byref,
    c_char_p,
    c_int,
    c_long,
    c_short,
    c_uint,
    c_ulong,
    c_ushort,
    c_void_p,
)
from pathlib import Path

import pytest
from click.testing import CliRunner
from install_helpers import REQUIRE, exec_start, fake_venv, require, settings

from game_server.net.enroll import request_certificate, sign_request
from game_server.net.identity import RevocationList
from tools.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from test_server_e2e import server, stop  # the real server, as the e2e tests run it
from test_server_e2e import table as table  # the fixture

WIDTH, HEIGHT = 1280, 720
IS_VIEWABLE = 2
SAVER_OFF, SAVER_ON = 0, 1


class _WindowAttributes(Structure):
    _fields_ = [
        ("x", c_int),
        ("y", c_int),
        ("width", c_int),
        ("height", c_int),
        ("border_width", c_int),
        ("depth", c_int),
        ("visual", c_void_p),
        ("root", c_ulong),
        ("class_", c_int),
        ("bit_gravity", c_int),
        ("win_gravity", c_int),
        ("backing_store", c_int),
        ("backing_planes", c_ulong),
        ("backing_pixel", c_ulong),
        ("save_under", c_int),
        ("colormap", c_ulong),
        ("map_installed", c_int),
        ("map_state", c_int),
        ("all_event_masks", c_long),
        ("your_event_mask", c_long),
        ("do_not_propagate_mask", c_long),
        ("override_redirect", c_int),
        ("screen", c_void_p),
    ]


class _SaverInfo(Structure):
    _fields_ = [
        ("window", c_ulong),
        ("state", c_int),
        ("kind", c_int),
        ("til_or_since", c_ulong),
        ("idle", c_ulong),
        ("event_mask", c_ulong),
    ]


class _CursorImage(Structure):
    _fields_ = [
        ("x", c_short),
        ("y", c_short),
        ("width", c_ushort),
        ("height", c_ushort),
        ("xhot", c_ushort),
        ("yhot", c_ushort),
        ("cursor_serial", c_ulong),
        ("pixels", POINTER(c_ulong)),
        ("atom", c_ulong),
        ("name", c_char_p),
    ]


class XServer:
    """What the X server itself says: its top-level windows, the cursor, the screen saver
    (libX11, libXfixes, libXss through ctypes)."""

    def __init__(self, display: str) -> None:
        libraries = {}
        for name, package in (("X11", "libx11-6"), ("Xfixes", "libxfixes3"), ("Xss", "libxss1")):
            found = ctypes.util.find_library(name)
            if found is None:
                message = f"lib{name} is not installed: apt-get install {package}"
                if os.environ.get(REQUIRE["Xvfb"]) == "1":
                    pytest.fail(message)
                pytest.skip(message)
            libraries[name] = ctypes.CDLL(found)
        self.x11, self.fixes, self.saver = libraries["X11"], libraries["Xfixes"], libraries["Xss"]
        self.x11.XOpenDisplay.restype = c_void_p
        self.x11.XOpenDisplay.argtypes = [c_char_p]
        self.x11.XDefaultRootWindow.restype = c_ulong
        self.x11.XDefaultRootWindow.argtypes = [c_void_p]
        self.x11.XQueryTree.argtypes = [
            c_void_p,
            c_ulong,
            POINTER(c_ulong),
            POINTER(c_ulong),
            POINTER(POINTER(c_ulong)),
            POINTER(c_uint),
        ]
        self.x11.XGetWindowAttributes.argtypes = [c_void_p, c_ulong, POINTER(_WindowAttributes)]
        self.x11.XSetScreenSaver.argtypes = [c_void_p, c_int, c_int, c_int, c_int]
        self.x11.XFlush.argtypes = [c_void_p]
        self.x11.XFree.argtypes = [c_void_p]
        self.x11.XCloseDisplay.argtypes = [c_void_p]
        self.fixes.XFixesGetCursorImage.restype = POINTER(_CursorImage)
        self.fixes.XFixesGetCursorImage.argtypes = [c_void_p]
        self.saver.XScreenSaverAllocInfo.restype = POINTER(_SaverInfo)
        self.saver.XScreenSaverQueryInfo.argtypes = [c_void_p, c_ulong, POINTER(_SaverInfo)]
        self.display = self.x11.XOpenDisplay(display.encode())
        assert self.display, f"cannot open the X display {display}"
        self.root = self.x11.XDefaultRootWindow(self.display)

    def close(self) -> None:
        self.x11.XCloseDisplay(self.display)

    def mapped_windows(self) -> list[tuple[int, int, int, int]]:
        """(x, y, width, height) of every viewable top-level window."""
        root, parent, count = c_ulong(), c_ulong(), c_uint()
        children = POINTER(c_ulong)()
        self.x11.XQueryTree(
            self.display, self.root, byref(root), byref(parent), byref(children), byref(count)
        )
        found = []
        for index in range(count.value):
            attributes = _WindowAttributes()
            self.x11.XGetWindowAttributes(self.display, children[index], byref(attributes))
            if attributes.map_state == IS_VIEWABLE:
                found.append((attributes.x, attributes.y, attributes.width, attributes.height))
        if children:
            self.x11.XFree(children)
        return found

    def visible_cursor_pixels(self) -> int:
        """Pixels of the cursor image shown now that are not fully transparent."""
        image = self.fixes.XFixesGetCursorImage(self.display).contents
        pixels = [image.pixels[i] & 0xFFFFFFFF for i in range(image.width * image.height)]
        return sum(1 for pixel in pixels if pixel >> 24)

    def start_saver_after(self, seconds: int) -> None:
        """``xset s SECONDS``: the screen saver starts after that long without input."""
        self.x11.XSetScreenSaver(self.display, seconds, 0, 2, 2)
        self.x11.XFlush(self.display)

    def saver_state(self) -> int:
        info = self.saver.XScreenSaverAllocInfo()
        self.saver.XScreenSaverQueryInfo(self.display, self.root, info)
        state = int(info.contents.state)
        self.x11.XFree(info)
        return state


def _start_xvfb(tmp_path: Path) -> tuple[subprocess.Popen[bytes], str]:
    """Xvfb on a free display number (it writes the number to a pipe: -displayfd)."""
    read, write = os.pipe()
    process = subprocess.Popen(
        [
            require("Xvfb"),
            "-displayfd",
            str(write),
            "-screen",
            "0",
            f"{WIDTH}x{HEIGHT}x24",
            "-nolisten",
            "tcp",
        ],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=(tmp_path / "xvfb.log").open("wb"),
    )
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    assert number.isdigit(), (tmp_path / "xvfb.log").read_text()
    return process, f":{number}"


def _wait(predicate: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s: {what}")


@pytest.fixture()
def enrolled_table(table: dict[str, Path], tmp_path: Path) -> dict[str, Path]:
    """The e2e tests' table (certificates for T1, T2) and a terminal T3 enrolled in its own
    folder: its key made there, its certificate signed by the table's CA."""
    terminal = tmp_path / "terminal"
    made = request_certificate(terminal, "T3")
    signed = sign_request(table["certs"], made.request, RevocationList())
    shutil.copyfile(signed.certificate, terminal / "T3.pem")
    shutil.copyfile(table["certs"] / "ca.pem", terminal / "ca.pem")
    return {**table, "terminal": terminal}


@pytest.mark.slow
def test_the_kiosk_terminal_covers_the_screen_without_a_cursor_or_blanking(
    enrolled_table: dict[str, Path], tmp_path: Path
) -> None:
    cage = tmp_path / "cage"
    cage.write_text("#!/bin/sh\n")
    cage.chmod(0o755)
    etg = fake_venv(tmp_path / "venv")
    xvfb, display = _start_xvfb(tmp_path)
    terminal: subprocess.Popen[bytes] | None = None
    try:
        with server(enrolled_table) as (_process, port):
            done = CliRunner().invoke(
                main,
                [
                    *("install", "terminal", str(tmp_path / "units"), "--id", "T3"),
                    *("--server", f"127.0.0.1:{port}", "--hostname", "localhost"),
                    *("--certs", str(enrolled_table["terminal"]), "--etg", str(etg)),
                    *("--cage", str(cage), "--volume", "0"),
                ],
            )
            assert done.exit_code == 0, done.output
            unit = tmp_path / "units" / "etg-kiosk.service"
            argv = exec_start(unit)
            assert argv[:2] == [str(cage), "--"]
            env = dict(os.environ)
            env.update(word.split("=", 1) for word in settings(unit)["Environment"][0].split())
            # On X instead of cage's Wayland; no sound card here.
            env.update(DISPLAY=display, SDL_VIDEODRIVER="x11", SDL_AUDIODRIVER="dummy")

            x = XServer(display)
            try:
                assert x.mapped_windows() == [] and x.visible_cursor_pixels() > 0
                x.start_saver_after(1)
                _wait(lambda: x.saver_state() == SAVER_ON, 10, "the saver starts when idle")
                log = tmp_path / "terminal.log"
                with log.open("wb") as sink:
                    terminal = subprocess.Popen(argv[2:], env=env, stderr=sink, stdout=sink)
                _wait(lambda: b"connected to the table" in log.read_bytes(), 60, "connected")
                _wait(
                    lambda: (0, 0, WIDTH, HEIGHT) in x.mapped_windows(), 20, "a fullscreen window"
                )
                assert x.visible_cursor_pixels() == 0
                time.sleep(3)  # three times the screen saver's idle time
                assert x.saver_state() == SAVER_OFF
                assert terminal.poll() is None, log.read_text()
            finally:
                x.close()
    finally:
        for process in (terminal, xvfb):
            if process is not None:
                stop(process)
