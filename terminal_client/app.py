"""The terminal application: a frame tick driven by the reactor (``task.LoopingCall``; no
threads) that picks the screen from the model, routes intents to the top screen and redraws
only when something changed. Cards dealt and the hole card turned are animated by the app's
one :class:`~terminal_client.render.anim.CardAnimation`, which outlives the screens (the deal
starts on the betting screen and lands on the play screen); while cards move every frame is
drawn, once they rest nothing is. Each tick plays the sounds it calls for
(:mod:`terminal_client.sound`) when the app has a player for them.

Entry point: :class:`TerminalApp`; the command line is :mod:`terminal_client.cli`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pygame
from twisted.internet import task
from twisted.internet.interfaces import IReactorTime

from terminal_client import games
from terminal_client.input import HitTest, PressTracker, Quit, Resize, poll_intents
from terminal_client.input import Intent as InputIntent
from terminal_client.model import TerminalModel
from terminal_client.render import Layout
from terminal_client.render.anim import CardAnimation
from terminal_client.screens import IntentSender, ScreenStack, betting_open, screen_for
from terminal_client.screens.scene import SceneScreen, draw_shoe_line
from terminal_client.sound import SoundCues, Sounds
from terminal_client.typescale import Glass

#: ``poll(hit_test, tracker, window_size) -> intents`` (default: the pygame event queue).
Poll = Callable[[HitTest, PressTracker, tuple[int, int]], list[InputIntent]]


class TerminalApp:
    """The frame loop of one terminal.

    Args:
        model: The model the network client feeds.
        client: The network client the screens send intents through.
        clock: The reactor (tests: ``task.Clock``) that runs the frame tick.
        surface_provider: Returns the surface to draw on (the display surface).
        fps: Frames per second of the tick.
        present: Shows a drawn frame (``pygame.display.flip`` for a window; default none).
        on_quit: Called when the window is closed.
        poll: Where intents come from (default :func:`terminal_client.input.poll_intents`).
        autoplay: Called with the model on every tick in which no card is in motion, before
            drawing (:class:`Autoplay`).
        after_draw: Called with the model and the surface at the end of every tick in which
            no card is in motion (:class:`Screenshots`).
        sounds: Plays the cues each tick calls for (:class:`~terminal_client.sound.Sounds`;
            default none: silent).
    """

    def __init__(
        self,
        model: TerminalModel,
        client: IntentSender,
        clock: IReactorTime,
        surface_provider: Callable[[], pygame.Surface],
        *,
        fps: int = 30,
        present: Callable[[], Any] | None = None,
        on_quit: Callable[[], Any] | None = None,
        poll: Poll = poll_intents,
        autoplay: Callable[[TerminalModel], Any] | None = None,
        after_draw: Callable[[TerminalModel, pygame.Surface], Any] | None = None,
        sounds: Sounds | None = None,
        glass: Glass | None = None,
    ) -> None:
        self.model = model
        self.client = client
        self.clock: Any = clock
        self.fps = fps
        self.stack = ScreenStack()
        self.tracker = PressTracker()
        self.cards = CardAnimation()
        self.draws = 0
        self.dirty = True
        self.running = False
        self._surface_provider = surface_provider
        self._present = present
        self._on_quit = on_quit
        self._poll = poll
        self._autoplay = autoplay
        self._after_draw = after_draw
        #: The screen's physical size: the type scale's pixels come from it.
        self.glass = glass or Glass()
        self._sounds = sounds
        self.cues = SoundCues()
        self._layout: Layout | None = None
        self._seen: int | None = None
        self._loop: task.LoopingCall | None = None
        self._decision_was_due = False

    # Running --------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the frame tick on the reactor."""
        self.running = True
        self._loop = task.LoopingCall(self.tick)
        self._loop.clock = self.clock
        self._loop.start(1 / self.fps, now=True)

    def stop(self) -> None:
        self.running = False
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None

    def run_headless(self, frames: int) -> None:
        """Run ``frames`` ticks now (tests; the clock is advanced by the caller)."""
        for _ in range(frames):
            self.tick()

    # One frame ------------------------------------------------------------------------------

    def layout(self) -> Layout:
        size = self._surface_provider().get_size()
        if self._layout is None or self._layout.size != size:
            self._layout = Layout.for_window(size, self.glass)
            self.dirty = True
        return self._layout

    def _model_changed(self) -> bool:
        """Whether the model took anything since the last frame: a view, an answer, a
        refusal, the connection, or a document (the rules arriving under an open overlay)."""
        seen = self.model.revision
        old, self._seen = self._seen, seen
        return old != seen

    def tick(self) -> None:
        """Pick the screen, handle the player's intents, advance time, draw if needed."""
        now = self.clock.seconds()
        layout = self.layout()
        if self._model_changed():
            self.dirty = True
        wanted = screen_for(self.model)
        decision = self._decision_due()
        if type(self.stack.base) is not wanted:
            screen = wanted(self.model, self.client)
            if isinstance(screen, SceneScreen) and isinstance(self.stack.base, SceneScreen):
                self.stack.replace_base(screen)  # the rules or recall stay open
            else:
                self.stack.reset(screen)
            self.tracker.clear()
            self.dirty = True
        if decision and not self._decision_was_due and self.stack.drop_overlays():
            # The player's decision is due: show the buttons, not an overlay over them.
            self.tracker.clear()
            self.dirty = True
        self._decision_was_due = decision
        for intent in self._poll(partial(self.stack.hit_test, layout), self.tracker, layout.size):
            if isinstance(intent, Quit):
                self.stop()
                if self._on_quit is not None:
                    self._on_quit()
                return
            if isinstance(intent, Resize):
                layout = self.layout()  # rebuilt (and redrawn) only if the size changed
            elif self.stack.handle(intent):
                self.dirty = True
        self.cards.update(self.model, now)
        if self._autoplay is not None and not self.cards.frame().moving:
            # A bot, like a person, decides on the cards it has seen land (its thinking
            # time starts then, and the screen at rest on its decision can be pictured).
            self._autoplay(self.model)
            self.cards.update(self.model, now)  # the cards of a view its intent brought
        if self._model_changed():  # an intent sent is now pending
            self.dirty = True
        if self.stack.update(now):
            self.dirty = True
        if self._cards_moved():
            self.dirty = True
        if self._sounds is not None:
            for cue in self.cues.update(self.model, self.cards.frame(), now):
                self._sounds.play(cue)
        if self.dirty:
            self.draw(layout)
        if self._after_draw is not None and not self.cards.frame().moving:
            # Once the cards have landed: a screenshot shows the round as the player saw it.
            self._after_draw(self.model, self._surface_provider())

    def _decision_due(self) -> bool:
        """This terminal must decide now: its turn, or an insurance offer to answer."""
        return self.model.my_turn or self.model.insurance is not None

    def _cards_moved(self) -> bool:
        """Hand the cards in motion to the screens that draw the scene; True when what one
        of them draws changed (a frame at the same time as the last, as under a stopped
        clock, changes nothing and is not redrawn)."""
        frame = self.cards.frame()
        shown = frame if frame.moving else None
        changed = False
        for screen in self.stack.screens:
            if not isinstance(screen, SceneScreen):
                continue
            old = screen.cards
            if (old is None) != (shown is None) or (
                old is not None and shown is not None and old.motions != shown.motions
            ):
                changed = True
            screen.cards = shown
        return changed

    def draw(self, layout: Layout) -> None:
        surface = self._surface_provider()
        draw_frame(self.stack, surface, layout, self.model)
        self.draws += 1
        self.dirty = False
        if self._present is not None:
            self._present()


