"""The design the code cites is in the project: every ``docs/design.md "Section"`` named in
the code or the docs is a heading of ``docs/design.md``, nothing cites the team's old design
file (which a clone does not have), and the README's layout map names every package."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DESIGN = ROOT / "docs" / "design.md"
#: Where citations live: the product, its tests and its documents.
FOLDERS = ("shared", "game_server", "terminal_client", "tools", "tests", "docs", "build_support")
SUFFIXES = (".py", ".md", ".toml", ".txt", ".sh")
#: A citation of one section or more: docs/design.md "One", "Two".
CITATION = re.compile(r'docs/design\.md "([^"]+)"((?:, "[^"]+")*)')
#: The old file's name, upper case (spelled apart so that this file does not cite it).
OLD_NAME = re.compile("DESIGN" + r"\.md")


def _files() -> list[Path]:
    found = [path for path in ROOT.glob("*") if path.suffix in (".md", ".toml")]
    for folder in FOLDERS:
        found += [path for path in (ROOT / folder).rglob("*") if path.suffix in SUFFIXES]
    here = Path(__file__).resolve()
    return sorted(path for path in found if path.is_file() and path.resolve() != here)


def _flat(text: str) -> str:
    """``text`` with each line break (and a comment's ``#`` after it) made one space, so that
    a citation wrapped over two lines reads as one."""
    return re.sub(r"\s*\n\s*(?:#\s*)?", " ", text)


def _headings() -> set[str]:
    return {
        line.lstrip("#").strip()
        for line in DESIGN.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }


def _cited() -> list[tuple[str, str]]:
    cited = []
    for path in _files():
        text = _flat(path.read_text(encoding="utf-8", errors="replace"))
        for found in CITATION.finditer(text):
            sections = [found.group(1), *re.findall(r'"([^"]+)"', found.group(2))]
            cited += [(str(path.relative_to(ROOT)), section) for section in sections]
    return cited


def test_every_cited_section_is_a_heading_of_the_design() -> None:
    headings = _headings()
    cited = _cited()
    assert cited, "no citation of docs/design.md found: the pattern no longer matches"
    missing = sorted(
        {f"{where}: {section!r}" for where, section in cited if section not in headings}
    )
    assert missing == [], "sections cited that docs/design.md does not have"


def test_nothing_cites_the_old_design_file() -> None:
    old = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in _files()
        for number, line in enumerate(
            path.read_text(encoding="utf-8", errors="replace").split("\n"), 1
        )
        if OLD_NAME.search(line)
    ]
    assert old == [], "cite docs/design.md instead"


def test_the_readme_points_to_the_design() -> None:
    points = "docs/design.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert points, "the README's layout section links docs/design.md"


def _readme_map() -> set[str]:
    """The folders the README's layout map names, as paths (two spaces a level)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout\n", 1)[1].split("```\n", 2)[1]
    found: set[str] = set()
    parents: list[str] = []
    for line in block.splitlines():
        depth = (len(line) - len(line.lstrip(" "))) // 2
        name = line.split()[0]
        parents = [*parents[:depth], name.rstrip("/")]
        if name.endswith("/"):
            found.add("/".join(parents))
    return found


def test_the_readme_maps_every_package() -> None:
    """Every top-level package and its subpackages (each server game, not the folders inside
    it; the terminal's games as one line) is in the README's layout map, and every folder
    the map names exists: a new package is added to the map."""
    named = _readme_map()
    packages = set()
    for top in ("shared", "game_server", "terminal_client", "tools"):
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT).parts
            inside_a_game = parts[1:2] == ("games",) and len(parts) > (
                3 if top == "game_server" else 2
            )
            if not inside_a_game:
                packages.add("/".join(parts))
    assert sorted(packages - named) == [], "packages the README's layout map does not name"
    assert sorted(p for p in named if not (ROOT / p).is_dir()) == [], "named but not there"
