"""The import rule of docs/design.md "Layout and the import rule", enforced.

Imports flow one way: ``shared`` <- ``game_server.rules`` <- rest of ``game_server`` <- ``tools``;
``shared`` <- ``terminal_client``. The pure core never imports I/O, clocks or randomness.
Each check runs in a fresh interpreter so that modules other tests loaded do not hide a leak.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_PURE = ("twisted", "sqlite3", "pygame", "random", "secrets", "time")


def _modules_loaded_by(module: str) -> set[str]:
    """Modules that importing ``module`` adds to those a bare interpreter has at start-up."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        f"import {module}\n"
        "print('\\n'.join(sorted(set(sys.modules) - before)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


def _game_rules(games: Path) -> list[Path]:
    """A games folder's pure rules: each game's ``rules/`` package or ``rules.py`` module
    (docs/adding-a-game.md allows either)."""
    found: list[Path] = []
    for rules in sorted(games.glob("*/rules")):
        found += sorted(rules.rglob("*.py"))
    found += sorted(games.glob("*/rules.py"))
    return found


def _pure_files() -> list[Path]:
    """Every module of the pure core: game_server/rules/ and each game's rules."""
    return sorted((ROOT / "game_server" / "rules").rglob("*.py")) + _game_rules(
        ROOT / "game_server" / "games"
    )


def _test_games_rules() -> list[Path]:
    """The rules of the games the tests register (High Card): the same contract."""
    return _game_rules(ROOT / "tests" / "games")


def _pure_packages() -> list[str]:
    modules = ["shared.cards", "shared.money", "shared.codec", "game_server.rules"]
    for path in _pure_files():
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules.append(".".join(parts))
    return sorted(set(modules))


@pytest.mark.parametrize("module", _pure_packages())
def test_pure_core_imports_no_io_clock_or_randomness(module: str) -> None:
    """Importing the rules engine, cards or money never imports twisted, sqlite3, pygame,
    random, secrets or time (docs/design.md: no I/O, no clock, no randomness in rules/)."""
    loaded = _modules_loaded_by(module)
    leaked = sorted(name for name in loaded if name.split(".")[0] in FORBIDDEN_IN_PURE)
    assert leaked == [], f"{module} pulls in {leaked}"


def test_pure_core_source_never_names_io_clock_or_randomness() -> None:
    """No file of the pure core imports those modules directly, even ones (like time) that
    the interpreter has already loaded at start-up and the check above cannot see: every
    game's rules, a ``rules/`` package or a ``rules.py`` module, the tests' games too."""
    bad = [
        f"{path.relative_to(ROOT)} imports {m}"
        for path in _pure_files() + _test_games_rules()
        for m in _imports_of(path)
        if m.split(".")[0] in FORBIDDEN_IN_PURE
    ]
    for name in ("cards", "money", "codec", "errors"):
        path = ROOT / "shared" / f"{name}.py"
        bad += [
            f"{path.name} imports {m}"
            for m in _imports_of(path)
            if m.split(".")[0] in FORBIDDEN_IN_PURE
        ]
    assert bad == []


def _imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _violations(
    package: str, forbidden: tuple[str, ...], allow: frozenset[str] = frozenset()
) -> list[str]:
    bad = []
    for path in _files(package):
        rel = str(path.relative_to(ROOT))
        if rel in allow:
            continue
        for name in _imports_of(path):
            if name.split(".")[0] in forbidden or any(
                name == f or name.startswith(f + ".") for f in forbidden
            ):
                bad.append(f"{rel} imports {name}")
    return bad


def test_shared_imports_no_server_terminal_pygame_or_sqlite() -> None:
    """shared/ is imported by both sides: it never imports game_server, terminal_client,
    tools, pygame or sqlite3, and only its protocol module imports Twisted."""
    forbidden = ("game_server", "terminal_client", "tools", "pygame", "sqlite3")
    assert _violations("shared", forbidden) == []
    assert _violations("shared", ("twisted",), allow=frozenset({"shared/protocol.py"})) == []


