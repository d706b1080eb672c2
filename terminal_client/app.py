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
from typing import Any, Final

import pygame
from twisted.internet import task
from twisted.internet.interfaces import IReactorTime

from shared.cards import parse_card
from terminal_client.input import HitTest, PressTracker, Quit, Resize, poll_intents
from terminal_client.input import Intent as InputIntent
from terminal_client.model import IntentKind, TerminalModel
from terminal_client.model.totals import hand_total
from terminal_client.model.uth import ANTE, BET, BLIND, CHECK, FOLD, PLAY, Decision, UthView
from terminal_client.render import Layout
from terminal_client.render.anim import CardAnimation
from terminal_client.screens import IntentSender, ScreenStack, betting_open, screen_for
from terminal_client.screens.scene import SceneScreen
from terminal_client.sound import SoundCues, Sounds

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
        autoplay: Called with the model on every tick, before drawing (:class:`Autoplay`).
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
            self._layout = Layout.for_window(size)
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
        if self._autoplay is not None:
            self._autoplay(self.model)
        if self._model_changed():  # an intent sent is now pending
            self.dirty = True
        if self.stack.update(now):
            self.dirty = True
        self.cards.update(self.model, now)
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
        self.stack.draw(surface, layout)
        self.draws += 1
        self.dirty = False
        if self._present is not None:
            self._present()


# Demo bots and screenshots (``--autoplay``, ``--screenshots``) -------------------------------

#: TriLux Deluxe, at most twice the Blackjack wager (58 Pa. Code 633b.11(b)).
TRILUX: Final = "trilux"

#: Hard totals that stand against a dealer up card of 2 to 6 (12 only against 4 to 6).
_STAND_LOW: Final = range(2, 7)


def basic_strategy(cards: tuple[str, ...], dealer_up: str, legal: frozenset[str]) -> str | None:
    """A simplified basic strategy (multi-deck, dealer stands on soft 17; no surrender),
    limited to the ``legal`` actions. Returns ``None`` when nothing is legal.

    Pairs: always split aces and eights; 2s, 3s, 7s against 2 to 7; 6s against 2 to 6; 9s
    against 2 to 9 but 7; 4s against 5 and 6. Soft totals: stand on 19 or more; 18 doubles
    against 3 to 6, stands against 2, 7, 8 and hits otherwise; soft 13 to 17 double against
    the dealer's weak cards and otherwise hit. Hard totals: stand on 17 or more; 13 to 16
    stand against 2 to 6; 12 stands against 4 to 6; double 11 (against 2 to 10), 10 (against
    2 to 9) and 9 (against 3 to 6); otherwise hit. A wanted double or split that is not legal
    falls back to hit (stand for soft 18).
    """
    if not legal:
        return None
    up = hand_total([dealer_up]).best  # an ace counts 11
    total = hand_total(cards)
    wanted: list[str] = []
    if len(cards) == 2 and "split" in legal:
        pair = {hand_total([c]).best for c in cards}
        if len(pair) == 1:
            rank = pair.pop()
            splits = {
                11: range(2, 12),
                8: range(2, 12),
                2: range(2, 8),
                3: range(2, 8),
                7: range(2, 8),
                6: range(2, 7),
                9: (2, 3, 4, 5, 6, 8, 9),
                4: (5, 6),
            }
            if up in splits.get(rank, ()):
                wanted.append("split")
    best = total.best
    if total.soft:
        if best >= 19:
            wanted.append("stand")
        elif best == 18:
            wanted += ["double", "stand"] if 3 <= up <= 6 else ["stand" if up <= 8 else "hit"]
        else:
            lowest = {17: 3, 16: 4, 15: 4, 14: 5, 13: 5}.get(best, 7)
            if lowest <= up <= 6:
                wanted.append("double")
            wanted.append("hit")
    elif best >= 17 or (best >= 13 and up in _STAND_LOW) or (best == 12 and 4 <= up <= 6):
        wanted.append("stand")
    else:
        if (best == 11 and up <= 10) or (best == 10 and up <= 9) or (best == 9 and 3 <= up <= 6):
            wanted.append("double")
        wanted.append("hit")
    for action in (*wanted, "hit", "stand"):
        if action in legal:
            return action
    return sorted(legal)[0]


