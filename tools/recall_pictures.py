"""Recall pictures: a logged round drawn as the terminal showed it, one picture per event.

Game recall must be able to show the table as the player saw it: "a complete Play history ...
in the same sequence as the original Game Play", the outcome, and "information necessary to
determine the credits available at the start and end of Game" (AGCO Standards 13.1.1;
GLI-11 "Game Recall"; see ``regs/notes/standards-gli.md`` section 3). ``etg recall show DB
ROUND --png FILE`` draws the final table of the round, ``--frames DIR`` one picture per
logged event (``DIR/event-0001.png`` ...).

How a picture is made:

1. :func:`~game_server.recall.pictures.round_views` rebuilds, after each logged event of the
   round, the versioned JSON view (``"v": 1``) that the live table would have sent to one
   terminal: its game replays the round's engine events one prefix at a time and builds the
   live view from a stand-in session holding the replayed round and the wallets (a
   :class:`~game_server.table.ledger.Ledger` started from the balances of ``round_started``
   and folded event by event, so the last picture shows the balance ``round_closed`` logs);
   a face-down card stays hidden until the round reveals it
   (:meth:`~game_server.games.api.Game.round_views`).
2. :func:`draw_recall_picture` draws a view with the terminal's own renderers (the scene of
   the view's game, :mod:`terminal_client.games`), then a header band: "RECALL  table T
   round R  event k of n", the event's sentence from the recall timeline
   (:mod:`game_server.recall.timeline`), the terminal's credits at the start, now and at the
   end; and a band with the terminal's settlements (won/lost/push and paid).
3. With the game's receipt (:mod:`game_server.recall.receipt`, ``docs/shoe-spec.md``),
   :func:`draw_receipt_panel` adds the game's shoe (its number and full commitment), the
   positions in the shoe of the cards in the receipt, the reveal (or "still in use") and the
   receipt's QR code, as the terminal's recall screen shows it.

The terminal never imports ``game_server``: this module, in ``tools``, is where the two meet
(docs/design.md "Layout and the import rule"). Pygame runs headless (SDL's dummy driver) when
there is no display. Entry point: :func:`write_pictures`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pygame

from game_server.games import game_for
from game_server.recall.pictures import RecallPictureError, default_terminal, round_views
from game_server.recall.rounds import LoggedRound
from game_server.recall.timeline import Timeline, wager_title
from shared.money import format_money
from terminal_client.model.state import TerminalModel
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.render.layout import Layout
from terminal_client.render.qr import draw_qr
from terminal_client.screens.scene import panel

#: The size of a picture when none is asked for (the terminal's landscape design grid).
DEFAULT_SIZE: Final = (1920, 1080)
#: The smallest and largest side of a picture, in pixels.
MIN_SIDE: Final = 320
MAX_SIDE: Final = 8192
#: ``DIR/event-0001.png``: the name of frame ``k`` (1-based).
FRAME_NAME: Final = "event-{:04d}.png"

_OUTCOME_TEXT: Final = {
    "won": "won",
    "lost": "lost",
    "pushed": "push",
    "surrendered": "surrendered",
}
_DIM: Final = (200, 210, 200)


# -- views ---------------------------------------------------------------------------------


def parse_size(text: str) -> tuple[int, int]:
    """``"1920x1080"`` -> ``(1920, 1080)``.

    Raises:
        RecallPictureError: not ``WxH`` with both sides between :data:`MIN_SIDE` and
            :data:`MAX_SIDE`.
    """
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
        raise RecallPictureError(f"size {text!r} is not WIDTHxHEIGHT in pixels, e.g. 1920x1080")
    width, height = (int(part) for part in parts)
    for side in (width, height):
        if not MIN_SIDE <= side <= MAX_SIDE:
            raise RecallPictureError(
                f"size {text!r}: each side must be {MIN_SIDE} to {MAX_SIDE} pixels"
            )
    return width, height


# -- pictures --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Caption:
    """What the tool writes over a picture (the scene itself comes from the view).

    Attributes:
        table_id: The table.
        round_id: The round.
        index: The event's number in the round, from 1.
        count: The number of events of the round.
        text: The event's sentence from the recall timeline.
        terminal: Whose view it is.
        seat: That terminal's seat.
        credits_start: Its credits at the start (``round_started``), None if not logged.
        credits_end: Its credits at the end (``round_closed``), None if the round did not
            close.
    """

    table_id: str
    round_id: int
    index: int
    count: int
    text: str
    terminal: str
    seat: int | None
    credits_start: int | None
    credits_end: int | None

    @property
    def title(self) -> str:
        """``"RECALL  table BJ-01  round 2  event 17 of 31"``."""
        return (
            f"RECALL  table {self.table_id}  round {self.round_id}  "
            f"event {self.index} of {self.count}"
        )


def captions(timeline: Timeline, terminal: str) -> list[Caption]:
    """One caption per event of the round (the timeline has one entry per event)."""
    line = timeline.credits.get(terminal)
    seat = next((s for s, t in timeline.seats.items() if t == terminal), None)
    count = len(timeline.entries)
    return [
        Caption(
            timeline.table_id,
            timeline.round_id,
            k,
            count,
            entry.text,
            terminal,
            seat,
            None if line is None else line.start,
            None if line is None else line.end,
        )
        for k, entry in enumerate(timeline.entries, start=1)
    ]


def _money(cents: int | None) -> str:
    return "--" if cents is None else format_money(cents)


def settlement_line(
    item: Mapping[str, Any], split: bool, hand_wagers: frozenset[str] = frozenset()
) -> str:
    """``"Blackjack: won (Win 1 to 1), paid $10.00 on $5.00"`` (with the hand after a
    split, for a wager placed per hand: its game's ``hand_wagers``)."""
    hand = f" hand {item['hand'] + 1}" if split and item["wager"] in hand_wagers else ""
    outcome = _OUTCOME_TEXT.get(item["outcome"], item["outcome"])
    return (
        f"{wager_title(item['wager'])}{hand}: {outcome} ({item['line']}), paid "
        f"{format_money(item['paid'])} on {format_money(item['stake'])}"
    )


def ensure_pygame() -> None:
    """Initialise pygame's display and fonts, headless (SDL's dummy video and audio
    drivers) when there is no display; a Surface needs no window."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
        os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    if not pygame.display.get_init():
        try:
            pygame.display.init()
        except pygame.error:  # a display that is named but cannot be reached
            os.environ["SDL_VIDEODRIVER"] = "dummy"
            pygame.display.init()
    if not pygame.font.get_init():
        pygame.font.init()


def draw_recall_picture(
    surface: pygame.Surface,
    view: dict[str, Any],
    caption: Caption,
    hand_wagers: frozenset[str] = frozenset(),
    receipt: Mapping[str, Any] | None = None,
) -> None:
    """Draw one view with the terminal's scene renderer, then the tool's header band, the
    band of the terminal's settlements (``hand_wagers``: its game's wagers placed per hand)
    and, given the game's ``receipt``, its shoe and QR code (:func:`draw_receipt_panel`)."""
    layout = Layout.for_window(surface.get_size())
    model = TerminalModel()
    model.apply_view(view)
    if model.view is None:  # pragma: no cover - round_views builds views parse_view reads
        raise RecallPictureError(f"event {caption.index}: the view is not one the terminal reads")
    model.game.draw_picture(surface, layout, model)
    s = layout.scale
    top = layout.credits.top
    band = pygame.Rect(
        layout.credits.left,
        top,
        layout.size[0] - 2 * layout.credits.left,
        max(layout.dealer.top - round(8 * s) - top, round(60 * s)),
    )
    panel(surface, band, 200)
    left = band.left + round(20 * s)
    split_x = band.left + round(band.width * 0.64)
    draw_text(
        surface,
        caption.title,
        (left, band.top + round(10 * s)),
        round(32 * s),
        GOLD,
        "topleft",
        bold=True,
        max_width=split_x - left - round(16 * s),
    )
    draw_text(
        surface,
        caption.text,
        (left, band.bottom - round(10 * s)),
        round(26 * s),
        CREAM,
        "bottomleft",
        max_width=band.right - left - round(20 * s),
    )
    seat = f" (seat {caption.seat})" if caption.seat is not None else ""
    credits = (
        f"{caption.terminal}{seat}  credits now {format_money(model.view.credits)}  "
        f"start {_money(caption.credits_start)}  end {_money(caption.credits_end)}"
    )
    draw_text(
        surface,
        credits,
        (band.right - round(20 * s), band.top + round(14 * s)),
        round(24 * s),
        CREAM,
        "topright",
        bold=True,
        max_width=band.right - split_x - round(20 * s),
    )
    _draw_settlements(surface, layout, model, hand_wagers)
    if receipt is not None:
        draw_receipt_panel(surface, layout, receipt)


