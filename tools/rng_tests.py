"""The external tools' part of ``etg rng report`` (:mod:`tools.rng_lab`): the report's
sections and verdicts, and the sections of ``ent``, ``rngtest`` (FIPS 140-2) and
``dieharder`` run on the raw stream, each with its verdict at 99% confidence (a tool that is
not installed is NOT RUN, with the package to install).

Entry points: :func:`ent_section`, :func:`rngtest_section`, :func:`dieharder_section`,
:class:`Report`, :class:`Section`, :class:`Verdict`.
"""

from __future__ import annotations

import enum
import hashlib
import math
import os
import platform
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from statistics import NormalDist
from typing import Final

from game_server.rng import (
    BLOCK_BYTES,
    EntropySource,
)
from game_server.rng.drbg import MAX_REQUEST_BYTES, RESEED_INTERVAL
from game_server.rng.entropy import APT_WINDOW, STARTUP_SAMPLES
from game_server.rng.stats import (
    chi_square_p_value,
)

#: Bytes of raw output per DRBG instance (see the module docstring).
SEGMENT_BYTES: Final = 2**20
#: Personalization prefix of the raw stream of ``etg rng raw`` and of the report's stream.
RAW_LABEL: Final = "rng-lab-raw"
#: Each section of the report is one test at 99% confidence (25 CFR 547.14(b)(2)); a section
#: with several statistics splits it equally between them (Bonferroni).
ALPHA: Final = 0.01
#: What to run to get the external tools (Debian and Ubuntu package names).
INSTALL_HINT: Final = "apt-get install ent rng-tools5 dieharder"
#: Bytes of a FIPS 140-2 block (20,000 bits).
FIPS_BLOCK_BYTES: Final = 2_500
#: rngtest reads 32 bits to prime its continuous run test before the first block.
RNGTEST_PRIME_BYTES: Final = 4
#: Blocks the FIPS 140-2 tests want at least; rngtest reads 4 + 2,500 bytes per block.
RNGTEST_MIN_BLOCKS: Final = 1_000
RNGTEST_MIN_BYTES: Final = RNGTEST_PRIME_BYTES + FIPS_BLOCK_BYTES * RNGTEST_MIN_BLOCKS
#: Probability that a block from an ideal source fails a FIPS 140-2 test in rngtest: Monobit
#: about 1.0e-4 and Long run about 3.0e-4 analytically, Poker and Runs the rest; measured
#: 763 failures in 1,000,000 blocks of /dev/urandom. Rounded up.
FIPS_BLOCK_FAILURE_RATE: Final = 8e-4
#: dieharder tests of the default report: all rated "Good" by dieharder, about 1.1 GB of
#: input in total (about 30 s at this generator's speed). Not the rank 32x32 (550 MB),
#: craps (580 MB) and GCD (8 GB) tests, to keep the default report near a minute.
DEFAULT_DIEHARDER_TESTS: Final = (0, 3, 8, 10, 11, 12, 15, 100, 101, 102, 202)
#: Seconds one dieharder test may run before it is stopped (and reported NOT RUN).
DIEHARDER_TIMEOUT_S: Final = 600.0

_TOOL_TIMEOUT_S: Final = 600.0
#: Default size of the report's stream: 10,000 FIPS 140-2 blocks exactly.
DEFAULT_REPORT_BYTES: Final = RNGTEST_PRIME_BYTES + FIPS_BLOCK_BYTES * 10_000
#: One-deck shoes of the card-position test (about 1,923 per card and position).
DEFAULT_POSITION_SHUFFLES: Final = 100_000
#: Shuffles of the 5-card-order test (1,000 per order).
DEFAULT_ORDER_SHUFFLES: Final = 120_000


# --- Report: sections and verdicts -----------------------------------------------------------


class Verdict(enum.Enum):
    """The outcome of one section of the report."""

    PASS = "PASS"
    FAIL = "FAIL"
    NOT_RUN = "NOT RUN"


