"""The console's floor page says "none" for a table without alarms in the page's ink, and
an alarm in the alarm colour (it showed "Alarms: none" in red). The live updates keep it so:
the cell names the text that says nothing is wrong (``data-quiet``) and console.js toggles
its ``quiet`` class on every update."""

from __future__ import annotations

from pathlib import Path

from game_server.console.floorview import ServerView, TableView
from game_server.console.pages import Viewer, floor_page
from game_server.console.roles import Role


def _table(alarms: tuple[str, ...]) -> TableView:
    return TableView("pit-1", "BJ-01", None, "open", "", None, None, {}, (), alarms)


def _page(alarms: tuple[str, ...]) -> str:
    viewer = Viewer("ann", Role.ATTENDANT, "token")
    return str(floor_page(viewer, [ServerView("pit-1", True, None, (_table(alarms),))], "x"))


def test_no_alarm_is_quiet_and_an_alarm_is_not() -> None:
    """'none' carries the quiet class the stylesheet draws in ink; an alarm does not."""
    quiet = _page(())
    assert 'data-live="pit-1|BJ-01|alarms" data-quiet="none" class="quiet">none<' in quiet
    loud = _page(("lock: the log's lock is lost",))
    assert 'data-quiet="none">lock: the log' in loud
    assert 'class="quiet">lock' not in loud


def test_the_stylesheet_and_the_live_updates_keep_none_out_of_the_alarm_colour() -> None:
    """The stylesheet draws a quiet alarms cell in ink; console.js toggles the class as the
    value changes."""
    static = Path(__file__).resolve().parents[2] / "game_server" / "console" / "static"
    css = (static / "console.css").read_text()
    assert "td.alarms .quiet" in css and "color: var(--ink)" in css
    js = (static / "console.js").read_text()
    assert 'classList.toggle("quiet", value === element.dataset.quiet)' in js
