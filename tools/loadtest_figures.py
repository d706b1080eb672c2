"""The figures of a load test and their report.

:class:`LoadtestResult` holds a run's figures (JSON-ready); :func:`latency_summary` and
:func:`full_load_figures` summarise the bots' latencies, :func:`server_figures` and
:func:`shipping_figures` read the server's own (its ``ReadMeters`` at the end of the run),
and :func:`format_report` prints them as a small table with the targets beside them.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from tools.loadtest_bots import BotRun

#: Targets printed beside the figures (issue 22: at 1,000 terminals).
TARGET_P99_MS: Final = 50.0
TARGET_RSS_MB: Final = 500.0


@dataclass
class LoadtestResult:
    """The figures of one run (JSON-ready through :meth:`to_json`)."""

    terminals: int
    tables: int
    rounds_target: int
    workers: int = 1
    rounds: int = 0
    duration_s: float = 0.0
    rounds_per_s: float = 0.0
    latency_ms: dict[str, float | None] = field(default_factory=dict)
    latency_samples: int = 0
    latency_by_command_ms: dict[str, dict[str, float | None]] = field(default_factory=dict)
    commands_sent: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    unexpected_errors: int = 0
    disconnects: int = 0
    cash_in_retries: int = 0
    #: Bots playing when the run stopped: fewer than ``terminals`` when the rounds were
    #: reached during the cash-in ramp (about N/18 s): then ask for more rounds.
    terminals_playing: int = 0
    games_played_meter: int | None = None
    server_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    server_cpu_percent: float = 0.0
    client_cpu_percent: float = 0.0
    server_peak_rss_mb: float = 0.0
    client_peak_rss_mb: float = 0.0
    store: dict[str, Any] | None = None
    #: The latencies of the commands sent once every bot was playing (the cash-in ramp
    #: over): ``latency_ms``, ``samples`` and ``seconds`` at full load; None when the run
    #: stopped before the last bot played. ``latency_ms`` above counts the ramp too.
    full_load: dict[str, Any] | None = None
    #: The server's own measure of each timed command, from its arrival to its answer
    #: (``ReadMeters`` ``"commands"``: p50/p99 in ms, within 8%): what the server adds to
    #: ``latency_ms``; the rest is the network and the bots' own process.
    server_latency_ms: dict[str, dict[str, float | None]] = field(default_factory=dict)
    #: The event log's commit thread over the run (``ReadMeters`` ``"event_log"``).
    log_commits: dict[str, Any] | None = None
    #: With ``--workers``: each worker's ``server_latency_ms`` and ``log_commits``, in the
    #: workers' order (the two fields above are then empty: quantiles of several workers
    #: cannot be merged from their summaries), or ``{"error": ...}`` for one that did not
    #: answer.
    worker_figures: list[dict[str, Any]] = field(default_factory=list)
    stopped_by: str = ""
    targets: dict[str, float] = field(
        default_factory=lambda: {"p99_ms": TARGET_P99_MS, "rss_mb": TARGET_RSS_MB}
    )

    @property
    def ok(self) -> bool:
        """Whether the run completed: at least one round was played."""
        return self.rounds > 0

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def percentile(sorted_values: list[float], fraction: float) -> float:
    """The nearest-rank percentile of an ascending, non-empty list."""
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def full_load_figures(run: BotRun) -> dict[str, Any] | None:
    """The run's latencies once every bot played (see :attr:`LoadtestResult.full_load`)."""
    if run.full_at is None:
        return None
    end = run.stopped_at if run.stopped_at is not None else time.perf_counter()
    return {
        "latency_ms": latency_summary(run.full_latencies),
        "samples": len(run.full_latencies),
        "seconds": round(max(end - run.full_at, 0.0), 3),
    }


def latency_summary(seconds: list[float]) -> dict[str, float | None]:
    """p50/p95/p99/max in milliseconds (None without samples)."""
    if not seconds:
        return {"p50": None, "p95": None, "p99": None, "max": None}
    ms = sorted(s * 1000.0 for s in seconds)
    return {
        "p50": round(percentile(ms, 0.50), 3),
        "p95": round(percentile(ms, 0.95), 3),
        "p99": round(percentile(ms, 0.99), 3),
        "max": round(ms[-1], 3),
    }


