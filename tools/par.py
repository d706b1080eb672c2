"""``etg par CONFIG``: the par sheet of a Rules Submission.

What a manufacturer files with a Rules Submission (601a.2), for every wager the table offers:

- the main game, simulated through the engine with basic strategy (Blackjack) or the
  near-optimal strategy (Ultimate Texas Hold 'Em), with rounds, seed and a 95% interval from
  per-round totals: the house edge per initial wager (per Ante at Hold 'Em), the element of
  risk (per amount wagered), the average total wager, the hit frequency, the standard
  deviation per initial wager and the frequency of each result;
- every other wager (:mod:`game_server.rules.returns`): its house edge, exact where it depends
  on the cards only, otherwise measured by simulation (the stored figures of
  :data:`~game_server.rules.returns.PAR_FIGURES`); each paytable line's probability and
  contribution with the regulation paragraph that pays it; the hit frequency; the standard
  deviation per unit wagered; for a meter, the return as a function of the meter and the
  break-even meter; the simulation's own figure beside an exact one where the two measure
  the same thing;
- the whole table's expected hold per round at the configured limits, every seat wagering
  every wager at its minimum, and at its maximum.

:func:`par_sheet` builds it (the simulation reports its progress to a callback: ``etg par``
shows a progress bar), :meth:`ParSheet.to_markdown` writes it for people (one section per
wager) and :meth:`ParSheet.to_json` for tools. The game names its main wager, the other
wagers' returns and their limits (:meth:`~game_server.games.api.Game.main_wager`,
:meth:`~game_server.games.api.Game.optional_returns`,
:meth:`~game_server.games.api.Game.wager_limits`).

Entry points: :func:`par_sheet`, :class:`ParSheet`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from game_server.config import TableConfig
from game_server.games import game_for
from game_server.games.api import MainWager, NotOffered, StrategyReport
from game_server.rules.returns import ParFigure, WagerReturn
from game_server.rules.wagers.base import ReserveUse
from game_server.sim import SimResult, WagerStats, interval_json, run_sim
from shared.money import format_money
from tools.sim import sim_spec

#: Rounds simulated by default: a 95% interval of about +-0.2% on Blackjack's house edge.
DEFAULT_ROUNDS: Final = 1_000_000
#: The seed by default.
DEFAULT_SEED: Final = 1


@dataclass(frozen=True, slots=True)
class MainGame:
    """The main game as simulated: figures per initial wager (the Ante at Hold 'Em)."""

    title: str
    section: str
    wager: str
    rounds: int
    seed: int
    house_edge: float
    interval: tuple[float, float] | None
    element_of_risk: float
    risk_interval: tuple[float, float] | None
    average_wager: float
    hit_frequency: float
    sd: float | None
    results: tuple[tuple[str, int], ...]
    initial: str
    """What the initial wager is ("original Blackjack wager", "Ante")."""
    strategy: StrategyReport | None = None
    """The strategy played (``etg strategy``), with the analysed edge where computed."""

    @property
    def stated_edge(self) -> float:
        """The house edge the sheet states: the analysis' where the game computes one (the
        simulation is then its check), otherwise the simulation's."""
        analysis = None if self.strategy is None else self.strategy.analysis
        return self.house_edge if analysis is None else analysis.house_edge

    @property
    def method(self) -> str:
        analysis = None if self.strategy is None else self.strategy.analysis
        return "simulated" if analysis is None else "analysis"


@dataclass(frozen=True, slots=True)
class HoldRow:
    """One wager's share of the table's hold per seat per round."""

    wager: str
    house_edge: float
    minimum: int
    maximum: int

    @property
    def at_minimum(self) -> float:
        return self.house_edge * self.minimum

    @property
    def at_maximum(self) -> float:
        return self.house_edge * self.maximum


@dataclass(frozen=True)
class ParSheet:
    """Everything the par sheet states (see the module docstring)."""

    config: TableConfig
    rounds: int
    seed: int
    main: MainGame
    wagers: tuple[WagerReturn, ...]
    simulated: dict[str, WagerStats]
    hold: tuple[HoldRow, ...]

    @property
    def seats(self) -> int:
        return int(self.config.rules.seats)

    def hold_per_round(self, at: str) -> float:
        """Cents the table holds per round with every seat at every wager's ``at``
        (``"minimum"`` or ``"maximum"``)."""
        per_seat = sum(row.at_minimum if at == "minimum" else row.at_maximum for row in self.hold)
        return self.seats * per_seat

    def check(self, ret: WagerReturn) -> WagerStats | None:
        """The simulation's figure of an exact wager, where it measures the same thing: no
        meter (the simulated meter is not at its reset amount) and nothing assumed beyond
        the one seat and the minimum wager simulated (a full table's Envy Bonus, a larger
        wager's cash bonus)."""
        if ret.par is not None or ret.meters or ret.notes:
            return None
        return self.simulated.get(ret.wager)

    # ------------------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        """The par sheet for tools: plain data, money in cents, figures per unit staked."""
        config = self.config
        main = self.main
        return {
            "table": config.table_id,
            "game": config.game,
            "type": config.table_type.value,
            "source": config.source,
            "config_hash": config.config_hash(),
            "simulation": {"rounds": self.rounds, "seed": self.seed, "seats": 1},
            "main_game": {
                "title": main.title,
                "section": main.section,
                "initial_wager": main.initial,
                "strategy": None if main.strategy is None else main.strategy.to_json(),
                "method": main.method,
                "house_edge": main.stated_edge,
                "simulated_house_edge": main.house_edge,
                "house_edge_ci95": interval_json(main.interval),
                "element_of_risk": main.element_of_risk,
                "element_of_risk_ci95": interval_json(main.risk_interval),
                "average_wager": main.average_wager,
                "hit_frequency": main.hit_frequency,
                "sd_per_initial": main.sd,
                "results": dict(main.results),
            },
            "wagers": [self._wager_json(ret) for ret in self.wagers],
            "hold": {
                "seats": self.seats,
                "wagers": [
                    {
                        "wager": row.wager,
                        "house_edge": row.house_edge,
                        "min": row.minimum,
                        "max": row.maximum,
                        "hold_per_seat_at_min": row.at_minimum,
                        "hold_per_seat_at_max": row.at_maximum,
                    }
                    for row in self.hold
                ],
                "per_round_at_min": self.hold_per_round("minimum"),
                "per_round_at_max": self.hold_per_round("maximum"),
            },
        }

    def _wager_json(self, ret: WagerReturn) -> dict[str, Any]:
        check = self.check(ret)
        return {
            "wager": ret.wager,
            "title": ret.title,
            "section": ret.section,
            "paytable": ret.paytable,
            "reading": ret.reading,
            "method": ret.method,
            "counted": ret.counted,
            "stake": ret.stake,
            "return": ret.long_run,
            "house_edge": 1 - ret.long_run,
            "return_fixed_lines": ret.fixed,
            "return_at_reset": ret.at_reset,
            "hit_frequency": ret.hit_frequency,
            "sd": ret.sd,
            "lines": [
                {
                    "line": line.line,
                    "section": line.cite,
                    "pays": line.pays,
                    "probability": line.probability,
                    "contribution": line.returns,
                }
                for line in ret.lines
            ],
            "meters": [
                {
                    "meter": m.meter,
                    "seed": m.spec.seed,
                    "reset": m.spec.reseed,
                    "rate_bp": m.spec.increment_bp,
                    "must_hit_by": m.spec.must_hit_by,
                    "return_per_cent_of_meter": m.slope,
                    "break_even_meter": m.break_even,
                    "long_run_share": m.long_run,
                    "long_run_parts": None
                    if m.dynamics is None
                    else {
                        "reserve": m.dynamics.reserve.value,
                        "contributions": m.dynamics.contributions,
                        "reseeds": m.dynamics.reseeds,
                        "top_ups": m.dynamics.top_ups,
                        "house_low": m.dynamics.house_low,
                        "house_high": m.dynamics.house_high,
                        "average_meter": m.dynamics.average_meter,
                        "precision": m.dynamics.precision,
                    },
                }
                for m in ret.meters
            ],
            "notes": list(ret.notes),
            "par_figure": None if ret.par is None else _figure_json(ret.par),
            "simulation_check": None
            if check is None
            else {"rtp": check.rtp, "ci95": interval_json(check.ci95()), "placed": check.placed},
        }

    # -------------------------------------------------------------------------- Markdown

    def to_markdown(self) -> str:
        """The par sheet for people: a summary, the main game, one section per wager with
        its lines and the paragraph of each, and the table's expected hold."""
        config = self.config
        out = [
            f"# Par sheet: {config.table_id}",
            "",
            f"Rules Submission `{config.source}` ({config.game}, {config.table_type.value} table, "
            f"{self.seats} seats), config hash `{config.config_hash()}`.",
            "",
            "Every return is per unit staked, the stake included; a house edge is one minus "
            "it. Exact figures count every deal off the top of a full shoe (a fresh deck at "
            "Hold 'Em); simulated figures are played through the engine, one seat, a new shoe "
            f"every round, {self.rounds:,} rounds from seed {self.seed}, with 95% intervals "
            "from per-round totals. A meter wager's return is given with the meter at its "
            "reset amount and in the long run, counted from the meter's own dynamics: its "
            "contributions, the reset amount brought back after each 100% award, the top-ups "
            "after a partial award that left it below its reset amount, and its reserve as the "
            "Rules Submission says what it is for; the player-edge guard refuses any wager "
            "whose long-run return is 100% or more.",
            "",
            "## Summary",
            "",
            "| Wager | Section | Method | Return | House edge | Hit frequency | SD per unit |",
            "|---|---|---|---:|---:|---:|---:|",
        ]
        main = self.main
        shown = _interval(main.interval) if main.method == "simulated" else ""
        out.append(
            f"| {main.title} (per {main.initial}) | {main.section} | {main.method} | "
            f"{_pct(1 - main.stated_edge)} | {_pct(main.stated_edge)} "
            f"{shown} | {_pct(main.hit_frequency)} | {_num(main.sd)} |"
        )
        for ret in self.wagers:
            out.append(
                f"| {ret.title} | {ret.section} | {_method(ret)} | {_pct(ret.long_run)} | "
                f"{_pct(1 - ret.long_run)} | {_pct(ret.hit_frequency)} | {_num(ret.sd)} |"
            )
        out += self._main_markdown()
        for ret in self.wagers:
            out += self._wager_markdown(ret)
        out += self._hold_markdown()
        return "\n".join(out) + "\n"

    def _main_markdown(self) -> list[str]:
        main = self.main
        out = ["", f"## {main.title} ({main.section})", ""]
        out += _strategy_markdown(main, self.config.source)
        out += [
            f"Simulated: {main.rounds:,} rounds, one seat, seed {main.seed}.",
            "",
            f"- House edge per {main.initial}: {_pct(main.house_edge)} {_interval(main.interval)}",
            f"- Element of risk (per amount wagered): {_pct(main.element_of_risk)} "
            f"{_interval(main.risk_interval)}",
            f"- Average total wager: {main.average_wager:.4f} times the {main.initial}",
            f"- Hit frequency (a hand that returns more than it wagered): "
            f"{_pct(main.hit_frequency)}",
            f"- Standard deviation per {main.initial}: {_num(main.sd)}",
            "",
            "| Result | Settlements | Frequency |",
            "|---|---:|---:|",
        ]
        total = sum(n for _, n in main.results) or 1
        for line, n in main.results:
            out.append(f"| {line} | {n:,} | {_pct(n / total, 4)} |")
        return out

    def _wager_markdown(self, ret: WagerReturn) -> list[str]:
        out = ["", f"## {ret.title} ({ret.section})", ""]
        out.append(f"- Paytable: {ret.paytable}")
        if ret.reading:
            out.append(f"- Reading: {ret.reading}")
        out.append(f"- Method: {_method(ret)}: {ret.counted}")
        out.append(f"- Figures per unit of a {format_money(ret.stake)} wager")
        for note in ret.notes:
            out.append(f"- {note[0].upper()}{note[1:]}")
        if ret.lines:
            out += [
                "",
                "| Line | Section | Pays | Probability | Contribution |",
                "|---|---|---|---:|---:|",
            ]
            for line in ret.lines:
                out.append(
                    f"| {line.line} | {line.cite} | {line.pays} | "
                    f"{_prob(line.probability)} | {_num(line.returns, 6)} |"
                )
        out.append("")
        if ret.meters:
            out.append(
                f"Return {_pct(ret.at_reset)} with the meter at its reset amount, "
                f"{_pct(ret.long_run)} in the long run; house edge {_pct(1 - ret.long_run)} "
                "in the long run."
            )
            out += [
                "",
                "| Meter | Reset | Rate | Return per $1,000 on the meter | Break-even meter | "
                "Long-run share |",
                "|---|---:|---:|---:|---:|---:|",
            ]
            for m in ret.meters:
                per_thousand = "mystery" if m.break_even is None else _pct(m.slope * 100_000, 4)
                out.append(
                    f"| {m.meter} | {format_money(m.spec.reseed)} | "
                    f"{m.spec.increment_bp / 100:g}% | {per_thousand} | "
                    f"{'' if m.break_even is None else format_money(m.break_even)} | "
                    f"{_pct(m.long_run)} |"
                )
            out += _dynamics_markdown(ret)
        elif ret.par is not None:
            figure = ret.par
            out.append(
                f"Return {_pct(figure.rtp)} {_interval((figure.low, figure.high))}, "
                f"house edge {_pct(1 - figure.rtp)}."
            )
        else:
            out.append(f"Return {_pct(ret.long_run)}, house edge {_pct(1 - ret.long_run)}.")
        if ret.hit_frequency is not None:
            out.append("")
            out.append(
                f"Hit frequency {_pct(ret.hit_frequency)}; standard deviation {_num(ret.sd)} "
                "per unit."
            )
        check = self.check(ret)
        if check is not None:
            out.append("")
            out.append(
                f"Simulation check ({check.placed:,} wagers): return {_pct(check.rtp)} "
                f"{_interval(check.ci95())}."
            )
        return out

    def _hold_markdown(self) -> list[str]:
        out = [
            "",
            "## Expected hold at the configured limits",
            "",
            f"Per seat and round, every wager placed at its minimum and at its maximum; the "
            f"table of {self.seats} seats holds {self.seats} times the total. Meter wagers at "
            "their long-run return (so the hold is at least this); Insurance, which basic "
            "strategy never takes, is left out.",
            "",
            "| Wager | House edge | Minimum | Hold at minimum | Maximum | Hold at maximum |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for row in self.hold:
            out.append(
                f"| {row.wager} | {_pct(row.house_edge)} | {format_money(row.minimum)} | "
                f"{_cents(row.at_minimum)} | {format_money(row.maximum)} | "
                f"{_cents(row.at_maximum)} |"
            )
        per_min = self.hold_per_round("minimum") / self.seats
        per_max = self.hold_per_round("maximum") / self.seats
        out.append(f"| **per seat** | | | {_cents(per_min)} | | {_cents(per_max)} |")
        out.append(
            f"| **table of {self.seats} seats, per round** | | | "
            f"{_cents(self.hold_per_round('minimum'))} | | "
            f"{_cents(self.hold_per_round('maximum'))} |"
        )
        return out


# ------------------------------------------------------------------------------ building


def simulate(
    config: TableConfig,
    rounds: int,
    seed: int,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> SimResult:
    """The par sheet's simulation: one seat (one player at a table in stadium play), a new
    shoe every round (figures off the top, as the exact ones), every wager at its minimum."""
    spec = sim_spec(
        config,
        seats=1,
        seed=seed,
        rounds=rounds,
        table_id=f"par-{config.table_id}",
        every_round=True,
    )
    return run_sim(spec, workers, progress)


def _main_game(
    main: MainWager, result: SimResult, seed: int, strategy: StrategyReport | None
) -> MainGame:
    stats = result.wagers[main.wager]
    risk = stats.ci95()
    return MainGame(
        title=main.title,
        section=main.section,
        wager=main.wager,
        rounds=result.rounds,
        seed=seed,
        house_edge=stats.house_edge,
        interval=stats.house_edge_ci95(),
        element_of_risk=stats.element_of_risk,
        risk_interval=None if risk is None else (1 - risk[1], 1 - risk[0]),
        average_wager=stats.average_wager,
        hit_frequency=stats.hit_frequency,
        sd=stats.sd_per_initial(),
        results=tuple(sorted(stats.lines.items(), key=lambda kv: (-kv[1], kv[0]))),
        initial=main.initial,
        strategy=strategy,
    )


def _hold(
    config: TableConfig, main: MainWager, game: MainGame, wagers: Sequence[WagerReturn]
) -> list[HoldRow]:
    """Each wager at its configured limits: the main game by its simulated house edge per
    initial wager, the others by their long-run house edge (but those the players never
    place)."""
    rows = [HoldRow(game.title, game.stated_edge, main.minimum, main.maximum)]
    limits = game_for(config).wager_limits
    for ret in wagers:
        if ret.wager in main.unheld:
            continue
        low, high = limits(config, ret.wager)
        rows.append(HoldRow(ret.title, 1 - ret.long_run, low, high))
    return rows


def par_sheet(
    config: TableConfig,
    rounds: int = DEFAULT_ROUNDS,
    seed: int = DEFAULT_SEED,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
) -> ParSheet:
    """The par sheet of ``config``: the exact returns, the simulation of ``rounds`` rounds
    from ``seed`` (``progress`` is called with the rounds of each finished chunk), and the
    table's hold."""
    game = game_for(config)
    wagers = game.optional_returns(config)
    result = simulate(config, rounds, seed, workers, progress)
    main = game.main_wager(config)
    try:
        strategy: StrategyReport | None = game.strategy(config)
    except NotOffered:
        strategy = None
    figures = _main_game(main, result, seed, strategy)
    simulated = {n: stats for n, stats in result.wagers.items() if n not in main.covered}
    return ParSheet(
        config=config,
        rounds=rounds,
        seed=seed,
        main=figures,
        wagers=tuple(wagers),
        simulated=simulated,
        hold=tuple(_hold(config, main, figures, wagers)),
    )


# ------------------------------------------------------------------------------ formatting


def _figure_json(figure: ParFigure) -> dict[str, Any]:
    return {
        "reading": figure.reading,
        "decks": figure.decks,
        "options": dict(figure.options),
        "rounds": figure.rounds,
        "seed": figure.seed,
        "rtp": figure.rtp,
        "ci95": [figure.low, figure.high],
    }


def _dynamics_markdown(ret: WagerReturn) -> list[str]:
    """How each meter's long-run share was counted, by part."""
    out: list[str] = []
    for m in ret.meters:
        d = m.dynamics
        if d is None:
            continue
        parts = (
            f"contributions {_pct(d.contributions, 4)}, reseeds after 100% awards "
            f"{_pct(d.reseeds, 4)}, top-ups after partial awards {_pct(d.top_ups, 4)}"
        )
        if d.reserve is ReserveUse.PLAYERS:
            parts = (
                f"contributions {_pct(d.contributions, 4)} (the reserve is the players'), "
                f"the house's share of the reseeds {_pct(d.house_low, 4)} to "
                f"{_pct(d.house_high, 4)} (the guard takes the upper end)"
            )
        average = (
            ""
            if d.average_meter is None
            else f"; the meter averages {format_money(round(d.average_meter))}"
        )
        out += ["", f"{m.meter}'s long run: {parts}{average} ({d.precision})."]
    return out


def _strategy_markdown(main: MainGame, source: str) -> list[str]:
    """What the main game's section says of its strategy: its name, the analysed edge with
    the simulation as its check, and the published optimal figures for the same rules."""
    report = main.strategy
    if report is None:
        return []
    out = [f"Strategy: {report.name} (`etg strategy {source}` prints it).", ""]
    analysis = report.analysis
    if analysis is not None:
        low, high = main.interval or (main.house_edge, main.house_edge)
        inside = "inside" if low <= analysis.house_edge <= high else "OUTSIDE"
        out += [
            f"House edge per {main.initial} by analysis: {_pct(analysis.house_edge, 4)} "
            f"({analysis.method}; {analysis.precision}). The simulation below is its check: "
            f"{_pct(main.house_edge)} {_interval(main.interval)}, the analysis {inside} it.",
            "",
        ]
    for figure in report.published:
        out.append(
            f"- Published optimal: {_pct(figure.house_edge, 4)} for {figure.rules} "
            f"({figure.source})"
        )
    if report.published:
        out.append("")
    return out


def _pct(x: float | None, places: int = 3) -> str:
    return "n/a" if x is None else f"{100 * x:.{places}f}%"


def _interval(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f"(95% interval {_pct(ci[0])} to {_pct(ci[1])})"


def _num(x: float | None, places: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{places}f}"


def _prob(p: float | None) -> str:
    if p is None:
        return "n/a"
    return f"{p:.8f}" + (f" (1 in {1 / p:,.0f})" if 0 < p < 0.01 else "")


def _cents(cents: float) -> str:
    return f"${cents / 100:,.4f}"


def _method(ret: WagerReturn) -> str:
    return "exact" if ret.par is None else "simulated (par sheet)"
