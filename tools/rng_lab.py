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
  (FIPS 140-2), a ``dieharder`` subset (those sections, the report's types and its markdown
  are :mod:`tools.rng_tests`'), and our own card-position and 5-card-order chi-square tests
  (:mod:`game_server.rng.stats`).

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

import hashlib
import itertools
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
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
from game_server.rng.drbg import KNOWN_ANSWERS, MAX_REQUEST_BYTES
from game_server.rng.errors import BadRange
from game_server.rng.stats import (
    chi_square_statistic,
    chi_square_test,
    permutation_table_test,
)
from shared.cards import CARDS, Card, format_cards
from shared.errors import ETGError
from tools.rng_tests import (
    ALPHA,
    DEFAULT_DIEHARDER_TESTS,
    DEFAULT_ORDER_SHUFFLES,
    DEFAULT_POSITION_SHUFFLES,
    DEFAULT_REPORT_BYTES,
    INSTALL_HINT,
    RAW_LABEL,
    RNGTEST_MIN_BYTES,
    SEGMENT_BYTES,
    Report,
    ReportOptions,
    Section,
    Verdict,
    _not_installed,
    _tool_version,
    binomial_allowance,
    dieharder_section,
    ent_section,
    format_report,
    rngtest_section,
)

__all__ = [
    "INSTALL_HINT",
    "RAW_LABEL",
    "RNGTEST_MIN_BYTES",
    "SEGMENT_BYTES",
    "binomial_allowance",
    "card_position_section",
    "five_card_order_section",
    "format_report",
    "raw_stream",
    "rng",
    "run_report",
    "shoe_orders",
]

#: Table id of the shoes of ``etg rng shoes`` (personalization ``"rng-lab/<shoe number>"``).
SHOES_TABLE_ID: Final = "rng-lab"
#: Output is written in batches of about this many bytes.
OUTPUT_BATCH_BYTES: Final = 2**16


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
