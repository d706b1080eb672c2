"""The dealer's final hand counted exactly (game_server.rules.wagers.dealer): the counts of a
small shoe against a brute force over its physical cards, the published 28.2% bust chance of
six decks, and Buster Blackjack (633b.13) and the Buzzer Beater on the position's first two
cards (633b.5(u)) against the engines, played by etg sim's drivers."""

from __future__ import annotations

from fractions import Fraction
from math import perm

import pytest

from game_server.config import example_config_path, example_path, load_config, parse_config
from game_server.rules.wagers import REGISTRY
from game_server.rules.wagers.buzzer_beater import BUZZER_BEATER_PAYS, PAYTABLE
from game_server.rules.wagers.buzzer_beater import PAYTABLES as BB_PAYTABLES
from game_server.rules.wagers.dealer import (
    BLACKJACK,
    BUST,
    LENGTH,
    buster_counts,
    buzzer_beater_counts,
    dealer_hands,
    shoe_values,
)
from game_server.rules.wagers.math import wager_math
from game_server.sim import SimSpec, run_sim


def _brute_force(shoe: tuple[int, ...], hits_soft_17: bool) -> dict[tuple[object, int], Fraction]:
    """Every order of the shoe's physical cards the dealer can draw, written again from the
    rules: two cards of 21 a Blackjack, draw to 17, stand on soft 17 unless hitting it."""
    cards = [v for v, count in zip(range(1, 11), shoe, strict=True) for _ in range(count)]
    out: dict[tuple[object, int], Fraction] = {}

    def deal(hand: list[int], left: list[int], chance: Fraction) -> None:
        hard = sum(hand)
        soft = 1 in hand and hard + 10 <= 21
        total = hard + 10 if soft else hard
        final: object = None
        if len(hand) == 2 and total == 21:
            final = BLACKJACK
        elif hard > 21:
            final = BUST
        elif total > 17 or (total == 17 and not (soft and hits_soft_17)):
            final = total
        if final is not None:
            key = (final, len(hand))
            out[key] = out.get(key, Fraction(0)) + chance
            return
        for i, card in enumerate(left):
            deal([*hand, card], left[:i] + left[i + 1 :], chance / len(left))

    deal([], cards, Fraction(1))
    return out


@pytest.mark.parametrize("hits_soft_17", [False, True])
def test_a_small_shoe_against_its_physical_cards(hits_soft_17: bool) -> None:
    """A 16-card shoe (two aces, two each of 6 to 9, six ten-value cards): the counts,
    divided by (16)_14, are the chances of the brute force over the physical cards."""
    shoe = (2, 0, 0, 0, 0, 2, 2, 2, 2, 6)
    counts = dealer_hands(shoe, hits_soft_17)
    total = perm(16, LENGTH)
    assert sum(counts.values()) == total
    assert {k: Fraction(v, total) for k, v in counts.items()} == _brute_force(shoe, hits_soft_17)


def test_six_deck_dealer_busts_28_2_percent_standing_on_soft_17() -> None:
    """Six decks, the dealer standing on soft 17: he busts 28.19% of the time off the top
    (the published 28.2%) and holds a Blackjack 4.75% (2 x 24 x 96 / (312 x 311))."""
    counts = dealer_hands(shoe_values(6))
    total = perm(312, LENGTH)
    bust = sum(v for (final, _), v in counts.items() if final == BUST)
    assert round(bust / total, 4) == 0.2819
    assert Fraction(counts[BLACKJACK, 2], total) == Fraction(2 * 24 * 96, 312 * 311)


def _spec(config_path: str, rounds: int, seats: int) -> SimSpec:
    config = load_config(example_path(config_path))
    return SimSpec(
        config.rules,
        True,
        None,
        seats,
        5,
        rounds,
        chunk_rounds=rounds,
        table_type=config.table_type,
    )


def test_buster_exact_return_is_inside_the_engines_interval() -> None:
    """633b.13(g)-(h): the exact return of Buster Paytable A with six decks (92.45%) lies in
    the 95% interval of 20,000 rounds the engine plays (three seats, the example table with
    Buster); the lines' frequencies agree to within four standard errors."""
    exact = 1 - float(wager_math(REGISTRY["buster"], "Paytable A", 6).house_edge)
    assert round(exact, 4) == 0.9245
    text = example_config_path().read_text()
    text = text[: text.index("\n[wagers.") + 1] + (
        '[wagers.buster]\npaytable = "Paytable A"\nmin = "1.00"\nmax = "100.00"\n'
    )
    rules = parse_config(text).rules
    stats = run_sim(SimSpec(rules, True, None, 3, 5, 20_000, chunk_rounds=20_000)).wagers["buster"]
    ci = stats.ci95()
    assert ci is not None and ci[0] <= exact <= ci[1]
    counts = buster_counts(6, rules.offers["buster"].paytable)
    total = sum(counts.values())
    settled = sum(stats.lines.values())
    for line in ("3 cards", "4 cards", "5 cards", "6 cards"):
        p = counts[line] / total
        sigma = (p * (1 - p) / settled) ** 0.5
        assert abs(stats.lines[line] / settled - p) < 4 * sigma, line


def test_buzzer_beater_on_the_first_two_cards_returns_76_5_percent() -> None:
    """633b.5(u), (v)(3) on the position's first two cards: 76.46% with six decks, exactly,
    over (312)_16 weighted deals; the engine's 12,000 rounds of the three-position table
    (three players, one per position) hold it in their 95% interval, and each line's
    frequency agrees to within four standard errors."""
    counts = buzzer_beater_counts(6, BB_PAYTABLES[PAYTABLE])
    total = sum(counts.values())
    assert total == perm(312, LENGTH + 2)
    result = wager_math(REGISTRY["buzzer_beater"], PAYTABLE, 6)
    exact = 1 - float(result.house_edge)
    assert round(exact, 4) == 0.7646
    stats = run_sim(_spec("hybrid-three-position.toml", 12_000, 3)).wagers["buzzer_beater"]
    ci = stats.ci95()
    assert ci is not None and ci[0] <= exact <= ci[1]
    settled = sum(stats.lines.values())
    for player, dealer in BUZZER_BEATER_PAYS:
        shown = "21 or Blackjack" if dealer == "21" else dealer
        p = counts[f"{player} against {shown}"] / total
        engine = sum(n for line, n in stats.lines.items() if f" {player}/{shown} " in line)
        sigma = (p * (1 - p) / settled) ** 0.5
        assert abs(engine / settled - p) < 4 * sigma, (player, dealer)