@dataclass
class Section:
    """One test of the report.

    Attributes:
        title: The test, as in the summary table.
        verdict: PASS and FAIL only for a test that ran; NOT RUN otherwise.
        reason: One sentence behind the verdict.
        about: What the test is, a paragraph of markdown.
        command: The command run, shown verbatim; None when nothing ran.
        output: The raw output; None when nothing ran.
        seconds: Wall time of the test.
    """

    title: str
    verdict: Verdict
    reason: str
    about: str = ""
    command: str | None = None
    output: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class ReportOptions:
    """What ``etg rng report`` runs.

    Attributes:
        n_bytes: Bytes of the stream for ent and rngtest.
        seed: None for production seeding from fresh entropy; an integer for a reproducible
            run.
        position_shuffles: One-deck shoes of the card-position chi-square test.
        order_shuffles: 5-card shuffles of the all-120-orders test.
        dieharder_tests: dieharder test numbers (``-d``).
        dieharder_psamples: dieharder ``-p``; None for each test's default (usually 100).
        dieharder_timeout: Seconds one dieharder test may take before it is stopped.
    """

    n_bytes: int = DEFAULT_REPORT_BYTES
    seed: int | None = None
    position_shuffles: int = DEFAULT_POSITION_SHUFFLES
    order_shuffles: int = DEFAULT_ORDER_SHUFFLES
    dieharder_tests: tuple[int, ...] = DEFAULT_DIEHARDER_TESTS
    dieharder_psamples: int | None = None
    dieharder_timeout: float = DIEHARDER_TIMEOUT_S


@dataclass
class Report:
    """The outcome of :func:`run_report`; :meth:`markdown` renders it."""

    options: ReportOptions
    command: str
    started: datetime
    self_test_passed: bool
    stream_sha256: str | None = None
    sections: list[Section] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def overall(self) -> str:
        """PASS only when every section passed; FAIL when one failed; INCOMPLETE otherwise."""
        verdicts = {section.verdict for section in self.sections}
        if Verdict.FAIL in verdicts:
            return "FAIL"
        if verdicts == {Verdict.PASS}:
            return "PASS"
        return "INCOMPLETE"

    def counts(self) -> str:
        """``"7 PASS, 0 FAIL, 2 NOT RUN"``."""
        return ", ".join(f"{sum(s.verdict is v for s in self.sections)} {v.value}" for v in Verdict)

    def markdown(self) -> str:
        """The report as markdown (:func:`format_report`)."""
        return format_report(self)


def _not_installed(title: str, tool: str, package: str) -> Section:
    return Section(
        title,
        Verdict.NOT_RUN,
        f"`{tool}` is not installed (Debian package `{package}`); install it with "
        f"`{INSTALL_HINT}` (or `tools/ci_packages.sh`) and run the report again",
    )