def server_figures(
    meters: dict[str, Any],
) -> tuple[dict[str, dict[str, float | None]], dict[str, Any] | None]:
    """The server's own figures from its ``ReadMeters``: each timed command's (``PlaceWagers``,
    ``Act``) p50/p99 from arrival to answer, and the log's commit thread's figures."""

    def ms(figures: dict[str, Any], key: str) -> float | None:
        value = figures.get(key)
        return None if not isinstance(value, int) else value / 1000.0

    commands = meters.get("commands")
    timed: dict[str, dict[str, float | None]] = {}
    if isinstance(commands, dict):
        for name in ("PlaceWagers", "Act"):
            figures = commands.get(name)
            if isinstance(figures, dict):
                timed[name] = {"p50": ms(figures, "p50_us"), "p99": ms(figures, "p99_us")}
    commits = meters.get("event_log")
    if not isinstance(commits, dict):
        return timed, None
    found = commits.get("commit")
    summary: dict[str, Any] = found if isinstance(found, dict) else {}
    transactions = commits.get("transactions") or 0
    return timed, {
        "writing_behind": commits.get("writing_behind"),
        "transactions": transactions,
        "writes": commits.get("writes"),
        "writes_per_transaction": (
            round(commits.get("writes", 0) / transactions, 2) if transactions else None
        ),
        "commit_p50_ms": ms(summary, "p50_us"),
        "commit_p99_ms": ms(summary, "p99_us"),
    }


def worker_figures(meters: Any) -> dict[str, Any]:
    """One worker's :func:`server_figures` as ``server_latency_ms`` and ``log_commits``."""
    if not isinstance(meters, dict):
        return {"error": "the worker gave no meters"}
    timed, commits = server_figures(meters)
    return {"server_latency_ms": timed, "log_commits": commits}


def shipping_figures(shipping: Any, duration: float) -> dict[str, Any]:
    """The shipping figures of a run from the ``store_shipping`` meters read at its end:
    events logged and shipped per second over ``duration`` and their ratio, and the lag."""
    if not isinstance(shipping, dict) or duration <= 0:
        return {"error": "the server gave no store_shipping meters"}
    logged, shipped = int(shipping["logged_seq"]), int(shipping["events_shipped"])
    return {
        "events_logged": logged,
        "events_shipped": shipped,
        "logged_per_s": round(logged / duration, 1),
        "shipped_per_s": round(shipped / duration, 1),
        "shipped_to_logged": round(shipped / logged, 3) if logged else None,
        "events_behind_at_end": int(shipping["events_behind"]),
        "lag_p50_ms": shipping["lag_p50_ms"],
        "lag_p99_ms": shipping["lag_p99_ms"],
        "lag_max_ms": shipping["lag_max_ms"],
        "alarm": shipping["alarm"],
    }


def _server_rows(
    prefix: str,
    timed: dict[str, dict[str, float | None]],
    commits: dict[str, Any] | None,
) -> list[tuple[str, str]]:
    """The report's rows of one server's (or worker's) own figures: each timed command from
    arrival to answer, and its log's commits."""
    rows = [
        (f"  {prefix}{name} in the server", f"{fig['p50']:.1f} / {fig['p99']:.1f} ms")
        for name, fig in timed.items()
        if fig["p50"] is not None and fig["p99"] is not None
    ]
    if commits and commits.get("transactions"):
        rows.append(
            (
                f"{prefix}log commits",
                f"{commits['transactions']} transactions, "
                f"{commits['writes_per_transaction']} steps each, "
                f"p50/p99 {commits['commit_p50_ms']} / {commits['commit_p99_ms']} ms",
            )
        )
    return rows


def _full_load_rows(full: dict[str, Any] | None, terminals: int) -> list[tuple[str, str]]:
    """The report's rows of the latencies once every bot played (the ramp left out)."""
    if full is None:
        return [("at full load", f"never: the run stopped before all {terminals} bots played")]
    lat = full["latency_ms"]
    if lat["p99"] is None:
        return [("at full load", f"no answer timed in its {full['seconds']:.1f} s")]
    mark = "  ok" if lat["p99"] <= TARGET_P99_MS else "  MISSED"
    return [
        (
            "at full load",
            f"{full['seconds']:.1f} s, {full['samples']} answers timed (all {terminals} "
            "bots playing)",
        ),
        ("  latency p50 / p95", f"{lat['p50']:.1f} / {lat['p95']:.1f} ms"),
        ("  latency p99", f"{lat['p99']:.1f} ms   target <= {TARGET_P99_MS:g} ms{mark}"),
    ]