def receipt_lines(receipt: Mapping[str, Any]) -> list[str]:
    """The text of the receipt panel: the shoe and its commitment in groups of four hex
    digits, the cards' positions in the shoe, the reveal or "still in use"."""
    game = receipt["game"]
    shoe = game["shoe"]
    commitment = str(shoe["commitment"])
    groups = [commitment[i : i + 4] for i in range(0, len(commitment), 4)]
    lines = [f"SHOE {shoe['number']}  committed (SHA-256)"]
    lines += [" ".join(groups[i : i + 4]) for i in range(0, len(groups), 4)]
    positions = ", ".join(str(c["position"]) for c in game["cards"])
    lines.append(f"card positions: {positions or 'none'}")
    reveal = receipt.get("reveal")
    if reveal is None:
        lines.append("shoe still in use: seed and salt are revealed when it is retired")
    else:
        lines.append(f"revealed seed {reveal['entropy_input'][:16]}...")
        lines.append(f"salt {reveal['salt'][:16]}...")
    return lines


def draw_receipt_panel(
    surface: pygame.Surface, layout: Layout, receipt: Mapping[str, Any]
) -> pygame.Rect:
    """The game receipt's panel at the right of the player's hand: the shoe's number and
    commitment, the cards' positions, the reveal (:func:`receipt_lines`) and the QR code of
    the receipt (``docs/shoe-spec.md`` section 7). Returns the QR code's square."""
    s = layout.scale
    window = layout.window
    hand = layout.my_hand
    width = round(window.width * (0.52 if layout.portrait else 0.31))
    box = pygame.Rect(0, 0, width, hand.height + round(8 * s))
    box.bottomright = (window.right - round(16 * s), hand.bottom + round(4 * s))
    panel(surface, box, 215)
    pad = round(10 * s)
    side = min(box.height - 2 * pad, round(box.width * 0.4))
    code = pygame.Rect(0, 0, side, side)
    code.midright = (box.right - pad, box.centery)
    square = draw_qr(surface, str(receipt["qr"]), code)
    text = pygame.Rect(
        box.left + 2 * pad, box.top + pad, square.left - box.left - 3 * pad, box.height - 2 * pad
    )
    lines = receipt_lines(receipt)
    pitch = text.height // len(lines)
    for i, line in enumerate(lines):
        draw_text(
            surface,
            line,
            (text.left, text.top + i * pitch),
            min(round(22 * s), pitch),
            GOLD if i == 0 else CREAM,
            "topleft",
            bold=i == 0 or 0 < i <= 4,
            max_width=text.width,
        )
    return square