def test_rules_import_only_shared_and_rules() -> None:
    """game_server.rules imports nothing of the rest of game_server, the terminal or tools."""
    forbidden = (
        "game_server.rng",
        "game_server.table",
        "game_server.net",
        "game_server.eventlog",
        "game_server.recall",
        "game_server.config",
        "terminal_client",
        "tools",
    )
    assert _violations("game_server/rules", forbidden) == []


def test_game_server_never_imports_terminal_or_tools() -> None:
    """The server does not depend on the terminal or on the operator tools."""
    assert _violations("game_server", ("terminal_client", "tools")) == []


def test_terminal_never_imports_game_server() -> None:
    """The terminal sees only shared/ (recall pictures reach its renderers through tools/)."""
    assert _violations("terminal_client", ("game_server", "tools")) == []


def test_no_global_random_module_in_server() -> None:
    """Outcomes come only from the certified DRBG: the random module is not used in the
    server at all, and secrets only in the entropy source."""
    assert _violations("game_server", ("random",)) == []


# --------------------------------------------------------------------------- games are packages
# docs/design.md "Games are packages": a game is a package (game_server/games/<g>/ and
# terminal_client/games/<g>/) and the platform knows it only through the registry.

#: Where the platform lives: every module outside the games' own packages.
PLATFORM = ("game_server", "terminal_client", "tools", "shared")
#: The shared wager library names the wagers the Blackjack-family tables' side wagers
#: require (the Blackjack wager) and the family of the hybrid tables' side wagers (633b.5(m),
#: (x)): wager names that happen to be game names, not a game.
SHARED_WAGERS = "game_server/rules/wagers/"


#: Where a game's packages live: its server half, its terminal half, and what both read
#: (``shared/games/<g>/``: its published strategies).
GAME_SIDES = ("game_server", "terminal_client", "shared")


def _game_packages() -> set[Path]:
    return {
        path
        for side in GAME_SIDES
        for path in (ROOT / side / "games").iterdir()
        if path.is_dir() and (path / "__init__.py").exists()
    }


def _game_names() -> set[str]:
    """Every registered game's name and ``[table] game``, and every game package's name."""
    from game_server import games

    names = {game.name for game in games.games()} | set(games.config_games())
    return names | {path.name for path in _game_packages()}


def _platform_files() -> list[Path]:
    packages = _game_packages()
    return [
        path
        for side in PLATFORM
        for path in sorted((ROOT / side).rglob("*.py"))
        if not any(package in path.parents for package in packages)
    ]


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def test_the_platform_imports_no_game_package() -> None:
    """Outside game_server/games/<g>/ and terminal_client/games/<g>/ no module imports a game
    package (nor names one for importlib): the platform reaches a game through the registry
    (game_server.games, terminal_client.games) only."""
    names = _game_names()
    prefixes = tuple(f"{side}.games.{name}" for side in GAME_SIDES for name in names)
    bad = []
    for path in _platform_files():
        rel = path.relative_to(ROOT)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for module in _imports_of(path):
            if module.startswith(prefixes):
                bad.append(f"{rel} imports {module}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
            ) and any(prefix in node.value for prefix in prefixes):
                bad.append(f"{rel}:{node.lineno} names the module {node.value!r}")
    assert bad == []


def test_the_platform_names_no_game() -> None:
    """No platform module has a string that is a game's name or ``[table] game``: what it
    needs of a game it asks the game (the shared wager library names wagers, some of which
    are called like a game)."""
    names = _game_names()
    bad = []
    for path in _platform_files():
        rel = path.relative_to(ROOT)
        if str(rel).startswith(SHARED_WAGERS):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in names and id(node) not in docs:
                bad.append(f"{rel}:{node.lineno} {node.value!r}")
    assert bad == []


