"""Issue 39, "Sizes": no platform file over 800 lines and no platform function over 80 lines,
but those named in :data:`ALLOWED` with the reason their split would name no step.

The platform is every module outside a game package (:func:`tools.sizes.is_platform`). List
the long ones with ``python -m tools.sizes``.
"""

from __future__ import annotations

from pathlib import Path

from tools.sizes import MAX_FILE_LINES, MAX_FUNCTION_LINES, is_platform, long_ones

#: Each long platform file or function that remains (``path`` or ``path::qualified.name``),
#: with why it is still whole. Remove a line when its split lands; a new entry needs a reason.
#: "Family code" is code of a game family that issue 39 moves out of the platform (its split
#: belongs with that move).
ALLOWED: dict[str, str] = {
    "terminal_client/render/table.py::draw_table": (
        "family code (the Blackjack felt line and totals): it splits as it moves to the "
        "twenty-one family (issue 39)"
    ),
    "game_server/rules/wagers/five_card_bonus.py::settle_five_card": (
        "family code (a poker side wager): it splits as it moves to the poker family"
    ),
    "game_server/rules/wagers/five_card_bonus.py::five_card_return": (
        "family code (a poker side wager): it splits as it moves to the poker family"
    ),
    "game_server/rules/poker.py::_read": (
        "one table of categories per scheme (3, 4, 5 cards) over shared counts, on the sims' "
        "hot path: a split per scheme would pass the counts through calls"
    ),
}


def test_no_platform_file_or_function_grows_past_the_limit() -> None:
    """A platform file over 800 lines or a function over 80 fails here, unless allowed."""
    found = {item.key: item.lines for item in long_ones()}
    new = sorted(f"{key} ({lines} lines)" for key, lines in found.items() if key not in ALLOWED)
    assert new == [], (
        f"platform files over {MAX_FILE_LINES} lines or functions over {MAX_FUNCTION_LINES}: "
        "split each into named steps, or add it to ALLOWED with the reason it stays whole"
    )


def test_every_allowed_one_is_still_long() -> None:
    """An entry of :data:`ALLOWED` that is short now (split or gone) is removed."""
    found = {item.key for item in long_ones()}
    stale = sorted(key for key in ALLOWED if key not in found)
    assert stale == [], "no longer long: remove them from ALLOWED"


def test_every_allowed_one_says_why() -> None:
    assert all(reason.strip() for reason in ALLOWED.values())


def test_the_check_finds_a_new_long_file_and_function(tmp_path: Path) -> None:
    """The check itself: a new platform module with a long function and too many lines."""
    module = tmp_path / "game_server" / "grown.py"
    module.parent.mkdir()
    body = "".join(f"        x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    padding = "\n" * MAX_FILE_LINES
    module.write_text(f"class A:\n    def long(self):\n{body}\n{padding}", encoding="utf-8")
    found = {item.key: item.lines for item in long_ones(root=tmp_path)}
    assert found == {
        "game_server/grown.py": MAX_FUNCTION_LINES + 3 + MAX_FILE_LINES,
        "game_server/grown.py::A.long": MAX_FUNCTION_LINES + 1,
    }


def test_a_game_package_is_not_platform() -> None:
    assert not is_platform(Path("game_server/games/uth/game.py"))
    assert not is_platform(Path("terminal_client/games/uth.py"))
    assert is_platform(Path("game_server/games/api.py"))
    assert is_platform(Path("game_server/net/server.py"))