def _ranks(cards: tuple[str, ...]) -> list[int]:
    return [parse_card(c).rank for c in cards]


def uth_strategy(
    hole: tuple[str, ...], board: tuple[str, ...], street: str | None, legal: tuple[Decision, ...]
) -> Decision | None:
    """A tiny Ultimate Texas Hold 'Em strategy (the terminal may not import the server's),
    limited to the ``legal`` decisions; ``None`` when nothing is legal.

    Pre-flop: bet 4x (else 3x) with a pair or an ace, else check. Flop: bet 2x with a pair
    made with a hole card (a pocket pair, or a hole card's rank on the board), else check.
    Turn and river: bet 1x with a pair or better made with a hole card, else fold. A wanted
    decision that is not legal falls back to check, then fold, then the first legal one.
    """
    if not legal:
        return None
    holes = _ranks(hole)
    boards = set(_ranks(board))
    pocket_pair = len(holes) == 2 and holes[0] == holes[1]
    paired = pocket_pair or any(r in boards for r in holes)
    wanted: list[tuple[str, int]] = []
    if street == "preflop" and (pocket_pair or 14 in holes):
        wanted += [(BET, 4), (BET, 3)]
    elif street == "flop" and paired:
        wanted.append((BET, 2))
    elif street == "river" and paired:
        wanted.append((BET, 1))
    wanted += [(CHECK, 0), (FOLD, 0)]
    for action, multiple in wanted:
        for decision in legal:
            if decision.action == action and decision.multiple == multiple:
                return decision
    return legal[0]


def demo_wagers(model: TerminalModel, main: str = "blackjack") -> dict[str, int]:
    """What a demo bot stakes on a round: the main wager at its minimum and every side
    wager the table offers at its smallest amount, so that a newcomer sees each of them
    played (at an Ultimate Texas Hold 'Em table the Ante with its equal Blind, Trips, and
    the smallest fixed amount of each bonus wager). TriLux Deluxe is left out when its
    minimum is over twice the Blackjack wager (633b.11(b)); with too few credits for all
    of them, the main wager alone. Empty when the main wager is not offered or affordable.
    """
    view = model.view
    if view is None:
        return {}
    credits = view.credits
    uth = model.uth
    if uth is not None:
        ante = view.limits.get(ANTE)
        if ante is None or credits < 2 * ante.minimum:
            return {}
        wagers = {ANTE: ante.minimum, BLIND: ante.minimum}
        for name, limits in view.limits.items():
            if name in wagers or name == PLAY:
                continue
            fixed = uth.amounts.get(name)
            wagers[name] = min(fixed) if fixed else limits.minimum
    else:
        first = view.limits.get(main)
        if first is None or credits < first.minimum:
            return {}
        wagers = {main: first.minimum}
        for name, side in view.limits.items():
            if name == main or (name == TRILUX and side.minimum > 2 * first.minimum):
                continue
            wagers[name] = side.minimum
    if sum(wagers.values()) > credits:
        # Too little for all of them: the main wager alone (a side wager may need another,
        # e.g. Top 3 the Three Card Poker wager, 633b.7(a), which only the table knows).
        wagers = {name: cents for name, cents in wagers.items() if name in (ANTE, BLIND, main)}
    return wagers


