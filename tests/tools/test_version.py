"""``etg --version``: the version and the commit the running code was built from
(:mod:`tools.version`), in a checkout (git asked now) and in a built package (the file the
build backend wrote)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from tools.cli import main
from tools.version import BUILD_INFO, Commit, build_commit, build_info_text, git_commit

ROOT = Path(__file__).resolve().parents[2]


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A git repository with one commit of ``tools/x.py``."""
    folder = tmp_path / "repo"
    (folder / "tools").mkdir(parents=True)
    (folder / "tools" / "x.py").write_text("x = 1\n")
    _git(folder, "init", "-q")
    _git(folder, "add", ".")
    _git(folder, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    return folder


def test_a_checkout_names_its_commit_and_its_changes(repo: Path) -> None:
    """git's HEAD, unmodified; a changed tracked file says so; an untracked file does not."""
    head = _git(repo, "rev-parse", "HEAD")
    assert git_commit(repo) == Commit(head, modified=False, source="git")
    (repo / "tools" / "new.py").write_text("")
    assert git_commit(repo) == Commit(head, modified=False, source="git")
    (repo / "tools" / "x.py").write_text("x = 2\n")
    assert git_commit(repo) == Commit(head, modified=True, source="git")
    assert build_commit(repo / "tools").text() == f"commit {head}, with uncommitted changes"


def test_only_the_folder_itself_is_asked_not_a_repository_around_it(repo: Path) -> None:
    """A package inside another checkout (a virtual environment in a repository) is not
    that checkout's code: without its own build file its commit is unknown."""
    package = repo / "venv" / "site-packages" / "tools"
    package.mkdir(parents=True)
    assert git_commit(package.parent) is None
    assert build_commit(package) == Commit(None)
    assert build_commit(package).text() == "commit unknown: built from a tree without git"


def test_a_built_package_names_the_commit_written_into_it(tmp_path: Path) -> None:
    """The build file's commit; a file without one (a tree without git) says unknown; a
    damaged file is unknown, never an invented commit."""
    package = tmp_path / "site-packages" / "tools"
    package.mkdir(parents=True)
    info = package / BUILD_INFO
    commit = Commit("ab" * 20, modified=True)
    info.write_text(build_info_text(commit))
    assert build_commit(package) == Commit("ab" * 20, modified=True, source="build")
    info.write_text(build_info_text(None))
    assert json.loads(info.read_text()) == {"commit": None, "modified": False}
    assert build_commit(package) == Commit(None, source="build")
    for damaged in ("not json", '{"commit": "abc"}', "[1]"):
        info.write_text(damaged)
        assert build_commit(package) == Commit(None)


def test_version_names_the_package_and_this_checkout_commit() -> None:
    """``etg --version`` prints the installed version and, run from this checkout, its
    commit (``git rev-parse HEAD``)."""
    from importlib.metadata import version

    shown = CliRunner().invoke(main, ["--version"])
    assert shown.exit_code == 0
    head = git_commit(ROOT)
    if head is None:
        pytest.skip("the tests do not run from a git checkout")
    assert shown.output.startswith(f"etg {version('etg')} (commit {head.hash}")
