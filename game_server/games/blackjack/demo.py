"""``etg demo`` of a Blackjack table: a simulated table told in the console.

Bots sit at every seat and play basic strategy through the same
:class:`~game_server.games.blackjack.sim.TableDriver` as the simulator; :class:`Narrator`
turns each round's events into lines a person can follow: every card as it is dealt
(``Seat 3: 10♦ 7♠ (17)``), the hole card face down, each decision and who made it (a bot
never lets the countdown run out, so always "player"), the peek, the hole card turned up, the
dealer's draws and every settlement with its line and amount. The narrator works only from
the events, as a terminal would, so what it shows is what the engine logged.

Entry point: :func:`run_demo`.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from game_server.config import Shuffle, TableConfig
from game_server.games.blackjack.rules.events import (
    BLACKJACK,
    DEALER,
    DOUBLE,
    INSURANCE,
    CardDealt,
    DealerPeeked,
    Decision,
    HoleCardRevealed,
    RoundCompleted,
    WagerPlaced,
    WagerSettled,
)
from game_server.games.blackjack.rules.round import EVEN_MONEY, INSURANCE_DECISION, NO_INSURANCE
from game_server.games.blackjack.rules.rules import BlackjackRules
from game_server.games.blackjack.sim import TableDriver, tally
from game_server.rules.twenty_one import format_total
from game_server.sim import SimResult, format_report, fresh_shoes, seeded_shoes
from shared.cards import Card
from shared.money import format_money

_VERBS = {
    "hit": "hits",
    "stand": "stands",
    "double": "doubles down",
    "split": "splits",
    "surrender": "surrenders",
    INSURANCE_DECISION: "takes insurance",
    NO_INSURANCE: "declines insurance",
    EVEN_MONEY: "takes even money",
}


def _cards(cards: Iterable[Card]) -> str:
    return " ".join(c.symbol for c in cards)


class Narrator:
    """Turns the events of rounds into lines of text, keeping what a terminal would know.

    Args:
        rules: The table's rules (for the side wagers' titles).

    Attributes:
        net: Each seat's net result in cents over every narrated round.
    """

    def __init__(self, rules: BlackjackRules) -> None:
        self._titles = {BLACKJACK: "Blackjack", DOUBLE: "Double down", INSURANCE: "Insurance"}
        for offer in rules.side_wagers:
            self._titles[offer.wager.name] = offer.wager.title
        self.net: dict[int, int] = defaultdict(int)
        self._hands: dict[tuple[int, int], list[Card]] = {}
        self._split_hands: set[int] = set()
        self._dealer: list[Card] = []
        self._hole_down = False
        self._dealt = False
        self._splitting: tuple[int, int] | None = None

    def _title(self, wager: str) -> str:
        return self._titles.get(wager, wager)

    def _who(self, seat: int, hand: int) -> str:
        if seat in self._split_hands:
            return f"Seat {seat} hand {hand + 1}"
        return f"Seat {seat}"

    def _hand_text(self, seat: int, hand: int) -> str:
        cards = self._hands.get((seat, hand), [])
        return f"{_cards(cards)} ({format_total(cards)})"

    def _dealer_text(self) -> str:
        if self._hole_down:
            return f"{_cards(self._dealer[:1])} [hole card]"
        return f"{_cards(self._dealer)} ({format_total(self._dealer)})"

    def round_lines(self, events: Iterable[Any]) -> Iterator[str]:
        """The lines telling one round, in the order things happened.

        Args:
            events: The round's events, as the engine produced them.

        Yields:
            One line per step: bets, cards, decisions, the dealer's play, settlements.
        """
        self._hands.clear()
        self._split_hands.clear()
        self._dealer.clear()
        self._hole_down = self._dealt = False
        bets: dict[int, list[str]] = {}
        for event in events:
            kind = type(event)
            if kind is WagerPlaced:
                yield from self._placed(event, bets)
            elif kind is CardDealt:
                if not self._dealt:
                    self._dealt = True
                    for seat, texts in bets.items():
                        yield f"Seat {seat} bets {', '.join(texts)}"
                yield self._card(event)
            elif kind is Decision:
                yield self._decision(event)
            elif kind is DealerPeeked:
                yield (
                    "Dealer peeks under the up card: Blackjack!"
                    if event.blackjack
                    else "Dealer peeks under the up card: no Blackjack"
                )
            elif kind is HoleCardRevealed:
                self._hole_down = False
                yield f"Dealer turns over the hole card {event.card.symbol}: {self._dealer_text()}"
            elif kind is WagerSettled:
                yield self._settled(event)
            elif kind is RoundCompleted:
                yield f"Round over: dealer {_cards(event.dealer_cards)} ({event.dealer_total})"

    def _placed(self, event: WagerPlaced, bets: dict[int, list[str]]) -> Iterator[str]:
        amount = format_money(event.amount)
        if not self._dealt:
            bets.setdefault(event.seat, []).append(f"{amount} on {self._title(event.wager)}")
            return
        if event.wager == BLACKJACK and self._splitting is not None:
            # The split's new hand takes the second card of the hand that was split.
            seat, hand = self._splitting
            self._splitting = None
            self._split_hands.add(seat)
            moved = self._hands[seat, hand].pop()
            self._hands[seat, event.hand] = [moved]
            yield (
                f"Seat {seat} puts {amount} on the new hand {event.hand + 1}: "
                f"hand {hand + 1} {self._hand_text(seat, hand)}, "
                f"hand {event.hand + 1} {self._hand_text(seat, event.hand)}"
            )

    def _card(self, event: CardDealt) -> str:
        if event.seat == DEALER:
            self._dealer.append(event.card)
            if not event.face_up:
                self._hole_down = True
                return f"Dealer: {self._dealer_text()}"
            if len(self._dealer) == 1:
                return f"Dealer: {event.card.symbol}"
            return f"Dealer draws {event.card.symbol}: {self._dealer_text()}"
        cards = self._hands.setdefault((event.seat, event.hand), [])
        cards.append(event.card)
        return f"{self._who(event.seat, event.hand)}: {self._hand_text(event.seat, event.hand)}"

    def _decision(self, event: Decision) -> str:
        who = "countdown" if event.auto else "player"
        verb = _VERBS.get(event.action, event.action)
        if event.action == "split":
            self._splitting = (event.seat, event.hand)
        amount = f" ({format_money(event.amount)})" if event.amount else ""
        cards = self._hands.get((event.seat, event.hand))
        on = f" on {format_total(cards)}" if cards and event.action in _VERBS else ""
        if event.action in ("split", INSURANCE_DECISION, NO_INSURANCE, EVEN_MONEY):
            on = ""
        return f"{self._who(event.seat, event.hand)} {verb}{amount}{on} [{who}]"

    def _settled(self, event: WagerSettled) -> str:
        net = event.paid - event.stake
        self.net[event.seat] += net
        if event.wager in (BLACKJACK, DOUBLE):
            who = self._who(event.seat, event.hand)
        else:
            who = f"Seat {event.seat}"
        stake = format_money(event.stake)
        if event.paid == 0:
            money = f"loses {stake}"
        elif net == 0:
            money = f"{stake} returned"
        else:
            sign = "+" if net > 0 else ""
            money = f"pays {format_money(event.paid)} on {stake} ({sign}{format_money(net)})"
        return f"{who} {self._title(event.wager)}: {event.line}, {money}"


def run_demo(
    config: TableConfig,
    *,
    rounds: int = 10,
    seats: int = 3,
    seed: int | None = None,
    delay: float = 0.25,
    echo: Callable[[str], Any] = print,
    sleep: Callable[[float], Any] = time.sleep,
) -> SimResult:
    """Play and tell ``rounds`` rounds at ``seats`` seats, then a summary.

    Args:
        config: The table's Rules Submission.
        rounds: Rounds to play.
        seats: Seats with a bot (1..the table's seats).
        seed: Deal deterministic test shoes from this seed; None deals fresh certified shoes
            seeded from the OS entropy source, as a live table does.
        delay: Seconds between two lines.
        echo: Where lines go.
        sleep: How to wait ``delay`` seconds.

    Returns:
        The totals of the rounds played.
    """
    every_round = config.shuffle is Shuffle.EVERY_ROUND
    cut = None if every_round else config.cut_card
    table_id = f"demo-{config.table_id}"
    if seed is None:
        shoes = fresh_shoes(config.rules.decks, cut, table_id)
        source = "fresh certified shoes (OS entropy)"
    else:
        shoes = seeded_shoes(config.rules.decks, cut, seed, table_id)
        source = f"test shoes from seed {seed}"
    driver = TableDriver(config.rules, shoes, seats, every_round=every_round)
    narrator = Narrator(config.rules)
    result = SimResult()
    echo(
        f"Table {config.table_id}: {config.rules.decks} deck{'s' * (config.rules.decks != 1)}, "
        f"{config.shuffle.value} shuffle, "
        f"{seats} seat{'s' * (seats != 1)} with basic-strategy bots, {source}"
    )
    for number in range(1, rounds + 1):
        events = driver.play_round()
        shoe = driver.shoe
        remaining = getattr(shoe, "remaining", None)
        left = "" if remaining is None else f", {remaining} cards left after it"
        echo("")
        echo(f"--- Round {number} (shoe {driver.shoe_number + 1}{left}) ---")
        for line in narrator.round_lines(events):
            echo(line)
            if delay:
                sleep(delay)
        tally(events, result)
    echo("")
    echo(f"=== Summary of {rounds} round{'s' * (rounds != 1)} ===")
    for seat in driver.seats:
        echo(f"Seat {seat}: net {format_money(narrator.net[seat])}")
    echo(format_report(result))
    return result
