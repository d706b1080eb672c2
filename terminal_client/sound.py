"""The terminal's sounds: a card dealt, chips placed, a win, the countdown's last seconds.

Each sound is synthesised here in a few lines of arithmetic (:func:`synthesise`: filtered
noise for a card, ringing partials for chips, a rising chime for a win, a short beep for a
countdown tick), so no sound file of unclear licence ships. :class:`SoundCues` decides,
from the model and the cards' motion alone, which sound each frame calls for (it plays
nothing); :class:`Sounds` plays them through ``pygame.mixer`` at the terminal's volume.

Silent by construction where it must be: the app plays nothing unless it is given
:class:`Sounds` (tests are not), SDL's dummy audio driver of the headless runs discards
what is played, and with no audio device (or volume 0) :meth:`Sounds.open` returns a
silent player and says why once; nothing here raises because a machine has no speaker.

Entry points: :meth:`Sounds.open`, :class:`SoundCues`, :func:`synthesise`.
"""

from __future__ import annotations

import array
import math
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Final

from terminal_client.model import TerminalModel, View
from terminal_client.render.anim import CardFrame

#: The sounds, by cue.
DEAL: Final = "deal"
CHIPS: Final = "chips"
WIN: Final = "win"
TICK: Final = "tick"
CUES: Final = (DEAL, CHIPS, WIN, TICK)

#: The countdown ticks in its last seconds (3, 2, 1).
TICK_FROM: Final = 3
#: Samples per second of the synthesised sounds.
RATE: Final = 22_050
#: The loudest sample (of 32767): headroom when several sounds play at once.
PEAK: Final = 12_000


class _Noise:
    """A small linear congruential generator: the same noise every time (a card's sound
    does not change between runs), and no global random state is touched."""

    def __init__(self, seed: int) -> None:
        self.state = seed

    def __call__(self) -> float:
        self.state = (1_103_515_245 * self.state + 12_345) % 2**31
        return self.state / 2**30 - 1.0


def _samples(seconds: float, rate: int, value: Callable[[float], float]) -> array.array[int]:
    count = int(seconds * rate)
    out = array.array("h")
    for i in range(count):
        sample = value(i / rate)
        out.append(int(max(-1.0, min(1.0, sample)) * PEAK))
    return out


def synthesise(cue: str, rate: int = RATE) -> array.array[int]:
    """The mono 16-bit samples of ``cue`` at ``rate`` per second.

    - ``deal``: a card leaving the shoe, 70 ms of noise smoothed towards a swish and
      fading fast;
    - ``chips``: three clicks of ringing partials (3.1, 4.7 and 6.3 kHz), like chips
      landing on a stack;
    - ``win``: a rising chime, C-E-G-C, each note with two harmonics and a soft decay;
    - ``tick``: a 60 ms beep at 1 kHz for each of the countdown's last seconds.
    """
    if cue == DEAL:
        noise = _Noise(7)
        last = [0.0]

        def swish(t: float) -> float:
            last[0] = 0.65 * last[0] + 0.35 * noise()
            return 1.6 * last[0] * math.exp(-t / 0.018) * min(1.0, t / 0.003)

        return _samples(0.07, rate, swish)
    if cue == CHIPS:

        def clicks(t: float) -> float:
            total = 0.0
            for start in (0.0, 0.045, 0.082):
                dt = t - start
                if dt >= 0:
                    ring = sum(math.sin(2 * math.pi * f * dt) for f in (3100, 4700, 6300))
                    total += ring / 3 * math.exp(-dt / 0.012)
            return total

        return _samples(0.14, rate, clicks)
    if cue == WIN:
        notes = (523.25, 659.25, 783.99, 1046.5)

        def chime(t: float) -> float:
            total = 0.0
            for n, freq in enumerate(notes):
                dt = t - 0.09 * n
                if dt >= 0:
                    tone = sum(math.sin(2 * math.pi * freq * k * dt) / k**1.5 for k in (1, 2, 3))
                    total += 0.45 * tone * math.exp(-dt / 0.25) * min(1.0, dt / 0.004)
            return total

        return _samples(0.75, rate, chime)
    if cue == TICK:

        def beep(t: float) -> float:
            return math.sin(2 * math.pi * 1000 * t) * min(1.0, t / 0.003, (0.06 - t) / 0.01)

        return _samples(0.06, rate, beep)
    raise ValueError(f"no sound {cue!r}: the sounds are {', '.join(CUES)}")


