"""The platform's long files and long functions (issue 39, "Sizes").

The platform is every module outside a game package: ``game_server/`` but for
``game_server/games/<game>/``, ``shared/``, ``tools/`` and ``terminal_client/`` but for its
per-game modules (``terminal_client/games/``). A file is long over :data:`MAX_FILE_LINES`
lines, a function (or method) over :data:`MAX_FUNCTION_LINES`, counted from its ``def`` line
(decorators excluded) to its last line.

Run ``python -m tools.sizes`` to list them; ``tests/test_sizes.py`` holds the allowlist.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final, NamedTuple

ROOT: Final = Path(__file__).resolve().parent.parent
MAX_FILE_LINES: Final = 800
MAX_FUNCTION_LINES: Final = 80
PLATFORM: Final = ("game_server", "shared", "tools", "terminal_client")


class Long(NamedTuple):
    """One long file (``name`` empty) or function (``name`` its qualified name)."""

    path: str
    name: str
    lines: int

    @property
    def key(self) -> str:
        return f"{self.path}::{self.name}" if self.name else self.path


def is_platform(rel: Path) -> bool:
    """``rel`` (relative to the repository) is a platform module, not a game's."""
    parts = rel.parts
    if parts[0] not in PLATFORM:
        return False
    if parts[:2] == ("game_server", "games") and len(parts) > 3:
        return False
    return parts[:2] != ("terminal_client", "games")


def platform_files(root: Path = ROOT) -> list[Path]:
    """Every platform ``.py`` file under ``root``, sorted."""
    found: list[Path] = []
    for top in PLATFORM:
        for path in sorted((root / top).rglob("*.py")):
            if is_platform(path.relative_to(root)):
                found.append(path)
    return found


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.AST]]:
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            name = f"{prefix}{node.name}"
            yield name, node
            yield from _functions(node, f"{name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def long_ones(
    files: list[Path] | None = None,
    root: Path = ROOT,
    max_file: int = MAX_FILE_LINES,
    max_function: int = MAX_FUNCTION_LINES,
) -> list[Long]:
    """The long files and functions among ``files`` (the platform's by default)."""
    found: list[Long] = []
    for path in platform_files(root) if files is None else files:
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        count = len(text.splitlines())
        if count > max_file:
            found.append(Long(rel, "", count))
        for name, node in _functions(ast.parse(text, filename=rel)):
            end = getattr(node, "end_lineno", None) or 0
            length = end - getattr(node, "lineno", 0) + 1
            if length > max_function:
                found.append(Long(rel, name, length))
    return found


def main() -> int:
    found = long_ones()
    for item in sorted(found, key=lambda item: (item.name != "", -item.lines)):
        print(f"{item.lines:5d}  {item.key}")
    print(
        f"{sum(1 for i in found if not i.name)} files > {MAX_FILE_LINES} lines, "
        f"{sum(1 for i in found if i.name)} functions > {MAX_FUNCTION_LINES} lines"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
