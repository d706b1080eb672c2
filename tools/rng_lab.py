"""Lab tooling for the certified RNG: the data-collection tools and the report a gaming lab asks.

A GLI RNG submission asks for a *Raw Output Collection Tool* (generator output before any
scaling or shuffling), an *RNG Final Outcome Collection Tool* (final outcomes made exactly as
production makes them) and evidence that the output passes recognised statistical tests.
This module is those three, as the click group :data:`rng`, which ``tools.cli`` registers
with ``main.add_command(rng)``:

- ``etg rng raw``: raw HMAC_DRBG output to stdout as binary, for ``dieharder -g 200``,
  ``ent`` and ``rngtest``.
- ``etg rng shoes``: final shuffled shoes, one line of card text or one byte per card each.
- ``etg rng report``: a markdown report with a verdict per test: ``ent``, ``rngtest``
  (FIPS 140-2), a ``dieharder`` subset, and our own card-position and 5-card-order
  chi-square tests (:mod:`game_server.rng.stats`).

How the raw stream is built (:func:`raw_stream`). The stream is cut into segments of 1 MiB
(:data:`SEGMENT_BYTES`). Each segment comes from a new :class:`~game_server.rng.HmacDrbg`
instance seeded the way a production shoe is (:meth:`ShoeSeed.fresh`: 256 bits of entropy
input and a 128-bit nonce from the health-tested :class:`~game_server.rng.EntropySource`,
personalization ``"<label>/<segment>"``) and serves Generate requests of 65,536 bytes, the
most SP 800-90A allows in one request. We instantiate a new DRBG per segment rather than
reseed one because that is what production does (a new instance per shoe), so the raw
stream exercises the seeding path too; an instance serves 16 requests, far below the reseed
interval of 2**48, so Reseed is never needed. With ``--seed`` each segment's seed is
:meth:`ShoeSeed.from_test_seed` ``(seed, label, segment)`` instead: the stream is then
reproducible byte for byte, and a shorter stream is a prefix of a longer one. That is for
lab runs and tests only; anyone who knows the seed knows the stream.

Writing to a closed pipe (``etg rng raw | head -c 100``) ends the command quietly with exit
status 0 (:func:`write_stream`).
"""

from __future__ import annotations

import enum
import hashlib
import itertools
import math
import os
import platform
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from statistics import NormalDist
from typing import IO, Any, Final, NoReturn

import click

from game_server.rng import (
    ALLOWED_DECKS,
    BLOCK_BYTES,
    DrbgSelfTestFailed,
    EntropySource,
    HmacDrbg,
    RandomStream,
    Shoe,
    ShoeSeed,
    fisher_yates,
    self_test,
)
from game_server.rng.drbg import KNOWN_ANSWERS, MAX_REQUEST_BYTES, RESEED_INTERVAL
from game_server.rng.entropy import APT_WINDOW, STARTUP_SAMPLES
from game_server.rng.errors import BadRange
from game_server.rng.stats import (
    chi_square_p_value,
    chi_square_statistic,
    chi_square_test,
    permutation_table_test,
)
from shared.cards import CARDS, Card, format_cards
from shared.errors import ETGError

#: Bytes of raw output per DRBG instance (see the module docstring).
SEGMENT_BYTES: Final = 2**20
#: Personalization prefix of the raw stream of ``etg rng raw`` and of the report's stream.
RAW_LABEL: Final = "rng-lab-raw"
#: Table id of the shoes of ``etg rng shoes`` (personalization ``"rng-lab/<shoe number>"``).
SHOES_TABLE_ID: Final = "rng-lab"
#: Output is written in batches of about this many bytes.
OUTPUT_BATCH_BYTES: Final = 2**16

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
#: Default size of the report's stream: 10,000 FIPS 140-2 blocks exactly.
DEFAULT_REPORT_BYTES: Final = RNGTEST_PRIME_BYTES + FIPS_BLOCK_BYTES * 10_000
#: dieharder tests of the default report: all rated "Good" by dieharder, about 1.1 GB of
#: input in total (about 30 s at this generator's speed). Not the rank 32x32 (550 MB),
#: craps (580 MB) and GCD (8 GB) tests, to keep the default report near a minute.
DEFAULT_DIEHARDER_TESTS: Final = (0, 3, 8, 10, 11, 12, 15, 100, 101, 102, 202)
#: Seconds one dieharder test may run before it is stopped (and reported NOT RUN).
DIEHARDER_TIMEOUT_S: Final = 600.0
#: One-deck shoes of the card-position test (about 1,923 per card and position).
DEFAULT_POSITION_SHUFFLES: Final = 100_000
#: Shuffles of the 5-card-order test (1,000 per order).
DEFAULT_ORDER_SHUFFLES: Final = 120_000