#: Display strings of the platform that still name a game, each with why it stays: the test
#: below fails on any other (a new one, or one of these moved to another file). Keyed by file
#: and the string's start, not its line, so that edits around them do not break the list.
NAMED_IN_DISPLAY: Final = {
    ("game_server/config_sections.py", "a hybrid table"): "the regulation's name of a table "
    "type, 633b.5",
    ("game_server/rules/returns.py", "Cash bonus: Blackjack"): "a Buster Blackjack paytable "
    "line (633b.11); moves with the side wagers into the twenty-one family",
    ("terminal_client/render/table.py", "BLACKJACK PAYS 3 TO 2"): "the felt line of the "
    "twenty-one tables; moves with the terminal's Blackjack code into the family",
    ("terminal_client/screens/status.py", "BLACKJACK"): "the twenty-one result banner and "
    "felt line; move with the terminal's Blackjack code into the family",
    ("terminal_client/screens/scene.py", "Three Card Poker"): "the hybrid tables' side "
    "wager titles (633b.5(m)); wager titles are to be each game's",
    ("terminal_client/screens/scene.py", "Blackjack Match"): "a 633b side wager's title; "
    "wager titles are to be each game's",
    ("terminal_client/screens/scene.py", "Buster Blackjack"): "a 633b side wager's title; "
    "wager titles are to be each game's",
    ("terminal_client/render/layout.py", "BLACKJACK MATCH"): "a 633b side wager's circle "
    "label; moves with the side wagers into the twenty-one family",
    ("terminal_client/render/layout.py", "BUSTER BLACKJACK"): "a 633b side wager's circle "
    "label; moves with the side wagers into the twenty-one family",
}


def _display_pattern() -> re.Pattern[str]:
    """Every game's name, ``[table] game`` and title as a word, in any case (an underscore
    joins words: ``lucky_aces`` is not a game)."""
    from game_server import games

    words = _game_names() | {game.title for game in games.games()}
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?i)(?<![\w/.])({alternatives})(?![\w/.])")


def _documentation(tree: ast.AST) -> set[int]:
    """The string nodes that document rather than display: docstrings and bare string
    statements (an attribute's docstring)."""
    found = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            found.add(id(node.value))
    return found


