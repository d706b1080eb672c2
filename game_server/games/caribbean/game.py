"""Caribbean Stud Poker as the platform sees it: :data:`GAME` (the ``etg.games`` entry point
``caribbean``), with its recall sentences, its simulation driver (``etg sim``, ``etg par``)
and its ``etg math caribbean_progressive``.

Entry point: :data:`GAME`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from game_server.config import MustHitBy, TableConfig
from game_server.games.api import (
    COMPLETED,
    DEALER_STEP,
    SEAT_CARD,
    SEATED,
    SEEDED,
    WAGER,
    Game,
    MainWager,
    MathReport,
    NotOffered,
    StrategyReport,
)
from game_server.games.base import GameBase
from game_server.games.caribbean import config
from game_server.games.caribbean.info import rules_document
from game_server.games.caribbean.machine import CaribbeanMachine
from game_server.games.caribbean.returns import caribbean_returns
from game_server.games.caribbean.rules import strategy
from game_server.games.caribbean.rules.events import (
    ANTE,
    BET,
    DEALER,
    ENVY,
    FIVE_CARD_DEALER,
    FIVE_CARD_PLAYER,
    LUCKY,
    MAGIC,
    MYSTERY,
    PROGRESSIVE,
    CaribbeanCardDealt,
    CaribbeanDealerRevealed,
    CaribbeanDecision,
    CaribbeanDecisionOpened,
    CaribbeanMysteryPaid,
    CaribbeanRoundCompleted,
    CaribbeanSettlementStarted,
    CaribbeanWagerPlaced,
    CaribbeanWagerSettled,
)
from game_server.games.caribbean.rules.game import (
    CARIBBEAN_KINDS,
    WAGER_TITLES,
    CaribbeanRound,
    Phase,
    replay,
)
from game_server.games.caribbean.rules.rules import CaribbeanRules
from game_server.games.caribbean.session import (
    SECRECY,
    CaribbeanLedger,
    CaribbeanSession,
    bonus_draws,
    feed_mystery,
    meter_specs,
    resume_round,
)
from game_server.games.caribbean.strategy_report import strategy_report
from game_server.recall.rounds import Logged, LoggedRound
from game_server.recall.timeline import (
    DEALER_WHO,
    TABLE_WHO,
    Described,
    Labels,
    card_field,
    card_text,
)
from game_server.rng.shoe import Shoe, ShoeSeed
from game_server.rules.meters import MeterBank
from game_server.rules.returns import WagerReturn
from game_server.rules.wagers import must_hit_by
from game_server.rules.wagers.base import MeterSpec, TableType
from game_server.sim import RoundDriver, RoundTally, SimResult, SimSpec, mystery_draw
from game_server.table.api import HostedTable, ReactorTime
from game_server.table.ledger import Ledger
from game_server.table.secrecy import Secrecy
from game_server.table.session import EventSink, SealedShoes, TableBook
from shared.money import format_money

__all__ = ["CARIBBEAN_BASE", "GAME", "CaribbeanDriver", "CaribbeanGame", "table_wagers"]

_CONFIGS: Final = Path(__file__).resolve().parent / "configs"
#: The base game's two wagers together (the house edge per Ante).
CARIBBEAN_BASE: Final = "ante+bet"
#: Credits each terminal of a logged simulation starts with (cents).
SIM_CREDITS: Final = 1_000_000


def table_wagers(rules: CaribbeanRules, ante: int | None = None) -> dict[str, int]:
    """What a bot places: the Ante (the minimum if None) and every optional wager at its
    smallest amount."""
    wagers = {ANTE: rules.ante_limits.minimum if ante is None else ante}
    if rules.progressive is not None:
        wagers[PROGRESSIVE] = min(rules.progressive.amounts)
    if rules.five_card is not None:
        wagers[FIVE_CARD_PLAYER] = wagers[FIVE_CARD_DEALER] = min(rules.five_card.amounts)
    return wagers


def _group(wager: str) -> str:
    if wager in (ENVY, MYSTERY):  # 639b.1: the Progressive Payout Wager qualifies
        return PROGRESSIVE
    return wager.removesuffix(MAGIC).removesuffix(LUCKY)


class CaribbeanDriver:
    """Whole rounds through the engine, the strategy of :mod:`.rules.strategy` on every seat:
    a new deck per round, the meters fed at the deal and awarded at settlement, the Magic
    Card and Lucky Bonus drawn from the round deck's seed, as at the live table; the
    Must-Hit-By meter (639b.1) fed by the qualifying seats, its triggers drawn from the
    simulation's own certified stream, its awards counted with the Progressive Payout."""

    def __init__(self, spec: SimSpec, chunk: int) -> None:
        self.rules: CaribbeanRules = spec.rules
        self.seats = spec.seats
        self.table_id = f"{spec.table_id}-{chunk}"
        self.seed = spec.seed
        self.wagers = table_wagers(self.rules, spec.main_wager)
        self.meters = MeterBank()
        for meter_id, meter in self.rules.meters().items():
            self.meters.link(meter_id, meter)
        self.mystery: MustHitBy | None = spec.must_hit_by
        self.places = {seat: f"seat-{seat}" for seat in range(1, self.seats + 1)}
        self._draw = mystery_draw(self.seed, self.table_id)
        self.mystery_id = f"{self.table_id}:{MYSTERY}"
        if self.mystery is not None:
            opened = must_hit_by.open_meter(self.mystery_id, self.mystery.spec(), self._draw)
            self.meters.commit(opened)
        self.rounds = 0

    def play_round(self) -> list[Any]:
        self.rounds += 1
        deck = Shoe(1, ShoeSeed.from_test_seed(self.seed, self.table_id, self.rounds))
        game = CaribbeanRound(self.rules, self.table_id)
        out: list[Any] = []
        for seat in range(1, self.seats + 1):
            out += game.place_wagers(seat, self.wagers)
        for meter_id, stake, place in game.contributions():
            self.meters.contribute(meter_id, stake, place)
        if self.mystery is not None:
            fed = feed_mystery(
                game, self.mystery, self.mystery_id, self.meters, self._draw, self.places
            )
            out += [ev for _, ev in fed if type(ev) is CaribbeanMysteryPaid]
        out += game.deal(deck)
        up = game.dealer[0]
        for seat in game.pending:
            out += game.decide(seat, strategy.decide(game.seats[seat].cards, up))
        magic, lucky = bonus_draws(deck.seed, self.rules)
        meters = {m: self.meters.meter(m) for m in self.rules.meters()}
        out += game.settle(meters, magic, lucky)
        for step in game.meter_steps():
            self.meters.commit(step)
        return out