_TOOL_TIMEOUT_S: Final = 600.0


# --- Streams ---------------------------------------------------------------------------------


def make_seeder(
    seed: int | None, entropy: EntropySource | None = None
) -> Callable[[str, int], ShoeSeed]:
    """How the lab tools seed each DRBG instance: ``seeder(label, number) -> ShoeSeed``.

    Args:
        seed: None for :meth:`ShoeSeed.fresh` (production seeding from the health-tested
            entropy source); an integer for :meth:`ShoeSeed.from_test_seed` (reproducible,
            for lab runs and tests only).
        entropy: The entropy source when ``seed`` is None; a new :class:`EntropySource`
            over ``os.urandom`` if None.

    Returns:
        A function of the personalization's label (table id) and number (shoe number).
    """
    if seed is not None:
        fixed = seed
        return lambda label, number: ShoeSeed.from_test_seed(fixed, label, number)
    source = EntropySource() if entropy is None else entropy
    return lambda label, number: ShoeSeed.fresh(source, label, number)


def raw_stream(
    n_bytes: int | None,
    *,
    seed: int | None = None,
    label: str = RAW_LABEL,
    request_bytes: int = MAX_REQUEST_BYTES,
    entropy: EntropySource | None = None,
) -> Iterator[bytes]:
    """Raw HMAC_DRBG output, one Generate request per chunk.

    Args:
        n_bytes: Bytes in all; ``None`` for an endless stream.
        seed: ``None`` seeds each 1 MiB segment from fresh entropy (production seeding); an
            integer seeds it with :meth:`ShoeSeed.from_test_seed` (reproducible).
        label: Personalization prefix; segment ``i`` is personalized ``"<label>/<i>"``.
        request_bytes: Bytes per Generate request, 1..65536. Production's
            :class:`~game_server.rng.RandomStream` asks for 1,024 (``BLOCK_BYTES``).
        entropy: The entropy source when ``seed`` is None; a new :class:`EntropySource`
            over ``os.urandom`` if None.

    Yields:
        Chunks of at most ``request_bytes`` bytes, ``n_bytes`` in all.

    Raises:
        BadRange: ``n_bytes`` is negative or ``request_bytes`` is outside 1..65536.
        EntropyHealthError: The entropy source failed a health test.
    """
    if not 1 <= request_bytes <= MAX_REQUEST_BYTES:
        raise BadRange(
            f"request size {request_bytes} is outside 1..{MAX_REQUEST_BYTES} bytes "
            "(SP 800-90A Table 2)"
        )
    if n_bytes is not None and n_bytes < 0:
        raise BadRange(f"asked for {n_bytes} bytes of raw output; ask for 0 or more")
    seeder = make_seeder(seed, entropy)
    remaining = n_bytes
    for segment in itertools.count():
        if remaining == 0:
            return
        shoe_seed = seeder(label, segment)
        drbg = HmacDrbg(shoe_seed.entropy_input, shoe_seed.nonce, shoe_seed.personalization)
        left = SEGMENT_BYTES if remaining is None else min(SEGMENT_BYTES, remaining)
        if remaining is not None:
            remaining -= left
        while left > 0:
            size = min(request_bytes, left)
            yield drbg.generate(size)
            left -= size


def shoe_orders(
    count: int | None,
    decks: int,
    *,
    seed: int | None = None,
    table_id: str = SHOES_TABLE_ID,
    first_shoe: int = 1,
    entropy: EntropySource | None = None,
) -> Iterator[tuple[Card, ...]]:
    """Final shuffled shoes, each a new :class:`Shoe` from its own seed, as production makes.

    Args:
        count: Shoes in all; ``None`` for endless.
        decks: Decks per shoe (1, 2, 4, 6 or 8).
        seed: ``None``: :meth:`ShoeSeed.fresh` per shoe; an integer:
            :meth:`ShoeSeed.from_test_seed` per shoe (reproducible, tests only).
        table_id: The table id of the personalization ``"<table id>/<shoe number>"``.
        first_shoe: Number of the first shoe; the live table counts from 1.
        entropy: The entropy source when ``seed`` is None; a new one if None.

    Yields:
        Each shoe's card order.

    Raises:
        BadDeckCount: ``decks`` is not a deck count a shoe can hold.
        EntropyHealthError: The entropy source failed a health test.
    """
    seeder = make_seeder(seed, entropy)
    numbers = (
        itertools.count(first_shoe) if count is None else range(first_shoe, first_shoe + count)
    )
    for number in numbers:
        yield Shoe(decks, seeder(table_id, number)).order


