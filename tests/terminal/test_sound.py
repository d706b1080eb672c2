"""The terminal's sounds (terminal_client.sound): synthesised in code, cued by what changes
on the table (a card dealt, the bet taken, a win, the last seconds of this terminal's
countdown), silent without a device or at volume 0, never an error."""

from __future__ import annotations

from typing import Any

import pytest

pygame = pytest.importorskip("pygame")

from client_helpers import AnyClient, playing_view, sample_view, wire_model  # noqa: E402
from test_screens import results_view  # noqa: E402
from twisted.internet.task import Clock  # noqa: E402

from terminal_client.app import TerminalApp  # noqa: E402
from terminal_client.render.anim import CardAnimation  # noqa: E402
from terminal_client.sound import (  # noqa: E402
    CHIPS,
    CUES,
    DEAL,
    PEAK,
    RATE,
    TICK,
    WIN,
    SoundCues,
    Sounds,
    synthesise,
)

pytestmark = pytest.mark.usefixtures("headless")


@pytest.mark.parametrize(
    ("cue", "seconds"), [(DEAL, 0.07), (CHIPS, 0.14), (WIN, 0.75), (TICK, 0.06)]
)
def test_each_sound_is_made_in_code_audible_and_within_range(cue: str, seconds: float) -> None:
    """Every cue is a short clip of 16-bit samples, loud enough to hear, never clipping,
    and the same on every call (no file, no global random state)."""
    samples = synthesise(cue)
    assert len(samples) == int(seconds * RATE)
    assert max(abs(s) for s in samples) > PEAK // 4
    assert all(-PEAK <= s <= PEAK for s in samples)
    assert synthesise(cue) == samples
    with pytest.raises(ValueError, match="no sound"):
        synthesise("fanfare")


class Played:
    def __init__(self) -> None:
        self.cues: list[str] = []

    def play(self, cue: str) -> None:
        self.cues.append(cue)


def test_cards_dealt_the_bet_taken_and_a_win_are_cued_once_each() -> None:
    """The bet taken sounds chips once; each card leaving the shoe a deal; the results of
    a round this terminal won a win, once (not again on the next frame)."""
    clock = Clock()
    model = wire_model(sample_view(round=7, phase="betting", machine="betting"))
    cards = CardAnimation()
    cues = SoundCues()

    def frame() -> list[str]:
        cards.update(model, clock.seconds())
        return cues.update(model, cards.frame(), clock.seconds())

    assert frame() == []
    model.apply_view(playing_view(countdown=None))
    heard = []
    for _ in range(60):
        heard += frame()
        clock.advance(1 / 30)
    assert heard.count(CHIPS) == 1
    assert heard.count(DEAL) == 6  # two cards each for seats 1 and 2 and the dealer
    model.apply_view(results_view())
    heard = []
    for _ in range(60):
        heard += frame()
        clock.advance(1 / 30)
    assert heard.count(WIN) == 1
    lost = results_view()
    for settlement in lost["settlements"]:
        settlement["paid"] = 0
    lost["round"] = 8
    model.apply_view(lost)
    assert WIN not in frame()


def test_the_last_three_seconds_of_my_decision_tick() -> None:
    """This terminal's decision countdown ticks at 3, 2 and 1 (once each); another
    terminal's turn does not."""
    clock = Clock()
    model = wire_model(playing_view())  # 12 s to decide
    cues = SoundCues()
    still = CardAnimation().frame()
    heard = []
    for _ in range(14 * 30):
        heard += cues.update(model, still, clock.seconds())
        clock.advance(1 / 30)
    assert heard.count(TICK) == 3
    model = wire_model(playing_view(to_act={"seat": 3, "hand": 0}, actions=[]))
    cues = SoundCues()
    assert not any(TICK in cues.update(model, still, t / 10) for t in range(150))


def test_the_app_plays_what_each_tick_calls_for() -> None:
    """An app given a player plays the cues of its ticks; without one it is silent."""
    clock = Clock()
    model = wire_model(sample_view(round=7, phase="betting", machine="betting"))
    surface = pygame.Surface((1280, 720))
    played = Played()
    app = TerminalApp(model, AnyClient(), clock, lambda: surface, poll=lambda *a: [], sounds=played)
    app.tick()
    model.apply_view(playing_view(countdown=None))
    for _ in range(30):
        clock.advance(1 / 30)
        app.tick()
    assert played.cues.count(DEAL) == 6 and CHIPS in played.cues


def test_no_device_or_no_volume_is_silent_and_never_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Volume 0 is silent; a mixer that cannot open a device gives a silent player that
    says why; SDL's dummy driver (tests, headless runs) plays into nothing."""
    assert Sounds.open(0).silent == "the volume is 0"

    def broken(*args: Any, **kwargs: Any) -> None:
        raise pygame.error("ALSA: Couldn't open audio device")

    working = pygame.mixer.init
    monkeypatch.setattr(pygame.mixer, "init", broken)
    silent = Sounds.open(0.5)
    assert silent.silent is not None and "no audio device" in silent.silent
    silent.play(DEAL)
    assert silent.played == []
    monkeypatch.setattr(pygame.mixer, "init", working)
    try:
        sounds = Sounds.open(0.5)
        assert sounds.silent is None
        for cue in CUES:
            sounds.play(cue)
        assert sounds.played == list(CUES)
    finally:
        pygame.mixer.quit()