def draw_frame(
    stack: ScreenStack, surface: pygame.Surface, layout: Layout, model: TerminalModel
) -> None:
    """One frame: the screens bottom-up, and under a screen of the table (not an overlay)
    the table corner's shoe line."""
    stack.draw(surface, layout)
    if isinstance(stack.top, SceneScreen):
        draw_shoe_line(surface, layout, model)


# Demo bots and screenshots (``--autoplay``, ``--screenshots``) -------------------------------


def demo_wagers(model: TerminalModel) -> dict[str, int]:
    """What a demo bot stakes on a round at the model's table: its game's demo wagers
    (:meth:`~terminal_client.games.api.TerminalGame.demo_wagers`: the main wager at its
    minimum and every side wager offered, so that a newcomer sees each of them played).
    Empty when the main wager is not offered or affordable."""
    return games.of(model).demo_wagers(model)


class Autoplay:
    """A bot for demos: on each tick it plays its table's game
    (:meth:`~terminal_client.games.api.TerminalGame.demo_play`): it stakes the game's demo
    wagers (:func:`demo_wagers`) when betting is open and it has no wager in the round and
    decides within the legal actions the server sent (Blackjack: declining insurance and
    playing basic strategy). It acts at most once per situation (a refused decision is not
    repeated; the countdown default then acts); a refused bet with side wagers is tried
    again with the main wager alone.

    With ``think`` seconds it waits that long in each new situation before acting, as a
    person would (the demo's windows and screenshots then show the decision before it is
    taken); ``now`` is the clock (the reactor's ``seconds``).

    Where the table has player positions (the three-position hybrid table, 633b.5(l)) it
    joins at ``position``; with none given, at a position of its own (from its terminal id,
    so that several demo bots spread over the three).

    Args:
        client: Where the intents go (the terminal's network client).
        position: The position to choose at a table with positions (1 to 3).
        think: Seconds to wait in each new situation before acting.
        now: The clock ``think`` is measured on (needed when ``think`` > 0).
    """

    def __init__(
        self,
        client: Any,
        position: int | None = None,
        *,
        think: float = 0.0,
        now: Callable[[], float] | None = None,
    ) -> None:
        if think > 0 and now is None:
            raise ValueError("a bot that thinks needs a clock (now)")
        self.client = client
        self.position = position
        self.think = think
        self._now = now
        self._done: set[tuple[Any, ...]] = set()
        self._seen: dict[tuple[Any, ...], float] = {}
        self._bet: str | None = None  # the request id of the last bet with side wagers

    def position_for(self, terminal: str | None) -> int:
        """The position this bot chooses at a table with positions."""
        if self.position is not None:
            return self.position
        return 1 + sum(map(ord, terminal or "")) % 3

    def once(self, key: tuple[Any, ...]) -> bool:
        """True the first time ``key`` is ready to act on (after ``think`` seconds)."""
        if key in self._done:
            return False
        if self.think > 0 and self._now is not None:
            now = self._now()
            first = self._seen.setdefault(key, now)
            if now - first < self.think:
                return False
        if len(self._done) > 1000:
            self._done.clear()
            self._seen.clear()
        self._done.add(key)
        return True

    def forget(self, kind: str) -> None:
        """Forget the situations of ``kind`` acted on: the next one acts again."""
        self._done = {key for key in self._done if key[0] != kind}

    def place(self, model: TerminalModel, key: tuple[Any, ...], position: int | None) -> None:
        """Stake :func:`demo_wagers` once per betting window (at ``position`` where the
        table has positions); the game's main wagers alone if the table refused that bet."""
        game = games.of(model)
        error = model.last_error
        wagers = demo_wagers(model)
        main = game.main_wagers()
        if self._bet is not None and error is not None and error.request_id == self._bet:
            self._bet = None
            wagers = {name: cents for name, cents in wagers.items() if name in main}
            key = (*key, "main only")
        if not wagers or not self.once(key):
            return
        if position is not None:
            sent = self.client.place_wagers(wagers, position)
        else:
            sent = self.client.place_wagers(wagers)
        # The network client returns the intent sent (a recording fake may not).
        self._bet = getattr(sent, "request_id", None) if set(wagers) - main else None

    def __call__(self, model: TerminalModel) -> None:
        if model.view is None or model.pending:
            return
        games.of(model).demo_play(self, model)