def encode_shoes(orders: Iterable[Sequence[Card]], binary: bool) -> Iterator[bytes]:
    """Shoes as output bytes, in batches of about 64 KiB.

    Args:
        orders: Card orders.
        binary: True: one byte per card, its code 0..51, shoes back to back. False: one
            line of card text per shoe (``"AS TD 7C ..."``).

    Yields:
        Batches of whole shoes.
    """
    batch: list[bytes] = []
    size = 0
    for order in orders:
        data = bytes(order) if binary else (format_cards(order) + "\n").encode("ascii")
        batch.append(data)
        size += len(data)
        if size >= OUTPUT_BATCH_BYTES:
            yield b"".join(batch)
            batch, size = [], 0
    if batch:
        yield b"".join(batch)


def write_stream(chunks: Iterable[bytes], out: IO[bytes] | None = None) -> int:
    """Write chunks to stdout (or ``out``) until they end or the reader closes the pipe.

    A closed pipe is the normal end of ``etg rng raw | head -c N``: stop generating, point
    stdout at /dev/null so that the interpreter's final flush cannot fail, and return.

    Args:
        chunks: The data; not consumed further once the pipe is closed.
        out: Where to write; click's binary stdout if None.

    Returns:
        Bytes handed to the stream before it ended or closed.
    """
    stream = sys.stdout.buffer if out is None else out
    written = 0
    try:
        for chunk in chunks:
            stream.write(chunk)
            written += len(chunk)
        stream.flush()
    except BrokenPipeError:
        _discard_stdout()
    return written