def test_the_platform_shows_no_game_name() -> None:
    """No string the platform shows (an error, a help text, a screen's text, a report line)
    names a game, in any case and inside longer text: what a screen or a message says of a
    game comes from the game (its title, its wager titles, its lines). The few that remain
    are listed in NAMED_IN_DISPLAY with why."""
    pattern = _display_pattern()
    bad = []
    for path in _platform_files():
        rel = str(path.relative_to(ROOT))
        if rel.startswith(SHARED_WAGERS):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        documentation = _documentation(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            if id(node) in documentation or not pattern.search(node.value):
                continue
            if not any(rel == f and node.value.startswith(s) for f, s in NAMED_IN_DISPLAY):
                bad.append(f"{rel}:{node.lineno} {node.value[:60]!r}")
    assert bad == [], "ask the game for what it shows, or list it in NAMED_IN_DISPLAY with why"


def test_the_display_pattern_finds_a_name_inside_text_in_any_case() -> None:
    """The check can fail: a help text naming a game in capitals inside a sentence is found;
    a wager name with an underscore, a module path and a file name are not."""
    pattern = _display_pattern()
    assert pattern.search("BLACKJACK PAYS 3 TO 2")
    assert pattern.search("the Ante at an Ultimate Texas Hold 'Em table")
    assert pattern.search("Spanish 21 tables only")
    assert not pattern.search("lucky_aces") and not pattern.search("games/uth/configs")
    assert not pattern.search("uth.toml")


@pytest.mark.parametrize("pattern", ['"uth"', "UthSession", "HybridSession", "config.uth"])
def test_no_file_of_the_platform_branches_on_the_first_games(pattern: str) -> None:
    """The lead's check, on every file of the platform (code, configs, data) outside the
    games' packages: none of the ways the code used to branch on a game is left."""
    packages = _game_packages()
    bad = [
        str(path.relative_to(ROOT))
        for side in PLATFORM
        for path in sorted((ROOT / side).rglob("*"))
        if path.is_file()
        and path.suffix not in (".pyc", ".png", ".wav", ".ogg", ".ttf", ".otf")
        and not any(package in path.parents for package in packages)
        and pattern in path.read_text(encoding="utf-8", errors="replace")
    ]
    assert bad == []


def test_each_games_rules_import_only_shared_rules_and_rules() -> None:
    """A game's pure rules (game_server/games/<g>/rules, or a rules.py module; the tests'
    games too) import what game_server.rules may, and of the games only pure rules (a game
    built on another uses the other's rules)."""
    forbidden = (
        "game_server.rng",
        "game_server.table",
        "game_server.net",
        "game_server.eventlog",
        "game_server.recall",
        "game_server.config",
        "terminal_client",
        "tools",
    )
    bad = []
    for path in _game_rules(ROOT / "game_server" / "games") + _test_games_rules():
        for module in _imports_of(path):
            if any(module == f or module.startswith(f + ".") for f in forbidden):
                bad.append(f"{path.relative_to(ROOT)} imports {module}")
            parts = module.split(".")
            if parts[:2] == ["game_server", "games"] and parts[3:4] != ["rules"]:
                bad.append(f"{path.relative_to(ROOT)} imports {module}")
    assert bad == []


REGISTRY = "game_server.games"


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _module_level_imports(path: Path, module: str, known: set[str]) -> set[str]:
    """The modules ``module`` imports at its top level, those under ``if TYPE_CHECKING:``
    included (a type-only import is an edge for mypy and for a reader), each with the
    packages it lives in (importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__``).
    Imports inside functions are lookups at call time: they make no circle at import."""

    def known_prefix(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parent = package[: len(package) - (node.level - 1)]
                    base = ".".join([*parent, base] if base else parent)
                names = [f"{base}.{alias.name}" for alias in node.names]
            else:
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    visit(_inner_statements(node))
                continue
            for name in names:
                target = known_prefix(name)
                while target:
                    if target != module and not module.startswith(f"{target}."):
                        found.add(target)
                    target = known_prefix(target.rpartition(".")[0])

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return found


def _inner_statements(node: ast.stmt) -> list[ast.stmt]:
    """The statements a compound statement runs in its own scope: its bodies and handlers."""
    inner: list[ast.stmt] = []
    for field in ("body", "orelse", "finalbody"):
        inner += [n for n in getattr(node, field, []) if isinstance(n, ast.stmt)]
    for handler in getattr(node, "handlers", []):
        inner += handler.body
    return inner


def _import_graph(root: Path) -> dict[str, set[str]]:
    files = {
        _module_name(root, path): path
        for top in ("game_server", "shared", "tools", "terminal_client")
        for path in sorted((root / top).rglob("*.py"))
    }
    known = set(files)
    return {module: _module_level_imports(path, module, known) for module, path in files.items()}


def _circle_through(graph: dict[str, set[str]], start: str) -> list[str]:
    """A shortest circle of imports from ``start`` back to it ([] when there is none)."""
    paths: dict[str, list[str]] = {start: [start]}
    queue = [start]
    while queue:
        module = queue.pop(0)
        for imported in sorted(graph.get(module, ())):
            if imported == start:
                return [*paths[module], start]
            if imported not in paths:
                paths[imported] = [*paths[module], imported]
                queue.append(imported)
    return []


@pytest.mark.parametrize(
    "start",
    [REGISTRY, f"{REGISTRY}.api", "terminal_client.games", "terminal_client.games.api"],
)
def test_no_import_circle_through_a_game_registry_or_contract(start: str) -> None:
    """Issue 39: each side's registry and contract low in the house. No module they import,
    at its top level or for types, leads back to them. On the server the platform's modules
    that look games up (config, recall, sim, the table's ledger) do it at call time; on the
    terminal the model names only what it reads of a game (``ModelGame``), the screens look
    the registry up at call time (``games.of(model)``), and the contract's types (the model,
    the layout, the screen) name no part of it."""
    circle = _circle_through(_import_graph(ROOT), start)
    assert circle == [], " -> ".join(circle)


def test_the_circle_check_finds_a_circle(tmp_path: Path) -> None:
    """The check itself: a registry whose contract names a module that imports it."""
    games = tmp_path / "game_server" / "games"
    games.mkdir(parents=True)
    (tmp_path / "game_server" / "__init__.py").write_text("", encoding="utf-8")
    (games / "__init__.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from game_server.games.api import Game\n",
        encoding="utf-8",
    )
    (games / "api.py").write_text("from game_server.config import TableConfig\n", "utf-8")
    (tmp_path / "game_server" / "config.py").write_text(
        "from game_server import games\n\ndef later():\n    from game_server import sim\n",
        encoding="utf-8",
    )
    circle = _circle_through(_import_graph(tmp_path), REGISTRY)
    assert circle == [REGISTRY, "game_server.games.api", "game_server.config", REGISTRY]
