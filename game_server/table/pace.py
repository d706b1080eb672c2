"""When a betting window ends before its countdown runs out: once every player at the table
has placed his wagers, where the Rules Submission allows it (``[timers]
deal_when_all_bet``, :attr:`~game_server.config.Timers.deal_when_all_bet`). A lone player
who pressed DEAL no longer waits out the whole betting countdown.

The regulation asks only that the wagers be placed before the first card of the round is
dealt (58 Pa. Code 633b.5(k) at the hybrid tables, as at every table this build deals); it
sets no length for the betting window, so how it ends is the Rules Submission's to state.

A player is a terminal of the table that holds credits: one without credits cannot wager
and is not waited for; one with credits that has not wagered is (the countdown then deals
as it always did). The rule is pure (no clock): the machines that run the countdowns
(:class:`~game_server.table.stadium.StadiumMachine`, Blackjack's round machine) ask it after
each wager placed and deal at once when it holds.

Entry point: :func:`all_in`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable


def all_in(
    terminals: Iterable[str], wagered: Collection[str], balance: Callable[[str], int]
) -> bool:
    """Whether every player of ``terminals`` has wagered on the open round: each terminal
    in ``wagered`` or without credits (``balance``), and at least one wagered."""
    return bool(wagered) and all(t in wagered or balance(t) <= 0 for t in terminals)