def _discard_stdout() -> None:
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (CliRunner) or closed
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


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
        """The report as markdown."""
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

    dieharder reads as much as the test needs from a new :func:`raw_stream` labelled
    ``rng-lab-dieharder-<test>``; nothing is ever rewound.

    Args:
        exe: Path of dieharder.
        test: The test number (``-d``).
        options: psamples, seed and timeout.
        entropy: The entropy source of an unseeded stream.
        version: The tool's version, for the section text.

    Returns:
        The section.
    """
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
            for chunk in raw_stream(None, seed=options.seed, label=label, entropy=entropy):
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
    results = _DIEHARDER_RESULT.findall(output)
    if results:
        title = f"dieharder -d {test} ({results[0][0]})"
    if timed_out.is_set():
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


# --- Our own chi-square tests --------------------------------------------------------------------


def card_position_section(
    shuffles: int, seed: int | None, entropy: EntropySource | None
) -> Section:
    """Chi-square of card x position over one-deck shoes made as production makes them.

    Each shoe is a new :class:`Shoe` from its own seed (:func:`shoe_orders`, table id
    ``rng-lab-positions``). The 52 x 52 table of counts is tested as a whole at 0.005 (its
    Pearson statistic times 51/52 against 51 * 51 degrees of freedom: see the comment in the
    code), and each card's row (51 degrees of freedom) at 0.005 / 52.

    Args:
        shuffles: Shoes (at least 260, for 5 expected per cell).
        seed: None for fresh entropy per shoe; an integer for test seeds.
        entropy: The entropy source when ``seed`` is None.

    Returns:
        The section.
    """
    title = f"Card positions: chi-square over {shuffles:,} one-deck shoes"
    seeding = "ShoeSeed.fresh" if seed is None else f"ShoeSeed.from_test_seed({seed}, ...)"
    about = (
        "Every card must be equally likely at every position of a shuffled deck. Each shoe "
        f"is a new `Shoe(1, seed)` with its own seed ({seeding}, personalization "
        "`rng-lab-positions/<shoe number>`), exactly the production path; counts of card x "
        "position are tested with Pearson's chi-square (`game_server.rng.stats`): the whole "
        "52 x 52 table at p >= 0.005, and each card's row (a multinomial over 52 positions, "
        "51 degrees of freedom) at p >= 0.005 / 52. A shoe adds a whole permutation matrix "
        "to the table (every row and column sum fixed), not 52 independent counts, so the "
        "table's Pearson statistic is 52/51 times a chi-square with 51 x 51 = 2,601 degrees "
        "of freedom (its mean is 2,652): it is multiplied by 51/52 before the p-value."
    )
    command = f"tools.rng_lab.card_position_section(shuffles={shuffles}, seed={seed})"
    if shuffles < 52 * 5:
        return Section(
            title,
            Verdict.NOT_RUN,
            f"{shuffles} shoes give fewer than 5 expected per cell; use at least 260",
            about,
        )
    counts = [0] * (52 * 52)
    for order in shoe_orders(shuffles, 1, seed=seed, table_id="rng-lab-positions", entropy=entropy):
        for position, dealt in enumerate(order):
            counts[dealt * 52 + position] += 1
    pearson = chi_square_statistic(counts)
    whole = permutation_table_test(counts, 52)  # Pearson x 51/52, (52 - 1)**2 dof
    rows = [chi_square_test(counts[c * 52 : c * 52 + 52]) for c in range(52)]
    lowest = min(range(52), key=lambda c: rows[c].p_value)
    whole_alpha, row_alpha = ALPHA / 2, ALPHA / 2 / 52
    lines = [
        f"shoes: {shuffles:,} (1 deck each, one seed per shoe)",
        f"expected per card and position: {shuffles / 52:,.2f}",
        f"cell counts: min {min(counts):,}, max {max(counts):,}",
        f"whole table: Pearson statistic {pearson:.2f}; x 51/52 = {whole.statistic:.2f}, "
        f"dof {whole.dof}, p = {whole.p_value:.6f} (threshold {whole_alpha})",
        f"per card (dof 51, threshold {row_alpha:.3g}); lowest p = "
        f"{rows[lowest].p_value:.6f} for {CARDS[lowest]}",
    ]
    for start in range(0, 52, 4):
        lines.append(
            "  ".join(f"{CARDS[c]!s:>2} p={rows[c].p_value:.4f}" for c in range(start, start + 4))
        )
    detail = (
        f"whole table p = {whole.p_value:.4f}; lowest card p = {rows[lowest].p_value:.4f} "
        f"({CARDS[lowest]})"
    )
    ok = whole.p_value >= whole_alpha and rows[lowest].p_value >= row_alpha
    return Section(
        title, Verdict.PASS if ok else Verdict.FAIL, detail, about, command, "\n".join(lines)
    )


def five_card_order_section(
    shuffles: int, seed: int | None, entropy: EntropySource | None
) -> Section:
    """All 120 orders of 5 cards: chi-square of Fisher-Yates shuffles from one stream.

    Args:
        shuffles: Shuffles of 5 items (at least 600, for 5 expected per order).
        seed: None to seed the DRBG from fresh entropy; an integer for a test seed.
        entropy: The entropy source when ``seed`` is None.

    Returns:
        The section.
    """
    title = f"5-card orders: chi-square of all 120 orders over {shuffles:,} shuffles"
    about = (
        "The certified shuffle (`fisher_yates` over `RandomStream.randbelow`, rejection "
        "sampling) must make every one of the 5! = 120 orders of 5 cards equally likely. One "
        "HMAC_DRBG instance (personalization `rng-lab-orders/0`) feeds a `RandomStream`; each "
        "shuffle starts from the same 5 cards; the counts of the 120 orders are tested with "
        "Pearson's chi-square, 119 degrees of freedom, at p >= 0.01."
    )
    command = f"tools.rng_lab.five_card_order_section(shuffles={shuffles}, seed={seed})"
    if shuffles < 120 * 5:
        return Section(
            title,
            Verdict.NOT_RUN,
            f"{shuffles} shuffles give fewer than 5 expected per order; use at least 600",
            about,
        )
    shoe_seed = make_seeder(seed, entropy)("rng-lab-orders", 0)
    stream = RandomStream(
        HmacDrbg(shoe_seed.entropy_input, shoe_seed.nonce, shoe_seed.personalization)
    )
    five = CARDS[47:52]  # KS AC AD AH AS
    index = {order: i for i, order in enumerate(itertools.permutations(five))}
    counts = [0] * 120
    for _ in range(shuffles):
        items = list(five)
        fisher_yates(items, stream)
        counts[index[tuple(items)]] += 1
    result = chi_square_test(counts)
    seen = sum(1 for count in counts if count)
    lines = [
        f"shuffles: {shuffles:,} of {format_cards(five)}",
        f"orders seen: {seen} of 120; expected {shuffles / 120:,.2f} each; "
        f"min {min(counts):,}, max {max(counts):,}",
        f"chi-square {result.statistic:.2f}, dof {result.dof}, p = {result.p_value:.6f} "
        f"(threshold {ALPHA})",
        "counts by order (lexicographic from the order above):",
    ]
    for start in range(0, 120, 12):
        lines.append(" ".join(f"{count:>5}" for count in counts[start : start + 12]))
    detail = f"p = {result.p_value:.4f}; {seen} of 120 orders seen"
    ok = result.p_value >= ALPHA and seen == 120
    return Section(
        title, Verdict.PASS if ok else Verdict.FAIL, detail, about, command, "\n".join(lines)
    )


# --- The report --------------------------------------------------------------------------------


def _self_test_section() -> tuple[Section, bool]:
    title = "DRBG self-test (SP 800-90A 11.3 known answers)"
    about = (
        "`game_server.rng.self_test()`, what the table runs at start: the NIST CAVP HMAC_DRBG "
        "vectors (SHA-256, no prediction resistance, with reseed) through instantiate, "
        "reseed and two generates."
    )
    command = "game_server.rng.self_test()"
    started = time.perf_counter()
    try:
        self_test()
    except DrbgSelfTestFailed as exc:
        return (
            Section(title, Verdict.FAIL, str(exc), about, command, f"FAILED: {exc}"),
            False,
        )
    output = "\n".join(f"ok  {vector.name}" for vector in KNOWN_ANSWERS)
    section = Section(
        title,
        Verdict.PASS,
        f"all {len(KNOWN_ANSWERS)} CAVP vectors match",
        about,
        command,
        output,
        time.perf_counter() - started,
    )
    return section, True


def run_report(
    options: ReportOptions,
    *,
    command: str = "etg rng report",
    progress: Callable[[str], None] | None = None,
    entropy: EntropySource | None = None,
) -> Report:
    """Run every test of the report.

    Args:
        options: What to run.
        command: The command line, for the report's header.
        progress: Called with a line before each test (for stderr); None for silence.
        entropy: One entropy source for every unseeded stream; a new one if None.

    Returns:
        The report; its sections say NOT RUN for every test that did not run.
    """
    say = progress or (lambda _text: None)
    started_at = datetime.now(UTC)
    started = time.perf_counter()
    check, passed = _self_test_section()
    report = Report(options, command, started_at, passed, sections=[check])
    if not passed:
        for title in ("ent", "rngtest", "dieharder", "Card positions", "5-card orders"):
            report.sections.append(
                Section(
                    title,
                    Verdict.NOT_RUN,
                    "the DRBG self-test failed: the DRBG must not be used",
                )
            )
        report.seconds = time.perf_counter() - started
        return report
    source = None if options.seed is not None else (entropy or EntropySource())

    def timed(make: Callable[..., Section], *args: Any) -> Section:
        begin = time.perf_counter()
        section = make(*args)
        section.seconds = time.perf_counter() - begin
        return section

    with tempfile.TemporaryDirectory(prefix="etg-rng-report-") as directory:
        path = Path(directory) / "stream.bin"
        say(f"generating the {options.n_bytes:,}-byte stream")
        digest = hashlib.sha256()
        with path.open("wb") as out:
            for chunk in raw_stream(options.n_bytes, seed=options.seed, entropy=source):
                digest.update(chunk)
                out.write(chunk)
        report.stream_sha256 = digest.hexdigest()
        say("ent")
        report.sections.append(timed(ent_section, path, options.n_bytes))
        say("rngtest")
        report.sections.append(timed(rngtest_section, path, options.n_bytes))
    exe = shutil.which("dieharder")
    if exe is None:
        report.sections.append(_not_installed("dieharder", "dieharder", "dieharder"))
    elif not options.dieharder_tests:
        report.sections.append(
            Section("dieharder", Verdict.NOT_RUN, "no dieharder test selected (--dieharder-tests)")
        )
    else:
        version = _tool_version("dieharder")
        for test in options.dieharder_tests:
            say(f"dieharder -d {test}")
            report.sections.append(timed(dieharder_section, exe, test, options, source, version))
    say(f"card positions over {options.position_shuffles:,} shoes")
    report.sections.append(
        timed(card_position_section, options.position_shuffles, options.seed, source)
    )
    say(f"5-card orders over {options.order_shuffles:,} shuffles")
    report.sections.append(
        timed(five_card_order_section, options.order_shuffles, options.seed, source)
    )
    report.seconds = time.perf_counter() - started
    return report


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
    options = report.options
    probe = EntropySource()
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
    lines += [
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
    for number, section in enumerate(report.sections, 1):
        lines += ["", f"## {number}. {section.title}", ""]
        if section.about:
            lines += [section.about, ""]
        if section.command is not None:
            lines += [f"Command: `{section.command}`", ""]
        if section.output is not None:
            lines += ["Output:", "", *_fenced(section.output), ""]
        lines.append(f"**Verdict: {section.verdict.value}** — {section.reason}")
    return "\n".join(lines) + "\n"


# --- The click group -----------------------------------------------------------------------------


def _fail(lines: Iterable[str]) -> NoReturn:
    for line in lines:
        click.echo(f"etg: error: {line}", err=True)
    raise click.exceptions.Exit(2)


class _RngGroup(click.Group):
    """Turns product errors (a failed self-test or health test) into exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except ETGError as exc:
            _fail(line.strip() for line in str(exc).splitlines() if line.strip())


