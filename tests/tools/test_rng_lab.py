"""The RNG lab tools: ``etg rng raw``, ``etg rng shoes``, ``etg rng report`` and
``tools/ci_packages.sh``.

Everything runs with ``--seed`` where the output is compared, so the tests are
deterministic. The external tools (ent, rngtest, dieharder) are exercised only where they are
installed; our own chi-square sections always run. Missing tools are simulated by
monkeypatching ``shutil.which``.
"""

from __future__ import annotations

import hashlib
import random
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import tools.rng_lab as rng_lab
from game_server.rng import DrbgSelfTestFailed, HmacDrbg, Shoe, ShoeSeed
from shared.cards import CARDS, Card, parse_cards
from tools.rng_lab import (
    INSTALL_HINT,
    RAW_LABEL,
    RNGTEST_MIN_BYTES,
    SEGMENT_BYTES,
    binomial_allowance,
    card_position_section,
    five_card_order_section,
    rng,
)

ROOT = Path(__file__).resolve().parents[2]
EXTERNAL = ("ent", "rngtest", "dieharder")
#: Fast report options: enough for rngtest's 1,000 blocks, tiny chi-square tests, one small
#: dieharder test.
SMALL_REPORT = [
    "--bytes",
    str(RNGTEST_MIN_BYTES),
    "--seed",
    "11",
    "--shuffles",
    "520",
    "--order-shuffles",
    "1200",
    "--dieharder-tests",
    "0",
    "--dieharder-psamples",
    "5",
]


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def _raw(runner: CliRunner, *args: str) -> bytes:
    result = runner.invoke(rng, ["raw", *args])
    assert result.exit_code == 0, result.output
    return result.stdout_bytes


def _hide(monkeypatch: pytest.MonkeyPatch, *tools: str) -> None:
    """Make ``shutil.which`` report ``tools`` as not installed."""
    real_which = shutil.which

    def which(name: str, *args: object, **kwargs: object) -> str | None:
        if name in tools:
            return None
        return real_which(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(shutil, "which", which)


def _summary(report: str) -> dict[str, str]:
    """Summary table rows: title -> verdict."""
    rows = re.findall(r"^\| \d+ \| (.+?) \| \*\*(PASS|FAIL|NOT RUN)\*\* \|", report, re.M)
    return dict(rows)


def _verdict(report: str, title_start: str) -> str:
    found = [
        verdict for title, verdict in _summary(report).items() if title.startswith(title_start)
    ]
    assert len(found) == 1, (title_start, _summary(report))
    return found[0]


def _section(report: str, title_start: str) -> str:
    """The text of the report's section whose heading starts with ``title_start``."""
    parts = re.split(r"^## ", report, flags=re.M)
    found = [part for part in parts if re.match(rf"\d+\. {re.escape(title_start)}", part)]
    assert len(found) == 1, title_start
    return found[0]


def _report(runner: CliRunner, tmp_path: Path, *args: str) -> tuple[str, int]:
    out = tmp_path / "report.md"
    result = runner.invoke(rng, ["report", "--out", str(out), *args])
    assert out.exists(), result.output
    return out.read_text(encoding="utf-8"), result.exit_code


# --- raw ---------------------------------------------------------------------------------------


def test_raw_writes_exactly_the_bytes_asked_for_and_is_reproducible_with_a_seed(
    runner: CliRunner,
) -> None:
    """--bytes N gives N bytes; the same --seed gives the same bytes, another seed others."""
    first = _raw(runner, "--bytes", "100000", "--seed", "7")
    assert len(first) == 100_000
    assert _raw(runner, "--bytes", "100000", "--seed", "7") == first
    assert _raw(runner, "--bytes", "100000", "--seed", "8") != first
    assert _raw(runner, "--bytes", "0", "--seed", "7") == b""


def test_raw_without_a_seed_differs_every_run(runner: CliRunner) -> None:
    """Fresh entropy per DRBG instance: two runs never give the same stream."""
    one = _raw(runner, "--bytes", "4096")
    two = _raw(runner, "--bytes", "4096")
    assert len(one) == len(two) == 4096
    assert one != two


def test_raw_is_the_certified_drbg_one_instance_per_segment(runner: CliRunner) -> None:
    """Segment i is HmacDrbg(ShoeSeed.from_test_seed(seed, label, i)) generating 64 KiB
    requests, and a shorter stream is a prefix of a longer one across a segment boundary."""
    n_bytes = SEGMENT_BYTES + 1000
    data = _raw(runner, "--bytes", str(n_bytes), "--seed", "3")
    expected = []
    for segment in range(2):
        seed = ShoeSeed.from_test_seed(3, RAW_LABEL, segment)
        drbg = HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization)
        expected += [drbg.generate(65536) for _ in range(16)]
    assert data == b"".join(expected)[:n_bytes]
    assert _raw(runner, "--bytes", "70000", "--seed", "3") == data[:70000]


