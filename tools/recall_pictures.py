"""Recall pictures: a logged round drawn as the terminal showed it, one picture per event.

Game recall must be able to show the table as the player saw it: "a complete Play history ...
in the same sequence as the original Game Play", the outcome, and "information necessary to
determine the credits available at the start and end of Game" (AGCO Standards 13.1.1;
GLI-11 "Game Recall"; see ``regs/notes/standards-gli.md`` section 3). ``etg recall show DB
ROUND --png FILE`` draws the final table of the round, ``--frames DIR`` one picture per
logged event (``DIR/event-0001.png`` ...).

How a picture is made:

1. :func:`round_views` rebuilds, after each logged event of the round, the versioned JSON
   view (``"v": 1``) that the live table would have sent to one terminal. The round's engine
   events are replayed through the real engine
   (:func:`~game_server.games.blackjack.rules.round.replay`, under the rules of the round's
   ``table_opened``), one prefix at a time; a prefix that replays is the state after an
   engine step, and :func:`~game_server.games.blackjack.views.view_for` builds its view from a
   stand-in :class:`~game_server.table.session.TableSession` that holds the replayed round
   and the wallets (the live view, field for field). An event inside a step (the deal gives
   a dozen cards in one step) is shown as the step's end with what comes later in the step
   taken back: its cards, the hole card's reveal and its wagers; nobody is to act then.
2. Credits are those of a :class:`~game_server.table.ledger.Ledger` started from the
   balances of ``round_started`` and folded event by event, exactly as the live table's
   wallets moved (so the last picture shows the balance ``round_closed`` logs). The hole
   card is hidden until ``hole_card_revealed``; the settlements of the terminal's wagers
   appear as they are logged (the fields of the live view's settlements).
3. :func:`draw_recall_picture` draws a view with the terminal's own renderers
   (:func:`terminal_client.screens.scene.draw_scene`), then a header band: "RECALL  table T
   round R  event k of n", the event's sentence from the recall timeline
   (:mod:`game_server.recall.timeline`), the terminal's credits at the start, now and at the
   end; and a band with the terminal's settlements (won/lost/push and paid).

At a hybrid table (58 Pa. Code 633b.5) the same is done with the table type's engine
(``three_position.replay`` / ``no_hole_card.replay``) and the hybrid view
(:func:`~game_server.games.hybrid.views.hybrid_view_for`, drawn by
:func:`terminal_client.screens.hybrid.draw_hybrid_scene`): the player's position or shared
cards, the community box with his own use of each card, his dealer hand. An event inside an
engine step shows the table as it was before the step (its cards appear with its last event).

At an Ultimate Texas Hold 'Em table (58 Pa. Code 653a) the views are the Hold 'Em view
(:func:`~game_server.games.uth.views.uth_view_for`), the settlements and draws kept by the
live table's own listener, drawn by :func:`terminal_client.screens.uth.draw_uth_scene`.

The terminal never imports ``game_server``: this module, in ``tools``, is where the two meet
(DESIGN.md "Layout and the import rule"). Pygame runs headless (SDL's dummy driver) when
there is no display. Entry points: :func:`round_views`, :func:`write_pictures`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pygame

from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DEALER,
    DOUBLE,
    CardDealt,
    HoleCardRevealed,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import BlackjackRound, replay
from game_server.games.blackjack.session import TableSession
from game_server.games.blackjack.views import settlement_view, view_for
from game_server.games.hybrid.rules import no_hole_card, three_position
from game_server.games.hybrid.rules.events import Hybrid3WagerPlaced, Hybrid3WagerSettled
from game_server.games.hybrid.session import HybridSession, three_position_rules
from game_server.games.hybrid.views import hybrid_view_for
from game_server.games.uth.config import rules_of as uth_rules_of
from game_server.games.uth.machine import UthResults
from game_server.games.uth.rules.events import UthWagerPlaced
from game_server.games.uth.rules.game import UthRound
from game_server.games.uth.rules.game import replay as uth_replay
from game_server.games.uth.session import UthLedger, UthSession, uth_rules
from game_server.games.uth.views import uth_view_for
from game_server.recall.rounds import Logged, LoggedRound, engine_kinds_for
from game_server.recall.timeline import Timeline, wager_title
from game_server.rules.errors import ReplayMismatch, RulesError
from game_server.rules.wagers.base import TableType
from game_server.table.ledger import Ledger
from game_server.table.session import MemorySink, SealedShoes
from shared.errors import ETGError
from shared.money import format_money
from terminal_client.model.state import TerminalModel
from terminal_client.render.draw import CREAM, GOLD, draw_text
from terminal_client.render.layout import Layout
from terminal_client.screens.hybrid import draw_hybrid_scene
from terminal_client.screens.scene import draw_scene, panel
from terminal_client.screens.uth import draw_uth_scene

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
_HAND_WAGERS: Final = frozenset({BLACKJACK, DOUBLE})
#: The wager events of every table type (the three-position hybrid table has its own).
_PLACED: Final = (WagerPlaced, Hybrid3WagerPlaced, UthWagerPlaced)
_SETTLED: Final = (WagerSettled, Hybrid3WagerSettled)
_DIM: Final = (200, 210, 200)


class RecallPictureError(ETGError):
    """A round that cannot be drawn (its replay fails, the terminal did not play it, ...)."""


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


def round_seats(logged: LoggedRound) -> dict[str, int]:
    """Terminal -> seat for the round: from ``round_started``, else from the seats its
    events name (a round whose start is not in the log)."""
    started = logged.started
    if started is not None:
        return dict(zip(started.terminals, started.seats, strict=False))
    seats: dict[str, int] = {}
    for item in logged.events:
        seat = getattr(item.event, "seat", None)
        terminal = item.stored.terminal
        if isinstance(seat, int) and seat != DEALER and terminal is not None:
            seats.setdefault(terminal, seat)
    return seats


def default_terminal(logged: LoggedRound) -> str:
    """The terminal whose view recall pictures show by default: the first with a wager in
    the round, else the first seated one.

    Raises:
        RecallPictureError: the round has no terminal at all.
    """
    for item in logged.events:
        if type(item.event) in _PLACED and item.stored.terminal is not None:
            return item.stored.terminal
    seats = round_seats(logged)
    if not seats:
        raise RecallPictureError(
            f"round {logged.round_id} of table {logged.table_id} has no terminal: there is no "
            "player's view to draw"
        )
    return min(seats, key=lambda terminal: seats[terminal])


def _no_shoe(number: int) -> Any:
    raise RecallPictureError("a recall picture deals no cards")  # pragma: no cover


def _replayer(logged: LoggedRound) -> tuple[Callable[[list[Any]], Any], Any]:
    """How the round's table type replays a prefix of engine events, and its fresh engine."""
    config = logged.config
    if uth_rules_of(config) is not None:
        uth = uth_rules(config)
        return (
            lambda events: uth_replay(uth, events, config.table_id),
            UthRound(uth, config.table_id),
        )
    if config.table_type is TableType.HYBRID:
        rules = three_position_rules(config.rules)
        return (
            lambda events: three_position.replay(rules, events),
            three_position.ThreePositionRound(rules),
        )
    if config.table_type is TableType.HYBRID_NO_HOLE_CARD:
        return (
            lambda events: no_hole_card.replay(config.rules, events),
            no_hole_card.NoHoleCardRound(config.rules),
        )
    return (lambda events: replay(config.rules, events)), BlackjackRound(config.rules)