class SoundCues:
    """Which sounds a frame calls for, from what changed since the last frame:

    - ``deal``: a card left the shoe (or the hole card started to turn);
    - ``chips``: this terminal's bet was taken (it now has wagers in the round);
    - ``win``: a round's results show that this terminal won (its settlements net more
      than nothing), once per round;
    - ``tick``: each of the last :data:`TICK_FROM` seconds of a countdown this terminal
      must act on (its decision, its insurance offer, the betting window while it has
      not bet).

    It reads the model and the cards' motion and changes neither.
    """

    def __init__(self) -> None:
        self._flying: frozenset[Any] = frozenset()
        self._in_round: tuple[Any, bool] = (None, False)
        self._won: Any = None
        self._view: View | None = None
        self._seen_at = 0.0
        self._ticked: int | None = None

    def update(self, model: TerminalModel, frame: CardFrame, now: float) -> list[str]:
        """The cues of the frame at ``now``."""
        cues: list[str] = []
        moving = frozenset(key for key, m in frame.motions.items() if not m.waiting)
        if moving - self._flying:
            cues.append(DEAL)
        self._flying = moving
        view = model.view
        if view is None:
            return cues
        seated = model.in_round
        if seated and self._in_round != (view.round, True):
            cues.append(CHIPS)
        self._in_round = (view.round, seated)
        if view.phase == "complete" and view.settlements and not frame.moving:
            net = sum(s.net for s in view.settlements)
            if net > 0 and self._won != view.round:
                cues.append(WIN)
            self._won = view.round
        cues += self._tick(model, view, now)
        return cues

    def _tick(self, model: TerminalModel, view: View, now: float) -> list[str]:
        if view is not self._view:
            self._view, self._seen_at = view, now
        countdown = model.countdown
        mine = countdown is not None and (
            model.my_turn
            or model.insurance is not None
            or (countdown.kind == "betting" and not model.in_round and not model.pending)
        )
        if countdown is None or not mine:
            self._ticked = None
            return []
        left = countdown.seconds_left - int(now - self._seen_at)
        if 0 < left <= TICK_FROM and left != self._ticked:
            self._ticked = left
            return [TICK]
        return []


@contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Keep a C library's own complaints (ALSA's, when there is no sound card) off the
    terminal's stderr: the terminal says what matters in one line."""
    try:
        saved = os.dup(2)
    except OSError:  # no stderr to hide
        yield
        return
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


class Sounds:
    """Plays the cues at a volume; a silent one plays nothing (:attr:`silent` says why).

    Build it with :meth:`open`.
    """

    def __init__(self, sounds: dict[str, Any], volume: float, silent: str | None = None) -> None:
        self._sounds = sounds
        self.volume = volume
        self.silent = silent
        self.played: list[str] = []

    @classmethod
    def open(cls, volume: float) -> Sounds:
        """The terminal's sounds at ``volume`` (0 to 1) through ``pygame.mixer``: silent
        (never an error) at volume 0 or when no audio device can be opened."""
        if volume <= 0:
            return cls({}, 0.0, "the volume is 0")
        import pygame

        try:
            with _quiet_stderr():
                pygame.mixer.init(frequency=RATE, size=-16, channels=1, buffer=512)
            opened = pygame.mixer.get_init()
            if opened is None:
                return cls({}, volume, "the audio device did not open")
            rate, _, channels = opened
            sounds = {}
            for cue in CUES:
                mono = synthesise(cue, rate)
                if channels > 1:
                    wide = array.array("h")
                    for sample in mono:
                        wide.extend([sample] * channels)
                    mono = wide
                sound = pygame.mixer.Sound(buffer=mono.tobytes())
                sound.set_volume(min(1.0, volume))
                sounds[cue] = sound
        except (pygame.error, TypeError, OSError) as exc:
            return cls({}, volume, f"no audio device ({exc})")
        return cls(sounds, min(1.0, volume))

    def play(self, cue: str) -> None:
        """Play ``cue`` (nothing when silent)."""
        sound = self._sounds.get(cue)
        if sound is None:
            return
        self.played.append(cue)
        if len(self.played) > 100:
            del self.played[:50]
        sound.play()