class CaribbeanGame(GameBase):
    """Caribbean Stud Poker at the fully automated electronic table (639a, 639b.1): one
    freshly shuffled deck per round, one shared decision countdown."""

    name = "caribbean"
    title = "Caribbean Stud Poker"
    chapter = "58 Pa. Code 639a"
    config_game = config.CARIBBEAN
    table_types = frozenset({TableType.FULLY_AUTOMATED})
    examples = (_CONFIGS / "caribbean.toml",)
    placed_kinds = frozenset({CaribbeanWagerPlaced})
    settled_kinds = frozenset({CaribbeanWagerSettled, CaribbeanMysteryPaid})
    completed_kinds = frozenset({CaribbeanRoundCompleted})
    shoe_card_kinds = frozenset({CaribbeanCardDealt})
    wager_titles: Mapping[str, str] = {
        **WAGER_TITLES,
        ENVY: "Envy Bonus",
        MYSTERY: "Must-Hit-By Mystery Bonus",
        FIVE_CARD_PLAYER + MAGIC: "Magic Card Bonus (player's hand)",
        FIVE_CARD_DEALER + MAGIC: "Magic Card Bonus (dealer's hand)",
        FIVE_CARD_PLAYER + LUCKY: "Lucky Bonus (player's hand)",
        FIVE_CARD_DEALER + LUCKY: "Lucky Bonus (dealer's hand)",
    }

    # --------------------------------------------------------- the Rules Submission

    def build_config(self, data: Mapping[str, object], source: str) -> TableConfig:
        return config.build_config(data, source)

    def logged_config(self, table: TableConfig) -> dict[str, Any]:
        return config.logged_config(table)

    def file_shape(self, logged: Mapping[str, Any]) -> Mapping[str, object]:
        return config.file_shape(logged)

    # --------------------------------------------------------------- the live table

    def open_session(
        self,
        table: TableConfig,
        sink: EventSink,
        shoes: SealedShoes,
        seats: Mapping[str, int],
        meters: MeterBank,
    ) -> TableBook:
        return CaribbeanSession(table, sink, shoes, seats, meters)

    def machine(
        self, session: TableBook, clock: ReactorTime, next_round_delay: float
    ) -> HostedTable:
        assert isinstance(session, CaribbeanSession)
        return CaribbeanMachine(session, clock, next_round_delay)

    def new_ledger(self) -> Ledger:
        return CaribbeanLedger()

    def meters(self, table: TableConfig) -> Mapping[str, MeterSpec]:
        return meter_specs(table)

    def rules_document(self, table: TableConfig) -> dict[str, Any]:
        return rules_document(table)

    def resume(self, session: TableBook, logged: LoggedRound, seats: Mapping[str, int]) -> StrEnum:
        assert isinstance(session, CaribbeanSession)
        return resume_round(session, logged, seats)

    # ----------------------------------------------------------- recall and verify

    def round_views(self, logged: LoggedRound, terminal: str | None) -> list[dict[str, Any]]:
        from game_server.games.caribbean.pictures import caribbean_round_views

        return caribbean_round_views(logged, terminal)

    def secrecy(self, table_type: TableType) -> Secrecy:
        """Its hidden cards, as its session declares them."""
        return SECRECY

    def engine_kinds(self, table_type: TableType) -> frozenset[type]:
        return CARIBBEAN_KINDS

    def describe(self, table: TableConfig, item: Logged, labels: Labels) -> Described | None:
        ev, terminal = item.event, item.stored.terminal
        who = terminal if terminal is not None else TABLE_WHO
        kind = type(ev)
        if kind is CaribbeanWagerPlaced:
            title = self.wager_titles.get(ev.wager, ev.wager)
            data = {"seat": ev.seat, "terminal": terminal, "wager": ev.wager, "amount": ev.amount}
            return (
                who,
                f"{labels.seat(ev.seat)} places {title} {format_money(ev.amount)}",
                data,
            )
        if kind is CaribbeanCardDealt:
            data = {
                "seat": ev.seat,
                "terminal": terminal,
                "card": card_field(ev.card),
                "position": ev.position,
                "face_up": ev.face_up,
            }
            where = f"(deck position {ev.position})"
            if ev.seat == DEALER:
                if ev.card is None:  # sealed: a hole card of the round in play
                    return DEALER_WHO, f"dealer is dealt {card_text(None)} {where}", data
                how = "face up" if ev.face_up else "face down"
                return DEALER_WHO, f"dealer is dealt {card_text(ev.card)} {how} {where}", data
            return who, f"{labels.seat(ev.seat)} is dealt {card_text(ev.card)} {where}", data
        if kind is CaribbeanDecisionOpened:
            return TABLE_WHO, "decision: fold or BET 2X", {"seats": list(ev.seats)}
        if kind is CaribbeanDecision:
            what = "makes the Bet Wager (2X)" if ev.action == "bet" else "folds"
            auto = " (countdown)" if ev.auto else ""
            data = {"seat": ev.seat, "terminal": terminal, "action": ev.action, "auto": ev.auto}
            return who, f"{labels.seat(ev.seat)} {what}{auto}", data
        if kind is CaribbeanDealerRevealed:
            qualifies = "qualifies" if ev.qualifies else "does not qualify"
            data = {"cards": [str(c) for c in ev.cards], "hand": ev.hand, "qualifies": ev.qualifies}
            return DEALER_WHO, f"dealer shows {ev.hand} and {qualifies}", data
        if kind is CaribbeanSettlementStarted:
            data = {
                "magic_card": [str(c) for c in ev.magic_card],
                "lucky_position": ev.lucky_position,
                "meters": [list(m) for m in ev.meters],
            }
            drawn = ", ".join(
                [f"Magic Card {card_text(c)}" for c in ev.magic_card]
                + ([] if ev.lucky_position is None else [f"Lucky position {ev.lucky_position}"])
            )
            return TABLE_WHO, f"settlement{': ' + drawn if drawn else ''}", data
        if kind is CaribbeanWagerSettled or kind is CaribbeanMysteryPaid:
            title = self.wager_titles.get(ev.wager, ev.wager)
            text = f"{labels.seat(ev.seat)} {title}: {ev.line}, paid {format_money(ev.paid)}"
            return who, text, {"terminal": terminal, **ev._asdict()}
        if kind is CaribbeanRoundCompleted:
            data = {
                "dealer_cards": [str(c) for c in ev.dealer_cards],
                "dealer_hand": ev.dealer_hand,
            }
            return TABLE_WHO, "round complete", data
        return None

    def replay(self, table: TableConfig, events: Sequence[Any], table_id: str) -> object:
        return replay(table.rules, events, table_id)

    def verify_checks(self, table_type: TableType) -> Mapping[type, str]:
        return _CHECKS

    def seeded_draw_problem(
        self, seed: ShoeSeed, table: TableConfig, record: Any, seq: int, shoe: int
    ) -> str | None:
        """The Magic Card and Lucky Bonus position must be the draws of the round deck's seed."""
        want_magic, want_lucky = bonus_draws(seed, table.rules)
        wanted = () if want_magic is None else (want_magic,)
        if tuple(record.magic_card) == wanted and record.lucky_position == want_lucky:
            return None
        return (
            f"caribbean_settlement_started at seq {seq} draws Magic Card "
            f"{[str(c) for c in record.magic_card]} and Lucky position {record.lucky_position}, "
            f"but the seed of shoe {shoe} draws {[str(c) for c in wanted]} and {want_lucky} "
            "(639a.1: the table game system's draws come from the certified RNG)"
        )

    # ------------------------------------------------------------------ etg sim

    report_order: Mapping[str, int] = {CARIBBEAN_BASE: 0, ANTE: 1, BET: 1}

    def sim_title(self, table: TableConfig, rounds: int, seats: int, seed: int) -> str:
        return (
            f"{rounds:,} rounds of Caribbean Stud Poker at {seats} seat{'s' * (seats != 1)} of "
            f"{table.table_id} (one 52-card deck per round), the strategy of rules.strategy "
            f"(the published simple strategy with its exceptions by exact enumeration: etg "
            f"strategy), seed {seed}"
        )

    def sim_driver(self, spec: SimSpec, chunk: int) -> RoundDriver:
        return CaribbeanDriver(spec, chunk)

    def tally(self, events: Sequence[Any], result: SimResult) -> None:
        """Each wager (the Envy Bonus with the Progressive Payout, a Magic Card or Lucky Bonus
        with its Five Card Hand Bonus), and the Ante and Bet together under ``ante+bet``."""
        this = RoundTally(result)
        for ev in events:
            kind = type(ev)
            if kind is CaribbeanMysteryPaid:
                this.paid(ev.seat, PROGRESSIVE, ev.paid)
                this.line(PROGRESSIVE, "Must-Hit-By Mystery Bonus")
                continue
            if kind is not CaribbeanWagerPlaced and kind is not CaribbeanWagerSettled:
                continue
            group = _group(ev.wager)
            for name in [group, CARIBBEAN_BASE] if group in (ANTE, BET) else [group]:
                if kind is CaribbeanWagerPlaced:
                    this.placed(ev.seat, name, ev.amount)
                else:
                    this.paid(ev.seat, name, ev.paid)
                    this.line(name, ev.line)
        this.close()

    def logged_sim(
        self,
        table: TableConfig,
        log: EventSink,
        shoes: SealedShoes,
        *,
        rounds: int,
        seats: int,
        progress: Callable[[int], None] | None = None,
    ) -> TableBook:
        """``etg sim --log``: the bots through the live table's session, the Must-Hit-By meter
        included; the last deck revealed at the end so that every card and draw verifies."""
        terminals = {f"T{seat}": seat for seat in range(1, seats + 1)}
        wagers = table_wagers(table.rules)
        most = sum(wagers.values()) + 2 * wagers[ANTE]
        session = CaribbeanSession(table, log, shoes, terminals)
        session.open()
        for done in range(rounds):
            session.start_round()
            for terminal in terminals:
                if session.balance(terminal) < most:
                    session.cash_in(terminal, SIM_CREDITS, "sim top-up")
                session.place_wagers(terminal, wagers)
            session.deal()
            game = session.round
            while game is not None and game.phase is Phase.DECIDING:
                terminal = session.pending()[0]
                cards = game.seats[terminals[terminal]].cards
                session.decide(terminal, strategy.decide(cards, game.dealer[0]))
            if progress is not None:
                progress(done + 1)
        session.retire_shoe()
        return session

    # ---------------------------------------------------------- par, math

    def optional_returns(self, table: TableConfig) -> list[WagerReturn]:
        return caribbean_returns(table.rules, table.must_hit_by)

    def main_wager(self, table: TableConfig) -> MainWager:
        ante = table.rules.ante_limits
        return MainWager(
            wager=CARIBBEAN_BASE,
            title="Caribbean Stud Poker (Ante and Bet)",
            section="58 Pa. Code 639a.11, 639a.12 (secondary source: the published rules)",
            initial="Ante",
            minimum=ante.minimum,
            maximum=ante.maximum,
            covered=(ANTE, BET),
        )

    def strategy(self, table: TableConfig) -> StrategyReport:
        """The published simple strategy with its exceptions by exact enumeration, and its
        exact house edge (:mod:`.strategy_report`; the Bet Wager paytable is fixed)."""
        return strategy_report()

    def wager_limits(self, table: TableConfig, wager: str) -> tuple[int, int]:
        rules: CaribbeanRules = table.rules
        if wager == PROGRESSIVE and rules.progressive is not None:
            return min(rules.progressive.amounts), max(rules.progressive.amounts)
        if wager in (FIVE_CARD_PLAYER, FIVE_CARD_DEALER) and rules.five_card is not None:
            return min(rules.five_card.amounts), max(rules.five_card.amounts)
        raise NotOffered(f"this Caribbean Stud Poker table has no optional wager {wager!r}")

    def math(
        self, name: str, paytable: str | None, decks: int | None, every: bool, hands: int, seed: int
    ) -> MathReport | None:
        from game_server.games.caribbean.math import math_report

        return math_report(name, paytable, decks, every)


#: What etg verify checks of each record (the meter records are the platform's).
_CHECKS: Final[Mapping[type, str]] = {
    CaribbeanWagerPlaced: WAGER,
    CaribbeanCardDealt: SEAT_CARD,
    CaribbeanDecisionOpened: DEALER_STEP,
    CaribbeanDecision: SEATED,
    CaribbeanDealerRevealed: DEALER_STEP,
    CaribbeanSettlementStarted: SEEDED,
    CaribbeanWagerSettled: WAGER,
    CaribbeanMysteryPaid: WAGER,
    CaribbeanRoundCompleted: COMPLETED,
}

GAME: Final[Game] = CaribbeanGame()