def _engine_states(logged: LoggedRound) -> list[Any]:
    """``states[k]``: the engine after the first ``k`` engine events of the round, or None
    where ``k`` falls inside an engine step (that prefix does not replay).

    Raises:
        RecallPictureError: the whole round does not replay (the log is damaged).
    """
    again, fresh = _replayer(logged)
    events = [item.event for item in logged.engine_events()]
    states: list[Any] = [fresh]
    for k in range(1, len(events) + 1):
        try:
            states.append(again(events[:k]))
        except ReplayMismatch as exc:
            if k == len(events):
                raise RecallPictureError(
                    f"round {logged.round_id} of table {logged.table_id} does not replay "
                    f"through the engine ({exc}); run etg verify on the log"
                ) from None
            states.append(None)
    return states


def _take_back(view: dict[str, Any], later: Sequence[Any]) -> None:
    """Undo, on a view, the events ``later`` of the same engine step (last one first): their
    cards, the hole card's reveal, their wagers; and nobody is to act inside a step."""
    seats = {seat["seat"]: seat for seat in view["seats"]}
    dealer = view["dealer"]
    for ev in reversed(later):
        kind = type(ev)
        if kind is CardDealt:
            if ev.seat == DEALER:
                if dealer["cards"]:
                    dealer["cards"].pop()
            else:
                for hand in seats[ev.seat]["hands"] if ev.seat in seats else ():
                    if hand["index"] == ev.hand and hand["cards"]:
                        hand["cards"].pop()
        elif kind is HoleCardRevealed:
            shown = dealer["cards"][:1]
            dealer["cards"] = shown + [{"hidden": True}] * (len(dealer["cards"]) > 1)
            dealer["total"] = None
            dealer["hole_revealed"] = False
        elif kind is WagerPlaced and ev.seat in seats:
            # Inside a step only a split or a double places a wager: it is the hand's (the
            # seat's wagers are those of the betting phase, whose steps replay one by one).
            for hand in seats[ev.seat]["hands"]:
                if hand["index"] == ev.hand:
                    _less(hand["wagers"], ev.wager, ev.amount)
    for seat in seats.values():
        seat["hands"] = [hand for hand in seat["hands"] if hand["cards"] or hand["index"] == 0]
        for hand in seat["hands"]:
            hand["done"] = False
    view["to_act"] = None
    view["actions"] = []
    view["insurance"] = None