def test_raw_request_size_is_an_option(runner: CliRunner) -> None:
    """--request-bytes 1024 asks the DRBG for 1,024 bytes per request, like RandomStream."""
    data = _raw(runner, "--bytes", "3000", "--seed", "5", "--request-bytes", "1024")
    seed = ShoeSeed.from_test_seed(5, RAW_LABEL, 0)
    drbg = HmacDrbg(seed.entropy_input, seed.nonce, seed.personalization)
    assert data == drbg.generate(1024) + drbg.generate(1024) + drbg.generate(952)
    assert data != _raw(runner, "--bytes", "3000", "--seed", "5")


def test_raw_refuses_to_run_when_the_self_test_fails(
    runner: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The known-answer test runs first; a failure writes nothing and exits with status 2."""

    def broken() -> None:
        raise DrbgSelfTestFailed("known-answer test failed")

    monkeypatch.setattr(rng_lab, "self_test", broken)
    result = runner.invoke(rng, ["raw", "--bytes", "100", "--seed", "1"])
    assert result.exit_code == 2
    assert result.stdout_bytes == b""
    assert "known-answer test failed" in result.stderr


@pytest.mark.parametrize(
    "args",
    [["raw"], ["shoes", "--count", "100000", "--decks", "8"]],
    ids=["raw", "shoes"],
)
def test_a_closed_pipe_ends_the_command_quietly(args: list[str]) -> None:
    """`etg rng ... | head -c 100`: exit status 0 and nothing on stderr (no traceback)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tools.rng_lab", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert len(proc.stdout.read(100)) == 100
    proc.stdout.close()
    status = proc.wait(timeout=60)
    stderr = proc.stderr.read().decode()
    proc.stderr.close()
    assert status == 0, stderr
    assert stderr == ""


# --- shoes -------------------------------------------------------------------------------------


def test_shoes_text_is_one_valid_shoe_per_line(runner: CliRunner) -> None:
    """Each line parses to D*52 cards holding every card D times, and is the production
    Shoe of its seed (table id rng-lab, shoes numbered from 1)."""
    result = runner.invoke(rng, ["shoes", "--count", "4", "--decks", "2", "--seed", "9"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 4
    for number, line in enumerate(lines, 1):
        cards = parse_cards(line)
        assert len(cards) == 104
        assert Counter(cards) == dict.fromkeys(CARDS, 2)
        assert cards == Shoe(2, ShoeSeed.from_test_seed(9, "rng-lab", number)).order
    assert len(set(lines)) == 4
    again = runner.invoke(rng, ["shoes", "--count", "4", "--decks", "2", "--seed", "9"])
    assert again.stdout == result.stdout


def test_shoes_binary_is_one_byte_per_card_code(runner: CliRunner) -> None:
    """--format binary: D*52 bytes per shoe, the card codes of the text format."""
    args = ["shoes", "--count", "3", "--decks", "1", "--seed", "4"]
    binary = runner.invoke(rng, [*args, "--format", "binary"])
    text = runner.invoke(rng, [*args, "--format", "text"])
    assert binary.exit_code == text.exit_code == 0
    data = binary.stdout_bytes
    assert len(data) == 3 * 52
    for number, line in enumerate(text.stdout.splitlines()):
        shoe = data[number * 52 : number * 52 + 52]
        assert sorted(shoe) == list(range(52))
        assert list(shoe) == [card.code for card in parse_cards(line)]


def test_shoes_without_a_seed_are_fresh(runner: CliRunner) -> None:
    """Each shoe has its own fresh seed: no two runs (or shoes) repeat."""
    one = runner.invoke(rng, ["shoes", "--count", "2", "--decks", "1"]).stdout
    two = runner.invoke(rng, ["shoes", "--count", "2", "--decks", "1"]).stdout
    assert one != two
    assert len(set(one.splitlines() + two.splitlines())) == 4


def test_shoes_refuses_a_deck_count_a_shoe_cannot_hold(runner: CliRunner) -> None:
    result = runner.invoke(rng, ["shoes", "--count", "1", "--decks", "3"])
    assert result.exit_code == 2
    assert "1, 2, 4, 6 or 8 decks" in result.output


# --- report ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_report(tmp_path_factory: pytest.TempPathFactory) -> str:
    """One small seeded report with whatever tools this machine has."""
    report, status = _report(CliRunner(), tmp_path_factory.mktemp("report"), *SMALL_REPORT)
    assert status == 0
    return report


def test_report_chi_square_sections_always_run(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without any external tool, the self-test and both chi-square tests still run and
    pass (fixed seed), with the command, raw output and statistics in the report."""
    _hide(monkeypatch, *EXTERNAL)
    report, status = _report(runner, tmp_path, *SMALL_REPORT)
    assert status == 0
    assert _verdict(report, "DRBG self-test") == "PASS"
    assert _verdict(report, "Card positions") == "PASS"
    assert _verdict(report, "5-card orders") == "PASS"
    positions = _section(report, "Card positions")
    assert "card_position_section(shuffles=520, seed=11)" in positions
    assert "dof 2601" in positions and "x 51/52" in positions and "```text" in positions
    orders = _section(report, "5-card orders")
    assert "orders seen: 120 of 120" in orders and "dof 119" in orders
    assert "HMAC_DRBG with SHA-256, NIST SP 800-90A Rev. 1" in report
    assert "256-bit entropy input and a 128-bit nonce" in report
    assert "SP 800-90B health tests" in report


def test_report_says_not_run_for_missing_tools_and_never_pass(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool that is not installed is NOT RUN with how to install it; no PASS anywhere
    near it, and the overall result is not PASS."""
    _hide(monkeypatch, *EXTERNAL)
    report, _ = _report(runner, tmp_path, *SMALL_REPORT)
    for tool in EXTERNAL:
        assert _verdict(report, tool) == "NOT RUN"
        section = _section(report, tool)
        assert "not installed" in section and INSTALL_HINT in section
        assert "PASS" not in section
        assert "Command:" not in section and "```" not in section
        row = re.search(rf"^\| \d+ \| {tool}\b.*$", report, re.M)
        assert row is not None and "PASS" not in row.group(0)
    assert "Overall: **INCOMPLETE**" in report
    assert "Overall: **PASS**" not in report


def test_report_says_not_run_for_a_stream_too_short_for_rngtest(
    runner: CliRunner, tmp_path: Path
) -> None:
    """rngtest needs 1,000 FIPS blocks; a shorter stream gives NOT RUN, whatever is
    installed."""
    args = list(SMALL_REPORT)
    args[args.index("--bytes") + 1] = "60000"
    args[args.index("--dieharder-tests") + 1] = ""
    report, _ = _report(runner, tmp_path, *args)
    assert _verdict(report, "rngtest") == "NOT RUN"
    assert _verdict(report, "dieharder") == "NOT RUN"
    assert "PASS" not in _section(report, "rngtest")
    if shutil.which("rngtest") is not None:
        assert f"{RNGTEST_MIN_BYTES:,} bytes" in _section(report, "rngtest")


@pytest.mark.parametrize("tool", EXTERNAL)
def test_report_runs_each_installed_tool(small_report: str, tool: str) -> None:
    """An installed tool runs: its section has the command, the raw output and a PASS or
    FAIL verdict (the stream is seeded, so the verdict is fixed)."""
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed ({INSTALL_HINT})")
    title = f"{tool} -d 0" if tool == "dieharder" else tool
    assert _verdict(small_report, title) in {"PASS", "FAIL"}
    section = _section(small_report, title)
    assert "Command: `" in section and "```text" in section
    if tool == "ent":
        assert "Chi square distribution for 2500004 samples" in section
    if tool == "rngtest":
        assert "FIPS 140-2 successes" in section and "of 1,000 blocks" in section
    if tool == "dieharder":
        assert "diehard_birthdays" in section and "-g 200 -d 0 -p 5" in section


def test_report_stream_is_the_raw_stream_of_the_same_seed(
    small_report: str, runner: CliRunner
) -> None:
    """The report's stream is `etg rng raw --bytes N --seed S`, by its SHA-256."""
    data = _raw(runner, "--bytes", str(RNGTEST_MIN_BYTES), "--seed", "11")
    assert hashlib.sha256(data).hexdigest() in small_report
    assert f"etg rng raw --bytes {RNGTEST_MIN_BYTES} --seed 11" in small_report


def test_report_summary_comes_first_and_counts_every_section(small_report: str) -> None:
    """The summary table is at the top, one row per section, and the overall result is
    PASS only if every row is."""
    assert small_report.index("## Summary") < small_report.index("## Generator under test")
    verdicts = list(_summary(small_report).values())
    assert len(verdicts) == len(re.findall(r"^\*\*Verdict: ", small_report, re.M))
    overall = "PASS" if set(verdicts) == {"PASS"} else None
    if overall:
        assert "Overall: **PASS**" in small_report
    else:
        assert "Overall: **PASS**" not in small_report


def test_report_when_the_self_test_fails_runs_nothing(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed self-test is FAIL, every other test NOT RUN, and the command exits 2."""

    def broken() -> None:
        raise DrbgSelfTestFailed("known-answer test failed")

    monkeypatch.setattr(rng_lab, "self_test", broken)
    report, status = _report(runner, tmp_path, *SMALL_REPORT)
    assert status == 2
    verdicts = _summary(report)
    assert verdicts.pop("DRBG self-test (SP 800-90A 11.3 known answers)") == "FAIL"
    assert set(verdicts.values()) == {"NOT RUN"}
    assert "Overall: **FAIL**" in report


def test_five_card_section_fails_a_biased_shuffle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 5-card test can fail: the naive shuffle (j drawn from all n) is rejected."""

    def naive(items: list[object], stream: rng_lab.RandomStream) -> None:
        for i in range(len(items)):
            j = stream.randbelow(len(items))
            items[i], items[j] = items[j], items[i]

    monkeypatch.setattr(rng_lab, "fisher_yates", naive)
    section = five_card_order_section(12_000, seed=1, entropy=None)
    assert section.verdict is rng_lab.Verdict.FAIL


def test_card_position_section_fails_a_shuffle_that_misses_a_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The card-position test can fail: a shuffle that never moves the last card."""

    def stuck(count: int, decks: int, **_: object) -> Iterator[tuple[Card, ...]]:
        rnd = random.Random(5)
        for _ in range(count):
            order = list(CARDS[:51])
            rnd.shuffle(order)
            yield (*order, CARDS[51])

    monkeypatch.setattr(rng_lab, "shoe_orders", stuck)
    section = card_position_section(520, seed=1, entropy=None)
    assert section.verdict is rng_lab.Verdict.FAIL
    assert "(AS)" in section.reason


@pytest.mark.parametrize("tool", ["ent", "rngtest"])
def test_external_tools_fail_a_stuck_stream(tmp_path: Path, tool: str) -> None:
    """A stream of zero bytes fails ent and rngtest (the verdicts can fail)."""
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed ({INSTALL_HINT})")
    path = tmp_path / "zeros.bin"
    path.write_bytes(bytes(RNGTEST_MIN_BYTES))
    make = rng_lab.ent_section if tool == "ent" else rng_lab.rngtest_section
    assert make(path, RNGTEST_MIN_BYTES).verdict is rng_lab.Verdict.FAIL


def test_binomial_allowance_of_fips_failures() -> None:
    """At most 3 failed blocks of 1,000 and 15 of 10,000 at 99% (p = 0.0008 per block)."""
    assert binomial_allowance(1_000, 8e-4) == 3
    assert binomial_allowance(10_000, 8e-4) == 15
    assert binomial_allowance(4_000_000, 8e-4) > 3_200


def test_the_group_registers_under_etg() -> None:
    """`main.add_command(rng)` gives `etg rng raw|shoes|report`."""
    main = click.Group("etg")
    main.add_command(rng)
    result = CliRunner().invoke(main, ["rng", "raw", "--bytes", "10", "--seed", "1"])
    assert result.exit_code == 0
    assert len(result.stdout_bytes) == 10
    assert set(rng.commands) == {"raw", "shoes", "report"}


# --- tools/ci_packages.sh ------------------------------------------------------------------------


def test_ci_packages_warns_and_succeeds_without_apt(tmp_path: Path) -> None:
    """Without the tools and without apt-get, the script warns and exits 0."""
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    done = subprocess.run(
        [bash, str(ROOT / "tools" / "ci_packages.sh")],
        env={"PATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "warning: apt-get not found" in done.stderr