def _self_test_or_fail() -> None:
    try:
        self_test()
    except DrbgSelfTestFailed as exc:
        _fail([str(exc)])


def _refuse_terminal() -> None:
    if sys.stdout.buffer.isatty():
        raise click.UsageError(
            "refusing to write binary data to a terminal: redirect it to a file or pipe it "
            "(e.g. | dieharder -g 200 -a)"
        )


def _decks(ctx: click.Context, param: click.Parameter, value: int) -> int:
    if value not in ALLOWED_DECKS:
        raise click.BadParameter(f"a shoe holds 1, 2, 4, 6 or 8 decks, not {value}")
    return value


_SEED = click.option(
    "--seed",
    type=int,
    default=None,
    help="Deterministic test seeds (reproducible lab runs). Default: fresh OS entropy, "
    "as production seeds.",
)


@click.group(cls=_RngGroup, context_settings={"help_option_names": ["-h", "--help"]})
def rng() -> None:
    """RNG lab tools: raw DRBG output, final shuffled shoes, and the statistical report."""


@rng.command()
@click.option(
    "--bytes",
    "n_bytes",
    type=click.IntRange(min=0),
    default=None,
    help="Bytes to write. Default: endless, until the reader closes the pipe.",
)
@_SEED
@click.option(
    "--label",
    default=RAW_LABEL,
    show_default=True,
    help='Personalization prefix of the DRBG instances ("<label>/<segment>").',
)
@click.option(
    "--request-bytes",
    type=click.IntRange(1, MAX_REQUEST_BYTES),
    default=MAX_REQUEST_BYTES,
    show_default=True,
    help=f"Bytes per Generate request (production's RandomStream asks for {BLOCK_BYTES}).",
)
def raw(n_bytes: int | None, seed: int | None, label: str, request_bytes: int) -> None:
    """Raw HMAC_DRBG output to stdout as binary, before any scaling or shuffling.

    A new DRBG instance per 1 MiB, seeded like a shoe (fresh 256-bit entropy input and
    128-bit nonce, SP 800-90B health-tested), Generate requests of at most 65,536 bytes.
    The known-answer self-test runs first. For example:

    \b
    etg rng raw | dieharder -g 200 -a
    etg rng raw --bytes 25000004 | rngtest
    etg rng raw --bytes 25000004 --seed 1 > stream.bin && ent stream.bin
    """
    _self_test_or_fail()
    _refuse_terminal()
    write_stream(raw_stream(n_bytes, seed=seed, label=label, request_bytes=request_bytes))