class Screenshots:
    """Saves the drawn frame as ``directory/<terminal>-round<k>.png`` when a round shows its
    results: the first round this terminal sees, then every ``every``-th, and always the
    latest (a round that is neither stays only until the next round's results replace it,
    so the last round of a demo is always there).

    With ``screens`` it also keeps this terminal's latest betting, play and results screens
    as ``<terminal>-betting.png``, ``-play.png`` and ``-results.png``: the betting screen once
    its bet is in, the play screen when a decision is this terminal's, the results screen
    of each round (the pictures of ``docs/screens``).

    Args:
        directory: Where the PNG files go (created if missing).
        every: Rounds between two kept screenshots.
        screens: Also keep the latest screen of each kind.
    """

    def __init__(self, directory: Path, every: int = 1, screens: bool = False) -> None:
        self.directory = directory
        self.every = max(1, every)
        self.screens = screens
        self.seen = 0
        self.saved: list[Path] = []
        self._last: Any = None
        self._passing: Path | None = None  # the latest round's picture, not one to keep
        self._shot: dict[str, Any] = {}  # per kind of screen: the situation last saved

    def __call__(self, model: TerminalModel, surface: pygame.Surface) -> None:
        view = model.view
        if view is None:
            return
        if view.phase == "complete" and view.round != self._last:
            self._round(view.terminal or "terminal", view.round, surface)
        if self.screens:
            self._screen(model, surface)

    def _round(self, name: str, round_id: Any, surface: pygame.Surface) -> None:
        self._last = round_id
        self.seen += 1
        path = self._save(surface, f"{name}-round{round_id}.png")
        if self._passing is not None and self._passing != path:
            self._passing.unlink(missing_ok=True)
            self.saved.remove(self._passing)
        self._passing = None if (self.seen - 1) % self.every == 0 else path

    def _screen(self, model: TerminalModel, surface: pygame.Surface) -> None:
        view = model.view
        assert view is not None
        role = getattr(screen_for(model), "role", None)
        if role == "betting" and betting_open(model) and model.in_round:
            situation: Any = view.round
        elif role == "play" and model.my_turn and not model.pending:
            hands = tuple(len(hand.cards) for hand in model.my_hands)
            situation = (view.round, view.phase, model.hand_to_act, hands)
        elif role == "results" and view.phase == "complete":
            situation = view.round
        else:
            return
        if self._shot.get(role) == situation:
            return
        self._shot[role] = situation
        path = self._save(surface, f"{view.terminal or 'terminal'}-{role}.png")
        if self.saved.count(path) > 1:
            self.saved.remove(path)

    def _save(self, surface: pygame.Surface, name: str) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / name
        pygame.image.save(surface, str(path))
        self.saved.append(path)
        return path