class Autoplay:
    """A bot for demos: on each tick it stakes :func:`demo_wagers` (the main wager's minimum
    and every side wager the table offers) when betting is open and it has no wager in the
    round, declines insurance and plays :func:`basic_strategy` within the legal actions
    the server sent. It acts at most once per situation (a refused decision is not
    repeated; the countdown default then acts); a refused bet with side wagers is tried
    again with the main wager alone.

    With ``think`` seconds it waits that long in each new situation before acting, as a
    person would (the demo's windows and screenshots then show the decision before it is
    taken); ``now`` is the clock (the reactor's ``seconds``).

    At a hybrid table (58 Pa. Code 633b.5) it plays the same way on its own hand's cards and
    the up card of the dealer hand it faces; at the three-position table it joins at
    ``position`` (633b.5(l)); with none given, at a position of its own (from its terminal
    id, so that several demo bots spread over the three). With no card to go by it stands.

    Args:
        client: Where the intents go (the terminal's network client).
        wager: The main wager (the view's limits give its minimum).
        position: The position to choose at a three-position hybrid table (1 to 3).
        think: Seconds to wait in each new situation before acting.
        now: The clock ``think`` is measured on (needed when ``think`` > 0).
    """

    def __init__(
        self,
        client: Any,
        wager: str = "blackjack",
        position: int | None = None,
        *,
        think: float = 0.0,
        now: Callable[[], float] | None = None,
    ) -> None:
        if think > 0 and now is None:
            raise ValueError("a bot that thinks needs a clock (now)")
        self.client = client
        self.wager = wager
        self.position = position
        self.think = think
        self._now = now
        self._done: set[tuple[Any, ...]] = set()
        self._seen: dict[tuple[Any, ...], float] = {}
        self._bet: str | None = None  # the request id of the last bet with side wagers

    def position_for(self, terminal: str | None) -> int:
        """The position this bot chooses at a three-position table."""
        if self.position is not None:
            return self.position
        return 1 + sum(map(ord, terminal or "")) % 3

    def _once(self, key: tuple[Any, ...]) -> bool:
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

    def _place(self, model: TerminalModel, key: tuple[Any, ...]) -> None:
        """Stake :func:`demo_wagers` once per betting window; the main wager alone if the
        table refused that bet."""
        error = model.last_error
        wagers = demo_wagers(model, self.wager)
        main = {self.wager, ANTE, BLIND}
        if self._bet is not None and error is not None and error.request_id == self._bet:
            self._bet = None
            wagers = {name: cents for name, cents in wagers.items() if name in main}
            key = (*key, "main only")
        if not wagers or not self._once(key):
            return
        hybrid = model.hybrid
        if hybrid is not None and hybrid.three_position:
            view = model.view
            sent = self.client.place_wagers(
                wagers, self.position_for(None if view is None else view.terminal)
            )
        else:
            sent = self.client.place_wagers(wagers)
        # The network client returns the intent sent (a recording fake may not).
        self._bet = getattr(sent, "request_id", None) if set(wagers) - main else None

    def __call__(self, model: TerminalModel) -> None:
        view = model.view
        if view is None or model.pending:
            return
        if model.uth is not None:
            self._uth(model, model.uth)
            return
        seat = view.my_seat
        if seat is None and (
            view.phase == "betting" or (view.phase is None and view.state == "open")
        ):
            self._place(model, ("bet", view.round, view.phase))
            return
        if view.insurance is not None and seat is not None and not seat.insurance_decided:
            if not model.is_waiting(IntentKind.INSURANCE) and self._once(("ins", view.round)):
                self.client.answer_insurance("decline")
            return
        hand_index = model.hand_to_act
        if hand_index is None or seat is None:
            return
        hand = next((h for h in seat.hands if h.index == hand_index), None)
        up = view.dealer.cards[0] if view.dealer.cards else None
        legal = model.legal_actions
        if model.hybrid is not None and (hand is None or not hand.cards or up is None):
            # No card to go by at a hybrid table: stand (the countdown's default, 633b.5(p)(2)).
            action = "stand" if "stand" in legal else None
            key = ("act", view.round, hand_index, 0, len(seat.hands))
            if action is not None and self._once(key):
                self.client.act(action, hand_index)
            return
        if hand is None or up is None:
            return
        action = basic_strategy(hand.cards, up, legal)
        key = ("act", view.round, hand_index, len(hand.cards), len(seat.hands))
        if action is not None and self._once(key):
            self.client.act(action, hand_index)

    def _uth(self, model: TerminalModel, uth: UthView) -> None:
        view = uth.view
        if not uth.joined:
            if view.phase == "betting" or view.machine == "betting":
                self._place(model, ("uth-bet", view.round, view.phase))
            return
        # In the round: the next round's betting (whatever its id) bets again.
        self._done = {key for key in self._done if key[0] != "uth-bet"}
        if not model.my_turn or model.is_waiting(IntentKind.ACT):
            return
        decision = uth_strategy(uth.hole, uth.board, uth.street, uth.legal)
        if decision is not None and self._once(("uth-act", view.round, view.phase)):
            self.client.act(decision.action, 0, decision.multiple)


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
