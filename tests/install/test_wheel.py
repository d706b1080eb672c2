"""The package a floor installs: ``python -m build`` makes an sdist and a wheel; the wheel,
installed into a fresh virtual environment outside the repository, carries everything the
product reads at run time, names its commit, and its ``etg serve`` runs a table that answers
over mutual TLS and writes a log that verifies.

The build uses the project's own build backend (``build_support/etg_build.py``), which
writes ``tools/build_info.json``: from the checkout's git, kept from the sdist when the
wheel is built from it, and ``null`` from a tree without git.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from shared.protocol import PROTOCOL_VERSION
from tools.amp_client import AmpClient
from tools.version import git_commit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from test_server_e2e import listening_port, stop  # the e2e tests' way to start and stop

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("shared", "game_server", "terminal_client", "tools")
#: Files in the package folders that only the repository's CI uses.
NOT_RUN_TIME = re.compile(r"tools/ci_[a-z_]+\.sh")


def _build(source: Path, out: Path, *only: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "build", *only, "--outdir", str(out), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _source_files() -> list[str]:
    """The package folders' files a wheel must carry: tracked by git (every file but
    caches when the tests do not run from a checkout), other than Python modules."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", *PACKAGES], capture_output=True, text=True
    )
    if listed.returncode == 0 and listed.stdout.strip():
        names = listed.stdout.split()
    else:
        names = [
            str(p.relative_to(ROOT))
            for package in PACKAGES
            for p in (ROOT / package).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        ]
    return sorted(n for n in names if not n.endswith(".py") and not NOT_RUN_TIME.fullmatch(n))


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` of this tree: the sdist, then the wheel built from the sdist."""
    out = tmp_path_factory.mktemp("dist")
    done = _build(ROOT, out)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment outside the repository with only the wheel installed
    (and its dependencies)."""
    folder = tmp_path_factory.mktemp("fresh") / "venv"
    assert ROOT not in folder.parents
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True, timeout=300)
    [wheel] = dist.glob("*.whl")
    subprocess.run(
        [str(folder / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        check=True,
        timeout=600,
    )
    return folder


def _outside(venv: Path) -> dict[str, str]:
    """An environment that cannot import the repository."""
    return {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(venv.parent), "LC_ALL": "C.UTF-8"}


def _expected_commit() -> str:
    commit = git_commit(ROOT)
    return "commit unknown" if commit is None else commit.text()


@pytest.mark.slow
def test_the_wheel_carries_every_run_time_file_and_the_entry_points(dist: Path) -> None:
    """Every non-Python file of the package folders (Rules Submissions, the console's
    static files, the install templates, anything a game package adds) is in the wheel;
    every entry point pyproject.toml declares (the etg command, the game registry) is in
    its metadata; the sdist carries the build backend and the commit file."""
    [wheel] = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        declared_text = archive.read(entry_points).decode()
        info = json.loads(archive.read("tools/build_info.json"))
    missing = [name for name in _source_files() if name not in names]
    assert missing == [], f"not in the wheel: {missing}"
    assert "tools/install_templates/etg-server.service" in names
    # `etg help install` prints the guide the units point to (a wheel has no docs/).
    with zipfile.ZipFile(wheel) as archive:
        guide = archive.read("tools/install_guide.md").decode()
    assert guide == (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert not (ROOT / "tools" / "install_guide.md").exists(), "the build left its copy behind"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    groups = {"console_scripts": project.get("scripts", {}), **project.get("entry-points", {})}
    for group, entries in groups.items():
        assert f"[{group}]" in declared_text, group
        for name, target in entries.items():
            assert re.search(rf"^{re.escape(name)} = {re.escape(target)}$", declared_text, re.M)
    commit = git_commit(ROOT)
    assert info["commit"] == (None if commit is None else commit.hash)
    [sdist] = dist.glob("*.tar.gz")
    listing = subprocess.run(["tar", "tzf", str(sdist)], capture_output=True, text=True).stdout
    assert "build_support/etg_build.py" in listing and "tools/build_info.json" in listing
    assert not (ROOT / "tools" / "build_info.json").exists(), "the build left its file behind"


@pytest.mark.slow
def test_a_tree_without_git_builds_a_wheel_whose_commit_is_unknown(tmp_path: Path) -> None:
    """The same sources without ``.git``: the wheel says its commit is unknown, never an
    invented one."""
    source = tmp_path / "src"
    shutil.copytree(
        ROOT,
        source,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "data"
        ),
    )
    (source / "tools" / "build_info.json").unlink(missing_ok=True)
    done = _build(source, tmp_path / "out", "--wheel")
    assert done.returncode == 0, done.stderr[-3000:]
    [wheel] = (tmp_path / "out").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert json.loads(archive.read("tools/build_info.json")) == {
            "commit": None,
            "modified": False,
        }


@pytest.mark.slow
def test_the_installed_wheel_names_its_commit_and_imports_nothing_from_the_repository(
    venv: Path, tmp_path: Path
) -> None:
    """``etg --version`` from the fresh environment names the version and this checkout's
    commit; the packages it runs are the installed ones."""
    env = _outside(venv)
    shown = subprocess.run(
        [str(venv / "bin" / "etg"), "--version"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    )
    assert shown.stdout.startswith("etg 0.1.0 (" + _expected_commit()), shown.stdout
    where = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import game_server, tools; print(game_server.__file__); print(tools.__file__)",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=True,
    ).stdout.split()
    assert all(Path(p).is_relative_to(venv) for p in where), where


@contextmanager
def _serving(venv: Path, folder: Path) -> Iterator[int]:
    """``etg serve`` of the fresh environment (its example Rules Submission, certificates
    made by its ``etg certs init``, an anchor stream) on an ephemeral port; stopped with
    SIGTERM, and it must exit 0."""
    env = _outside(venv)
    etg = str(venv / "bin" / "etg")
    subprocess.run(
        [etg, "certs", "init", "certs", "--terminals", "1"],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    command = [etg, "serve", "--db", "table.db", "--certs", "certs", "--port", "0"]
    process = subprocess.Popen(
        [*command, "--anchors", "anchors.jsonl"],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        yield listening_port(process)
    finally:
        stop(process)
    assert process.returncode == 0


@pytest.mark.slow
def test_etg_serve_from_the_wheel_runs_a_table_over_mutual_tls(venv: Path, tmp_path: Path) -> None:
    """The operator and T1 connect with the certificates the wheel's ``etg certs init``
    made; the table is open with the example Rules Submission; while it runs the wheel's
    ``etg backup`` proves a copy and ``etg status`` sees it; after a clean stop the wheel's
    ``etg verify`` proves the log against its anchors."""
    env = _outside(venv)
    etg = str(venv / "bin" / "etg")
    certs = tmp_path / "certs"
    with _serving(venv, tmp_path) as port:
        operator = AmpClient(port, certs, "operator")
        operator.call("Hello", version=PROTOCOL_VERSION, software="wheel test")
        operator.call("CashIn", request_id="in-1", terminal="T1", amount=5_000, reference="w")
        meters = json.loads(operator.call("ReadMeters")["meters"])
        assert (meters["table"], meters["state"]) == ("BJ-01", "open")
        t1 = AmpClient(port, certs, "T1")
        hello = t1.call("Hello", version=PROTOCOL_VERSION, software="wheel test")
        assert json.loads(hello["view"])["credits"] == 5_000
        for client in (operator, t1):
            client.close()
        backup = subprocess.run(
            [etg, "backup", "table.db", "backups", "--anchors", "anchors.jsonl", "--key", "certs"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        assert backup.returncode == 0, backup.stdout + backup.stderr
        where = ["--db", "table.db", "--anchors", "anchors.jsonl", "--backups", "backups"]
        status = subprocess.run(
            [etg, "status", "--server", f"127.0.0.1:{port}", "--certs", "certs", *where, "--json"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        assert status.returncode == 0, status.stdout + status.stderr
        items = {i["item"]: i for i in json.loads(status.stdout)["items"]}
        assert items["table"]["state"] == "open" and items["backup"]["verified"] is True
    verify = subprocess.run(
        [etg, "verify", "table.db", "--key", "certs", "--anchors", "anchors.jsonl"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "VERIFIED" in verify.stdout