def _tool_version(package: str) -> str:
    dpkg_query = shutil.which("dpkg-query")
    if dpkg_query is None:
        return "version unknown"
    try:
        found = subprocess.run(
            [dpkg_query, "-W", "-f=${Version}", package],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "version unknown"
    version = found.stdout.strip()
    if found.returncode != 0 or not version:
        return "version unknown"
    return f"Debian package {package} {version}"


def _two_sided_p(z: float) -> float:
    return 2.0 * (1.0 - NormalDist().cdf(abs(z)))


def binomial_allowance(n: int, p: float, alpha: float = ALPHA) -> int:
    """The most events a healthy source shows in ``n`` trials at confidence ``1 - alpha``.

    The smallest ``k`` with ``P(X > k) <= alpha`` for ``X ~ Binomial(n, p)``, summed in log
    space so that large ``n`` does not underflow.

    Args:
        n: Trials (e.g. FIPS 140-2 blocks).
        p: Probability of the event per trial under a healthy source.
        alpha: Allowed probability of a false alarm.

    Returns:
        The allowance ``k``; more than ``k`` events fails the test.
    """
    if n <= 0:
        return 0
    log_ratio = math.log(p) - math.log1p(-p)
    log_pmf = n * math.log1p(-p)
    cdf = 0.0
    for k in range(n + 1):
        cdf += math.exp(log_pmf)
        if 1.0 - cdf <= alpha:
            return k
        log_pmf += math.log((n - k) / (k + 1)) + log_ratio
    return n  # pragma: no cover - the cdf reaches 1 at k = n


# --- ent ---------------------------------------------------------------------------------------


_ENT_PATTERNS: Final = {
    "entropy": r"Entropy = ([0-9.]+) bits per byte",
    "chi_square": r"Chi square distribution for (?:\d+) samples is ([0-9.]+)",
    "mean": r"Arithmetic mean value of data bytes is ([0-9.]+)",
    "pi": r"Monte Carlo value for Pi is ([0-9.]+)",
    "serial": r"Serial correlation coefficient is (-?[0-9.]+)",
}
#: Variance of a byte uniform on 0..255: (256**2 - 1) / 12.
_BYTE_VARIANCE: Final = (256**2 - 1) / 12
#: ent's Monte Carlo takes 6 bytes per point (24-bit x and y).
_ENT_MONTE_BYTES: Final = 6


def ent_section(path: Path, n_bytes: int) -> Section:
    """Run ``ent`` on the stream file and judge four of its statistics.

    Args:
        path: The stream file.
        n_bytes: Its size.

    Returns:
        The section; NOT RUN when ``ent`` is not installed.
    """
    title = "ent (entropy, chi-square, mean, Monte Carlo pi, serial correlation)"
    exe = shutil.which("ent")
    if exe is None:
        return _not_installed(title, "ent", "ent")
    about = (
        f"`ent` ({_tool_version('ent')}) over the whole stream of {n_bytes:,} bytes. ent "
        "gives no verdict; we judge four statistics, each at 0.01 / 4 (Bonferroni): the "
        "byte chi-square (255 degrees of freedom) must not be in either 0.125% tail (ent's "
        "own guidance: a percentage above 99% or below 1% is not random); the mean "
        "(sd = 73.9 / sqrt(bytes)), the Monte Carlo pi (bytes / 6 points, sd = "
        "4 sqrt(p(1 - p) / points) with p = pi / 4) and the serial correlation (sd = "
        "1 / sqrt(bytes)) must be within their two-sided 99.75% normal ranges. The entropy "
        "figure is shown, not judged (it is a function of the same byte counts)."
    )
    argv = [exe, str(path)]
    command = shlex.join(["ent", path.name])
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=_TOOL_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return Section(title, Verdict.NOT_RUN, f"ent could not run: {exc}", about, command)
    output = done.stdout + done.stderr
    values: dict[str, float] = {}
    for key, pattern in _ENT_PATTERNS.items():
        match = re.search(pattern, output)
        if match is not None:
            values[key] = float(match.group(1))
    if done.returncode != 0 or set(values) != set(_ENT_PATTERNS) or n_bytes < 2:
        why = (
            "serial correlation undefined (all bytes equal)"
            if "undefined" in output
            else f"ent exited with status {done.returncode} or printed an unexpected report"
        )
        return Section(title, Verdict.FAIL, why, about, command, output)
    each = ALPHA / 4
    chi_p = chi_square_p_value(values["chi_square"], 255)
    mean_p = _two_sided_p((values["mean"] - 127.5) / math.sqrt(_BYTE_VARIANCE / n_bytes))
    points = max(n_bytes // _ENT_MONTE_BYTES, 1)
    quarter = math.pi / 4
    pi_p = _two_sided_p(
        (values["pi"] - math.pi) / (4 * math.sqrt(quarter * (1 - quarter) / points))
    )
    serial_p = _two_sided_p(values["serial"] * math.sqrt(n_bytes))
    checks = [
        ("chi-square", chi_p, each / 2 <= chi_p <= 1 - each / 2),
        ("mean", mean_p, mean_p >= each),
        ("Monte Carlo pi", pi_p, pi_p >= each),
        ("serial correlation", serial_p, serial_p >= each),
    ]
    failed = [name for name, _, ok in checks if not ok]
    detail = ", ".join(f"{name} p = {p:.4f}" for name, p, _ in checks)
    entropy = f"entropy {values['entropy']:.6f} bits/byte"
    if failed:
        return Section(
            title,
            Verdict.FAIL,
            f"outside range: {', '.join(failed)} ({detail}; {entropy})",
            about,
            command,
            output,
        )
    return Section(title, Verdict.PASS, f"{detail}; {entropy}", about, command, output)


# --- rngtest -----------------------------------------------------------------------------------


def rngtest_section(path: Path, n_bytes: int) -> Section:
    """Run ``rngtest`` (FIPS 140-2) on the stream file and judge its failure count.

    Args:
        path: The stream file.
        n_bytes: Its size.

    Returns:
        The section; NOT RUN when ``rngtest`` is not installed or the stream is shorter
        than 1,000 blocks.
    """
    title = "rngtest (FIPS 140-2: monobit, poker, runs, long run, continuous run)"
    exe = shutil.which("rngtest")
    if exe is None:
        return _not_installed(title, "rngtest", "rng-tools5")
    if n_bytes < RNGTEST_MIN_BYTES:
        return Section(
            title,
            Verdict.NOT_RUN,
            f"the stream has {n_bytes:,} bytes; the FIPS 140-2 tests want at least "
            f"{RNGTEST_MIN_BLOCKS:,} blocks of 20,000 bits, {RNGTEST_MIN_BYTES:,} bytes "
            f"(rngtest first reads 4 bytes): run the report with --bytes {RNGTEST_MIN_BYTES} "
            "or more",
        )
    blocks = (n_bytes - RNGTEST_PRIME_BYTES) // FIPS_BLOCK_BYTES
    allowed = binomial_allowance(blocks, FIPS_BLOCK_FAILURE_RATE)
    about = (
        f"`rngtest` ({_tool_version('rng-tools5')}) reads the stream on stdin and runs the "
        f"FIPS 140-2 tests on each of its {blocks:,} blocks of 20,000 bits; it exits with "
        "status 1 when any block fails. An ideal source fails about "
        f"{FIPS_BLOCK_FAILURE_RATE:.2%} of blocks, so the verdict compares the failure count "
        f"with Binomial({blocks:,}, {FIPS_BLOCK_FAILURE_RATE}) at 99%: at most {allowed} "
        "failures pass."
    )
    command = f"rngtest < {shlex.quote(path.name)}"
    try:
        with path.open("rb") as stdin:
            done = subprocess.run(
                [exe],
                stdin=stdin,
                capture_output=True,
                text=True,
                timeout=_TOOL_TIMEOUT_S,
                check=False,
            )
    except (OSError, subprocess.SubprocessError) as exc:
        return Section(title, Verdict.NOT_RUN, f"rngtest could not run: {exc}", about, command)
    output = done.stdout + done.stderr
    successes = re.search(r"FIPS 140-2 successes: (\d+)", output)
    failures = re.search(r"FIPS 140-2 failures: (\d+)", output)
    if successes is None or failures is None or done.returncode not in (0, 1):
        return Section(
            title,
            Verdict.FAIL,
            f"rngtest exited with status {done.returncode} without its FIPS 140-2 counts",
            about,
            command,
            output,
        )
    passed, failed = int(successes.group(1)), int(failures.group(1))
    detail = (
        f"{passed:,} successes, {failed:,} failures of {passed + failed:,} blocks "
        f"(at most {allowed} failures expected at 99%)"
    )
    if passed + failed != blocks:
        return Section(
            title, Verdict.FAIL, f"{detail}; expected {blocks:,} blocks", about, command, output
        )
    verdict = Verdict.PASS if failed <= allowed else Verdict.FAIL
    return Section(title, verdict, detail, about, command, output)


# --- dieharder ---------------------------------------------------------------------------------


_DIEHARDER_RESULT: Final = re.compile(
    r"^\s*(\S+)\|\s*\d+\|\s*\d+\|\s*\d+\|\s*([0-9.]+)\|\s*(PASSED|WEAK|FAILED)\s*$",
    re.MULTILINE,
)


def dieharder_section(
    exe: str,
    test: int,
    options: ReportOptions,
    entropy: EntropySource | None,
    version: str = "version unknown",
) -> Section:
    """Run one dieharder test on a fresh stream fed to its stdin (``-g 200``).

    dieharder reads as much as the test needs from a new
    :func:`~tools.rng_lab.raw_stream` labelled ``rng-lab-dieharder-<test>``; nothing is ever
    rewound.

    Args:
        exe: Path of dieharder.
        test: The test number (``-d``).
        options: psamples, seed and timeout.
        entropy: The entropy source of an unseeded stream.
        version: The tool's version, for the section text.

    Returns:
        The section.
    """
    from tools import rng_lab  # the raw stream, made as the report's

    label = f"rng-lab-dieharder-{test}"
    args = ["-g", "200", "-d", str(test)]
    if options.dieharder_psamples is not None:
        args += ["-p", str(options.dieharder_psamples)]
    seed_arg = "" if options.seed is None else f" --seed {options.seed}"
    command = shlex.join(["dieharder", *args])
    shown = f"etg rng raw --label {label}{seed_arg} | {command}"
    about = (
        f"`dieharder` ({version}) test {test} on its own fresh stream from the generator, "
        f"fed to its stdin (`-g 200`; personalization `{label}/<segment>`) for as long as "
        "the test reads. The command below is the equivalent pipeline; the report feeds "
        "dieharder from the same generator in-process."
    )
    title = f"dieharder -d {test}"
    with tempfile.TemporaryFile() as captured:
        try:
            proc = subprocess.Popen(
                [exe, *args], stdin=subprocess.PIPE, stdout=captured, stderr=subprocess.STDOUT
            )
        except OSError as exc:
            return Section(title, Verdict.NOT_RUN, f"dieharder could not run: {exc}", about, shown)
        timed_out = threading.Event()

        def stop() -> None:
            timed_out.set()
            proc.kill()

        timer = threading.Timer(options.dieharder_timeout, stop)
        timer.start()
        fed = 0
        try:
            assert proc.stdin is not None
            for chunk in rng_lab.raw_stream(None, seed=options.seed, label=label, entropy=entropy):
                proc.stdin.write(chunk)
                fed += len(chunk)
        except BrokenPipeError:  # dieharder is done (or was stopped) and closed its stdin
            pass
        except BaseException:  # the generator failed (a health test): stop dieharder too
            proc.kill()
            raise
        finally:
            timer.cancel()
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
            except BrokenPipeError:
                pass
            status = proc.wait()
        captured.seek(0)
        output = captured.read().decode("utf-8", errors="replace").rstrip()
    about += f" dieharder read up to {fed:,} bytes and exited with status {status}."
    return _dieharder_verdict(test, output, status, fed, timed_out.is_set(), options, about, shown)


def _dieharder_verdict(
    test: int,
    output: str,
    status: int,
    fed: int,
    timed_out: bool,
    options: ReportOptions,
    about: str,
    shown: str,
) -> Section:
    """The section of a dieharder run from its output: NOT RUN when it was stopped or printed
    no result, FAIL when its input was rewound or a p-value FAILED, else PASS."""
    title = f"dieharder -d {test}"
    results = _DIEHARDER_RESULT.findall(output)
    if results:
        title = f"dieharder -d {test} ({results[0][0]})"
    if timed_out:
        return Section(
            title,
            Verdict.NOT_RUN,
            f"stopped after {options.dieharder_timeout:.0f} s before it finished",
            about,
            shown,
            output,
        )
    if not results:
        return Section(
            title,
            Verdict.NOT_RUN,
            f"dieharder printed no result (exit status {status}); see the output",
            about,
            shown,
            output,
        )
    if "rewound" in output:
        return Section(
            title, Verdict.FAIL, "the input was rewound: p-values unreliable", about, shown, output
        )
    assessments = [assessment for _, _, assessment in results]
    p_values = ", ".join(p for _, p, _ in results[:4]) + (", ..." if len(results) > 4 else "")
    detail = (
        f"{len(results)} p-value{'s' * (len(results) != 1)} ({p_values}): "
        f"{assessments.count('PASSED')} PASSED, {assessments.count('WEAK')} WEAK, "
        f"{assessments.count('FAILED')} FAILED; {fed / 1e6:,.0f} MB fed"
    )
    if status != 0 or "FAILED" in assessments:
        return Section(title, Verdict.FAIL, detail, about, shown, output)
    return Section(title, Verdict.PASS, detail, about, shown, output)


# --- The report as markdown -------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _fenced(text: str) -> list[str]:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}text", text.rstrip("\n"), fence]


def _key_files() -> list[tuple[str, str]]:
    import game_server.rng as rng_package
    import shared.cards as cards_module

    package = Path(rng_package.__file__).parent
    root = package.parents[1]
    paths = [*sorted(package.glob("*.py")), Path(cards_module.__file__), Path(__file__)]
    return [
        (path.relative_to(root).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest())
        for path in paths
    ]


def format_report(report: Report) -> str:
    """Render a report as markdown: header, summary table, generator, rules, sections.

    Args:
        report: The outcome of :func:`run_report`.

    Returns:
        The markdown text.
    """
    lines = _report_header(report) + _generator_lines(report) + _verdict_rules()
    return "\n".join(lines + _section_lines(report)) + "\n"


def _report_header(report: Report) -> list[str]:
    """The report's title, what ran where and how it was seeded, and the summary table."""
    options = report.options
    if options.seed is None:
        seeding = (
            "fresh entropy from the OS for every DRBG instance (production seeding, not "
            "reproducible)"
        )
    else:
        seeding = (
            f"deterministic test seed {options.seed} (`ShoeSeed.from_test_seed`): reproducible "
            "for the lab, NOT production seeding"
        )
    lines = [
        "# RNG lab report: HMAC_DRBG (SHA-256) shoe RNG",
        "",
        f"- Generated: {report.started:%Y-%m-%d %H:%M:%S} UTC on `{socket.gethostname()}` "
        f"({platform.platform()}, {platform.python_implementation()} "
        f"{platform.python_version()}, {os.cpu_count()} CPUs)",
        f"- Command: `{report.command}`",
        f"- Seeding of this run: {seeding}",
        f"- Overall: **{report.overall}** ({report.counts()}); runtime {report.seconds:.1f} s",
        "",
        "A test that did not run is NOT RUN, never PASS; the overall result is PASS only when "
        "every test ran and passed.",
        "",
        "## Summary",
        "",
        "| # | Test | Verdict | Detail | Time |",
        "|---|------|---------|--------|------|",
    ]
    for number, section in enumerate(report.sections, 1):
        lines.append(
            f"| {number} | {_cell(section.title)} | **{section.verdict.value}** | "
            f"{_cell(section.reason)} | {section.seconds:.1f} s |"
        )
    return lines


def _generator_lines(report: Report) -> list[str]:
    """The generator under test: mechanism, seeding, scaling, self-test, this stream, the
    key files."""
    options = report.options
    probe = EntropySource()
    lines: list[str] = []
    lines += [
        "",
        "## Generator under test",
        "",
        "- Mechanism: HMAC_DRBG with SHA-256, NIST SP 800-90A Rev. 1 section 10.1.2, "
        "security strength 256 bits, no prediction resistance; at most "
        f"{MAX_REQUEST_BYTES:,} bytes per Generate request; reseed interval 2**48 requests "
        f"({RESEED_INTERVAL:,}). Implementation: `game_server/rng/drbg.py`.",
        "- Seeding (production): a new DRBG instance per shoe, instantiated with a 256-bit "
        "entropy input and a 128-bit nonce read from `os.urandom` (getrandom) through "
        "`EntropySource`, which runs the SP 800-90B health tests on every byte: start-up test "
        f"over {STARTUP_SAMPLES} samples, Repetition Count Test (cutoff {probe.rct_cutoff}) "
        f"and Adaptive Proportion Test (window {APT_WINDOW}, cutoff {probe.apt_cutoff}) at "
        "alpha = 2**-40; a failure takes the table out of service. Personalization string: "
        "`<table id>/<shoe number>`.",
        "- Scaling and shuffle: `RandomStream` reads the DRBG in requests of "
        f"{BLOCK_BYTES:,} bytes; `randbelow` scales by rejection sampling (no modulo bias); "
        "the shoe is shuffled by Fisher-Yates (Durstenfeld) over all its cards.",
        "- Self-test: SP 800-90A 11.3 known-answer tests with NIST CAVP vectors at start: "
        f"**{'PASS' if report.self_test_passed else 'FAIL'}**.",
        "- Stream of this report (ent, rngtest): "
        f"{options.n_bytes:,} bytes, SHA-256 `{report.stream_sha256 or 'not generated'}`; "
        f"a new DRBG instance per {SEGMENT_BYTES:,} bytes, personalization "
        f"`{RAW_LABEL}/<segment>`, Generate requests of {MAX_REQUEST_BYTES:,} bytes. Each "
        "dieharder test reads its own fresh stream built the same way.",
    ]
    if options.seed is not None:
        lines.append(
            f"- Reproduce the stream: `etg rng raw --bytes {options.n_bytes} --seed "
            f"{options.seed} > stream.bin` (same SHA-256)."
        )
    lines += ["", "Key files (SHA-256):", ""]
    lines += [f"- `{name}` `{digest}`" for name, digest in _key_files()]
    return lines


def _verdict_rules() -> list[str]:
    """How a verdict is decided, for every report alike."""
    return [
        "",
        "## How verdicts are decided",
        "",
        "Each test is judged at 99% confidence (25 CFR 547.14(b)(2)); a test with several "
        "statistics splits the 1% between them (Bonferroni). A healthy generator therefore "
        "fails each of ent, rngtest and the two chi-square tests about once in 100 runs, and "
        "a whole report about once in 25: a single marginal FAIL calls for a rerun on a "
        "fresh stream, while a defect fails again and by a wide margin.",
        "",
        "dieharder is judged by its own assessment: FAIL if any p-value of the test is "
        "FAILED (p < 0.000001 or p > 0.999999). WEAK p-values (outside 0.005..0.995) are "
        "expected in about 1 of 100 p-values of a healthy generator; they are counted, not "
        "failed. Each dieharder test reads a fresh stream on stdin (`-g 200`) for as long as "
        "it needs, so its input is never rewound. With a file (`-g 201`) dieharder rewinds "
        "to the start when the file runs out and reuses the data: p-values from a rewound "
        "file are unreliable, and a section whose output says its input was rewound is "
        "FAIL, never PASS.",
        "",
        "A tool that is not installed, or a stream too short for it, gives NOT RUN; install "
        f"the tools with `{INSTALL_HINT}` (or `tools/ci_packages.sh`).",
    ]


def _section_lines(report: Report) -> list[str]:
    """Each test's section: what it is, its command, its output, its verdict."""
    lines: list[str] = []
    for number, section in enumerate(report.sections, 1):
        lines += ["", f"## {number}. {section.title}", ""]
        if section.about:
            lines += [section.about, ""]
        if section.command is not None:
            lines += [f"Command: `{section.command}`", ""]
        if section.output is not None:
            lines += ["Output:", "", *_fenced(section.output), ""]
        lines.append(f"**Verdict: {section.verdict.value}** — {section.reason}")
    return lines