def _less(wagers: dict[str, int], name: str, amount: int) -> None:
    left = wagers.get(name, 0) - amount
    if left > 0:
        wagers[name] = left
    else:
        wagers.pop(name, None)


def _seated(logged: LoggedRound, terminal: str | None) -> tuple[dict[str, int], str]:
    """The round's seats and the terminal whose views are drawn (default
    :func:`default_terminal`), refusing one that held no seat in it."""
    seats = round_seats(logged)
    if terminal is None:
        return seats, default_terminal(logged)
    if terminal not in seats:
        known = ", ".join(sorted(seats)) or "none"
        raise RecallPictureError(
            f"terminal {terminal!r} held no seat in round {logged.round_id} of table "
            f"{logged.table_id}; its terminals are: {known}"
        )
    return seats, terminal


def _folded(
    logged: LoggedRound, ledger: Ledger, states: Sequence[Any], *, forward: bool
) -> Iterator[tuple[Logged, int, int]]:
    """Each event of the round, once folded into ``ledger`` (started from ``round_started``'s
    balances; without them credits are not folded), with the number of engine events up to
    and including it and the index in ``states`` of the engine to show: inside an engine step
    (a prefix that does not replay) the end of that step (``forward``) or the state before
    it."""
    started = logged.started
    if started is not None:
        ledger.wallets.update(zip(started.terminals, started.balances, strict=False))
    kinds = engine_kinds_for(logged.config)
    done = 0
    for item in logged.events:
        try:
            if started is not None:
                ledger.apply(item.stored.terminal, item.event)
        except RulesError as exc:
            raise RecallPictureError(
                f"seq {item.seq}: the round's events do not fold into balances: {exc}"
            ) from None
        if type(item.event) in kinds:
            done += 1
        end = done
        while states[end] is None:
            end += 1 if forward else -1
        yield item, done, end


def round_views(logged: LoggedRound, terminal: str | None = None) -> list[dict[str, Any]]:
    """The v1 view ``terminal`` would have had after each logged event of the round.

    Args:
        logged: The round (:func:`~game_server.recall.query.fetch_round`).
        terminal: Whose view ("mine" in the view); default :func:`default_terminal`.

    Returns:
        One JSON-ready view per event of ``logged.events``, in log order.

    Raises:
        RecallPictureError: ``terminal`` did not take part in the round, or the round does
            not replay.
    """
    if uth_rules_of(logged.config) is not None:
        return _uth_round_views(logged, terminal)
    if logged.config.table_type is not TableType.FULLY_AUTOMATED:
        return _hybrid_round_views(logged, terminal)
    seats, terminal = _seated(logged, terminal)
    states = _engine_states(logged)
    shoes = SealedShoes(logged.config, _no_shoe, b"", "recall")
    session = TableSession(logged.config, MemorySink(), shoes, seats)
    session.round_id = logged.round_id
    session.ledger = ledger = Ledger()
    engine = [item.event for item in logged.engine_events()]
    settlements: list[dict[str, Any]] = []
    views: list[dict[str, Any]] = []
    for item, done, end in _folded(logged, ledger, states, forward=True):
        ev = item.event
        if type(ev) is WagerSettled and item.stored.terminal == terminal:
            settlements.append(settlement_view(ev))
        session.round = states[end]  # kept after round_closed: the final table
        view = view_for(session, terminal)
        if end > done:
            _take_back(view, engine[done:end])
        view["settlements"] = list(settlements)
        views.append(view)
    return views