def _draw_settlements(
    surface: pygame.Surface, layout: Layout, model: TerminalModel, hand_wagers: frozenset[str]
) -> None:
    view = model.view
    if view is None or not view.settlements:
        return
    s = layout.scale
    window = layout.window
    top = layout.my_hand.bottom + round(16 * s)
    box = pygame.Rect(window.left, top, window.width, window.bottom - top).inflate(
        -round(32 * s), -round(16 * s)
    )
    panel(surface, box, 200)
    split = len(model.my_hands) > 1
    net = sum(item.paid - item.stake for item in view.settlements)
    word = "won" if net > 0 else "lost" if net < 0 else "even"
    head = f"SETTLEMENTS  {view.terminal}: {word} {format_money(abs(net))} net"
    draw_text(
        surface,
        head,
        (box.left + round(20 * s), box.top + round(8 * s)),
        round(26 * s),
        GOLD,
        "topleft",
        bold=True,
        max_width=box.width - round(40 * s),
    )
    lines = [
        settlement_line(
            {
                "wager": item.wager,
                "hand": item.hand,
                "stake": item.stake,
                "paid": item.paid,
                "outcome": item.outcome,
                "line": item.line,
            },
            split,
            hand_wagers,
        )
        for item in view.settlements
    ]
    columns = 1 if len(lines) <= 3 else 2
    rows = -(-len(lines) // columns)
    first = box.top + round(44 * s)
    step = max(1, (box.bottom - round(6 * s) - first) // max(rows, 1))
    width = (box.width - round(40 * s)) // columns
    for i, text in enumerate(lines):
        column, row = divmod(i, rows)
        x = box.left + round(20 * s) + column * width
        draw_text(
            surface,
            text,
            (x, first + row * step),
            min(round(24 * s), step),
            CREAM if view.settlements[i].paid >= view.settlements[i].stake else _DIM,
            "topleft",
            max_width=width - round(12 * s),
        )


def write_pictures(
    logged: LoggedRound,
    timeline: Timeline,
    *,
    png: Path | None = None,
    frames: Path | None = None,
    terminal: str | None = None,
    size: tuple[int, int] = DEFAULT_SIZE,
    receipt: Mapping[str, Any] | None = None,
) -> list[Path]:
    """Write the final picture to ``png`` and/or one picture per event into ``frames``
    (created if missing, ``event-0001.png`` ...), each with the game's ``receipt`` if given
    (the receipt of ``terminal``'s game, :func:`draw_receipt_panel`). Returns the files
    written.

    Raises:
        RecallPictureError: the round cannot be drawn, or a file cannot be written (the
            message names the path).
    """
    if png is None and frames is None:
        return []
    who = default_terminal(logged) if terminal is None else terminal
    views = round_views(logged, who)
    ensure_pygame()
    all_captions = captions(timeline, who)
    written: list[Path] = []
    if frames is not None:
        try:
            frames.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RecallPictureError(
                f"cannot create the frames directory {frames}: {exc.strerror or exc}"
            ) from None
    last = len(views) - 1
    for k, (view, caption) in enumerate(zip(views, all_captions, strict=True)):
        targets = []
        if frames is not None:
            targets.append(frames / FRAME_NAME.format(k + 1))
        if png is not None and k == last:
            targets.append(png)
        if not targets:
            continue
        surface = pygame.Surface(size)
        draw_recall_picture(surface, view, caption, game_for(logged.config).hand_wagers, receipt)
        for target in targets:
            _save(surface, target)
            written.append(target)
    return written


def _save(surface: pygame.Surface, path: Path) -> None:
    if path.suffix.lower() != ".png":
        raise RecallPictureError(f"{path}: a recall picture is a PNG file (name it *.png)")
    if not path.parent.is_dir():
        raise RecallPictureError(f"cannot write {path}: the directory {path.parent} does not exist")
    try:
        pygame.image.save(surface, str(path))
    except (pygame.error, OSError) as exc:
        raise RecallPictureError(f"cannot write {path}: {exc}") from None