def _run_rows(result: LoadtestResult) -> list[tuple[str, str]]:
    """The report's rows of the run as the bots saw it: terminals, tables, rounds, and the
    latency of every answered command."""
    lat = result.latency_ms

    def ms(key: str) -> str:
        value = lat.get(key)
        return "-" if value is None else f"{value:.1f} ms"

    p99 = lat.get("p99")
    p99_mark = "" if p99 is None else ("  ok" if p99 <= TARGET_P99_MS else "  MISSED")
    return [
        (
            "terminals",
            f"{result.terminals}"
            + (
                ""
                if result.terminals_playing >= result.terminals
                else f" ({result.terminals_playing} playing at the end: the rounds were reached "
                "during the cash-in ramp; ask for more rounds)"
            ),
        ),
        ("tables", f"{result.tables}"),
        ("server workers", f"{result.workers}"),
        ("rounds completed", f"{result.rounds} of {result.rounds_target} ({result.stopped_by})"),
        ("duration", f"{result.duration_s:.1f} s"),
        ("rounds/s", f"{result.rounds_per_s:.2f}"),
        ("latency p50", ms("p50")),
        ("latency p95", ms("p95")),
        ("latency p99", f"{ms('p99')}   target <= {TARGET_P99_MS:g} ms{p99_mark}"),
        ("latency max", ms("max")),
        *(
            (f"  {name} p50/p99", f"{fig['p50']:.1f} / {fig['p99']:.1f} ms")
            for name, fig in result.latency_by_command_ms.items()
            if fig["p50"] is not None and fig["p99"] is not None
        ),
    ]


def _worker_rows(result: LoadtestResult) -> list[tuple[str, str]]:
    """The report's rows of each worker's own figures (``--workers``)."""
    return [
        row
        for k, figures in enumerate(result.worker_figures, start=1)
        for row in (
            [(f"worker {k}", figures["error"])]
            if "error" in figures
            else _server_rows(f"worker {k}: ", figures["server_latency_ms"], figures["log_commits"])
        )
    ]


def _cost_rows(result: LoadtestResult) -> list[tuple[str, str]]:
    """The report's rows of what the run cost: commands, errors, and the CPU and peak memory
    of the bots' process and of the server's process group."""
    rss_mark = "  ok" if result.server_peak_rss_mb <= TARGET_RSS_MB else "  MISSED"
    errors = ", ".join(f"{k} {v}" for k, v in result.errors.items()) or "none"
    return [
        ("commands sent", f"{result.commands_sent}"),
        ("errors", f"{errors} (unexpected {result.unexpected_errors})"),
        ("disconnects", f"{result.disconnects}"),
        ("cash-in retries", f"{result.cash_in_retries} (the operator's rate limit)"),
        (
            "bots' CPU",
            f"{result.client_cpu_s:.2f} s ({result.client_cpu_percent:.1f}% of a core; the "
            "loadtest's own process)",
        ),
        ("bots' peak RSS", f"{result.client_peak_rss_mb:.1f} MB"),
        (
            "server CPU",
            f"{result.server_cpu_s:.2f} s ({result.server_cpu_percent:.1f}% of a core; its own "
            "process group)",
        ),
        (
            "server peak RSS",
            f"{result.server_peak_rss_mb:.1f} MB   target <= {TARGET_RSS_MB:g} MB{rss_mark}",
        ),
    ]


def _store_rows(store: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The report's rows of the shipping to the floor store (``--floor``)."""
    if store is None:
        return []
    if "error" in store:
        return [("floor store", store["error"])]
    return [
        (
            "events logged/s",
            f"{store['logged_per_s']:.1f} ({store['events_logged']} in the run)",
        ),
        (
            "events shipped/s",
            f"{store['shipped_per_s']:.1f} (ratio to logged {store['shipped_to_logged']}, "
            f"{store['events_behind_at_end']} behind at the end)",
        ),
        (
            "shipping lag",
            f"p50 {store['lag_p50_ms']} ms, p99 {store['lag_p99_ms']} ms, "
            f"max {store['lag_max_ms']} ms",
        ),
        ("shipping alarm", str(store["alarm"] or "none")),
    ]


def format_report(result: LoadtestResult) -> str:
    """A small table of the figures, with the targets beside them."""
    rows = [
        *_run_rows(result),
        *_server_rows("", result.server_latency_ms, result.log_commits),
        *_full_load_rows(result.full_load, result.terminals),
        *_worker_rows(result),
        *_cost_rows(result),
        *_store_rows(result.store),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)