def _hybrid_round_views(logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
    """:func:`round_views` at a hybrid table (58 Pa. Code 633b.5): the hybrid view
    (:func:`~game_server.games.hybrid.views.hybrid_view_for`) of a stand-in session holding
    the replayed round. An event inside an engine step shows the table as it was before that
    step (the step's cards appear with its last event)."""
    players: list[str] = []
    for item in logged.engine_events():
        who = item.stored.terminal
        if who is not None and who not in players:
            players.append(who)
    if terminal is None:
        terminal = default_terminal(logged)
    if terminal not in players:
        raise RecallPictureError(
            f"terminal {terminal!r} played no hand in round {logged.round_id} of table "
            f"{logged.table_id}; its players are: {', '.join(players) or 'none'}"
        )
    states = _engine_states(logged)
    started = logged.started
    shoes = SealedShoes(logged.config, _no_shoe, b"", "recall")
    terminals = players if started is None else [*started.terminals, *players]
    session = HybridSession(logged.config, MemorySink(), shoes, terminals)
    session.round_id = logged.round_id
    session.ledger = ledger = Ledger()
    # The no-hole-card table numbers its players; each player's events name his terminal.
    numbers = {
        item.event.seat: item.stored.terminal
        for item in logged.engine_events()
        if item.stored.terminal is not None and isinstance(getattr(item.event, "seat", None), int)
    }
    settlements: list[dict[str, Any]] = []
    views: list[dict[str, Any]] = []
    for item, _, end in _folded(logged, ledger, states, forward=False):
        if type(item.event) in _SETTLED and item.stored.terminal == terminal:
            settlements.append({"round": logged.round_id, **settlement_view(item.event)})
        session.resume(states[end], numbers)
        view = hybrid_view_for(session, terminal)
        view["settlements"] = list(settlements)
        views.append(view)
    return views


def _uth_round_views(logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
    """:func:`round_views` at an Ultimate Texas Hold 'Em table (58 Pa. Code 653a): the Hold
    'Em view (:func:`~game_server.games.uth.views.uth_view_for`) of a stand-in session holding
    the replayed round, its settlements and draws kept by the live table's own listener
    (:class:`~game_server.games.uth.machine.UthResults`) fed the logged events one by one. An
    event inside an engine step shows the table as it was before that step."""
    seats, terminal = _seated(logged, terminal)
    states = _engine_states(logged)
    shoes = SealedShoes(logged.config, _no_shoe, b"", "recall")
    session = UthSession(logged.config, MemorySink(), shoes, seats)
    session.round_id = logged.round_id
    session.ledger = ledger = UthLedger()
    results = UthResults(session)
    views: list[dict[str, Any]] = []
    for item, _, end in _folded(logged, ledger, states, forward=False):
        session.round = states[end]
        results.step_logged([item.event])
        views.append(uth_view_for(session, terminal, results=results))
    return views


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


def settlement_line(item: Mapping[str, Any], split: bool) -> str:
    """``"Blackjack: won (Win 1 to 1), paid $10.00 on $5.00"`` (with the hand after a
    split)."""
    hand = f" hand {item['hand'] + 1}" if split and item["wager"] in _HAND_WAGERS else ""
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


def draw_recall_picture(surface: pygame.Surface, view: dict[str, Any], caption: Caption) -> None:
    """Draw one view with the terminal's scene renderer, then the tool's header band and
    the band of the terminal's settlements."""
    layout = Layout.for_window(surface.get_size())
    model = TerminalModel()
    model.apply_view(view)
    if model.view is None:  # pragma: no cover - round_views builds views parse_view reads
        raise RecallPictureError(f"event {caption.index}: the view is not one the terminal reads")
    if model.uth is not None:
        draw_uth_scene(surface, layout, model.uth, dealt=bool(view["uth"]["hole"]))
    elif model.hybrid is not None:
        draw_hybrid_scene(surface, layout, model.hybrid, dealt=bool(view["hybrid"]))
    else:
        draw_scene(surface, layout, model)
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
    _draw_settlements(surface, layout, model)


def _draw_settlements(surface: pygame.Surface, layout: Layout, model: TerminalModel) -> None:
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
) -> list[Path]:
    """Write the final picture to ``png`` and/or one picture per event into ``frames``
    (created if missing, ``event-0001.png`` ...). Returns the files written.

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
        draw_recall_picture(surface, view, caption)
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