@rng.command()
@click.option("--count", type=click.IntRange(min=0), required=True, help="Shoes to write.")
@click.option(
    "--decks", type=int, callback=_decks, default=8, show_default=True, help="Decks per shoe."
)
@_SEED
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "binary"]),
    default="text",
    show_default=True,
    help="text: one line of card text per shoe; binary: one byte per card (code 0..51).",
)
@click.option(
    "--table-id",
    default=SHOES_TABLE_ID,
    show_default=True,
    help='Table id of the personalization "<table id>/<shoe number>".',
)
def shoes(count: int, decks: int, seed: int | None, fmt: str, table_id: str) -> None:
    """Final shuffled shoes to stdout, each a new Shoe from its own seed, as production deals.

    Card codes are (rank - 2) * 4 + suit with suits C=0 D=1 H=2 S=3. Shoes are numbered
    from 1, like a table's. The known-answer self-test runs first.
    """
    _self_test_or_fail()
    binary = fmt == "binary"
    if binary:
        _refuse_terminal()
    orders = shoe_orders(count, decks, seed=seed, table_id=table_id)
    write_stream(encode_shoes(orders, binary))


@rng.command()
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    required=True,
    help="Markdown file to write.",
)
@click.option(
    "--bytes",
    "n_bytes",
    type=click.IntRange(min=1),
    default=DEFAULT_REPORT_BYTES,
    show_default=True,
    help=f"Bytes of the stream for ent and rngtest (rngtest wants {RNGTEST_MIN_BYTES:,}+).",
)
@_SEED
@click.option(
    "--shuffles",
    type=click.IntRange(min=52 * 5),
    default=DEFAULT_POSITION_SHUFFLES,
    show_default=True,
    help="One-deck shoes of the card-position chi-square test.",
)
@click.option(
    "--order-shuffles",
    type=click.IntRange(min=120 * 5),
    default=DEFAULT_ORDER_SHUFFLES,
    show_default=True,
    help="Shuffles of the 5-card all-120-orders test.",
)
@click.option(
    "--dieharder-tests",
    default=",".join(map(str, DEFAULT_DIEHARDER_TESTS)),
    show_default=True,
    help="Comma-separated dieharder test numbers (-d); empty for none.",
)
@click.option(
    "--dieharder-psamples",
    type=click.IntRange(min=1),
    default=None,
    help="dieharder -p for every test. Default: each test's own (usually 100).",
)
def report(
    out_path: Path,
    n_bytes: int,
    seed: int | None,
    shuffles: int,
    order_shuffles: int,
    dieharder_tests: str,
    dieharder_psamples: int | None,
) -> None:
    """Write a markdown report with verdicts: ent, rngtest, dieharder and chi-square tests.

    External tools run only when installed; a missing one is reported NOT RUN with how to
    install it. The default report takes about a minute on two cores.
    """
    if not out_path.parent.is_dir():
        raise click.BadParameter(
            f"the folder {out_path.parent} does not exist", param_hint="'--out'"
        )
    try:
        tests = tuple(int(part) for part in dieharder_tests.split(",") if part.strip())
    except ValueError:
        raise click.BadParameter(
            f"{dieharder_tests!r} is not a comma-separated list of test numbers",
            param_hint="'--dieharder-tests'",
        ) from None
    options = ReportOptions(
        n_bytes=n_bytes,
        seed=seed,
        position_shuffles=shuffles,
        order_shuffles=order_shuffles,
        dieharder_tests=tests,
        dieharder_psamples=dieharder_psamples,
    )
    result = run_report(
        options,
        command=_command_line(options, out_path),
        progress=lambda text: click.echo(f"rng report: {text}", err=True),
    )
    out_path.write_text(result.markdown(), encoding="utf-8")
    click.echo(
        f"wrote {out_path}: overall {result.overall} ({result.counts()}) in {result.seconds:.1f} s"
    )
    if not result.self_test_passed:
        _fail(["the DRBG self-test failed: do not use this RNG; see the report"])


def _command_line(options: ReportOptions, out_path: Path) -> str:
    parts = ["etg", "rng", "report", "--out", str(out_path), "--bytes", str(options.n_bytes)]
    if options.seed is not None:
        parts += ["--seed", str(options.seed)]
    parts += ["--shuffles", str(options.position_shuffles)]
    parts += ["--order-shuffles", str(options.order_shuffles)]
    parts += ["--dieharder-tests", ",".join(map(str, options.dieharder_tests))]
    if options.dieharder_psamples is not None:
        parts += ["--dieharder-psamples", str(options.dieharder_psamples)]
    return shlex.join(parts)


if __name__ == "__main__":  # pragma: no cover - `python -m tools.rng_lab` until cli registers it
    rng(prog_name="etg rng")
