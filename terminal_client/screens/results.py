"""What a results panel says, in a player's words: for each settled wager its name, WON /
LOST / PUSH, what it won or lost net of its stake, and the reason in plain words where the
outcome does not say it all ("Blackjack pays 3 to 2", "Dealer over 21", "Flush pays 3 to
2"). The settlement's paytable line is the regulation's wording with the section it cites
(``"Win 1 to 1: dealer over 21 (633b.5(t)(1)(i))"``): the citation belongs to recall and
investigators, and is left out here, as are the words that only repeat the outcome.

Entry points: :func:`plain_detail`, :func:`net_text`, :func:`headline`; the panel is drawn
by :func:`terminal_client.render.results.draw_results_panel`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from shared.money import format_money

#: A section of 58 Pa. Code as the lines cite it ("633b.5(t)(1)(i)", "653a.12").
_SECTION: Final = re.compile(r"\d{3}[a-z]?\.\d+")
#: Odds in a line ("3 to 2", "50 for 1").
_ODDS: Final = re.compile(r"\b\d+ (?:to|for) \d+\b")
#: Words that only say again what the outcome word says.
_SAID: Final = frozenset({"win", "win 1 to 1", "won", "loss", "lose", "lost", "push", "no win"})
#: Words said better for a player.
_PLAIN: Final = {"fold": "Folded", "bust": "Bust"}
#: "Blind Paytable A", "Buzzer Beater loses", "Ante pushes": the wager naming itself.
_SELF: Final = (re.compile(r"\bpaytable [a-z0-9]+$", re.I), re.compile(r" (loses|pushes)$"))

#: Outcome words, as the server names outcomes.
OUTCOMES: Final = {
    "win": "WON",
    "won": "WON",
    "lose": "LOST",
    "lost": "LOST",
    "loss": "LOST",
    "push": "PUSH",
    "pushed": "PUSH",
    "surrender": "SURRENDERED",
    "surrendered": "SURRENDERED",
}


def outcome_word(outcome: str) -> str:
    """``"won" -> "WON"``; an outcome this terminal does not know, upper-cased."""
    return OUTCOMES.get(outcome.lower(), outcome.upper())


def strip_citations(text: str) -> str:
    """``text`` without the parenthesised groups that cite a section (nested parentheses
    included): ``"Bust (633b.5(aa)(3))" -> "Bust"``; other parentheses stay (``"Pair (2x king
    of diamonds)"``)."""
    groups: list[tuple[int, int]] = []
    depth = 0
    start = 0
    for i, char in enumerate(text):
        if char == "(":
            if depth == 0:
                start = i
            depth += 1
        elif char == ")" and depth:
            depth -= 1
            if depth == 0:
                groups.append((start, i + 1))
    for begin, end in reversed(groups):
        if _SECTION.search(text[begin:end]):
            text = text[:begin].rstrip() + text[end:]
    return text.strip()


def plain_detail(line: str, titles: Iterable[str] = ()) -> str:
    """The reason a wager won or lost, in plain words, or ``""`` when the outcome says it
    all: citations left out, and the parts of the line (``"a: b: c"``) that repeat the
    outcome (``"Win 1 to 1"``, ``"Push"``), name the paytable (``"Blind Paytable A"``) or
    the wager itself (one of ``titles``, e.g. ``"Progressive Payout"``); odds read "pays":
    ``"Blind Paytable A: Flush 3 to 2 (653a.12(b))" -> "Flush pays 3 to 2"``."""
    names = sorted({t.casefold() for t in titles}, key=len, reverse=True)
    kept = []
    for part in strip_citations(line).split(": "):
        # A clause that argues from a section ("wins under 633b.5(u)(1) but ...") is left
        # to recall too.
        part = "; ".join(c for c in part.split("; ") if not _SECTION.search(c))
        part = part.strip().strip(".")
        folded = part.casefold()
        if not part or folded in _SAID or folded in names:
            continue
        if any(pattern.search(part) for pattern in _SELF):
            continue
        for name in names:
            if folded.startswith(name + " ") and _ODDS.search(part):
                part = part[len(name) + 1 :]
                break
        kept.append(_PLAIN.get(part.casefold(), part))
    text = ", ".join(kept)
    if text.casefold().endswith(", push"):
        text = text[: -len(", push")]
    odds = _ODDS.search(text)
    if odds and "pays" not in text:
        text = f"{text[: odds.start()]}pays {text[odds.start() :]}"
    return text[:1].upper() + text[1:]


def net_text(cents: int) -> str:
    """What a wager won or lost net of its stake: ``"+$5.00"``, ``"\u2212$5.00"``,
    ``"$0.00"``."""
    if cents > 0:
        return f"+{format_money(cents)}"
    if cents < 0:
        return f"\u2212{format_money(-cents)}"
    return format_money(0)


def headline(nets: Iterable[int], any_wager: bool) -> str:
    """The round's result for this terminal: ``"YOU WIN $31.00"``, ``"YOU LOSE $6.00"``,
    ``"PUSH"`` (its wagers net nothing), or ``"NO WAGERS THIS ROUND"``."""
    net = sum(nets)
    if net > 0:
        return f"YOU WIN {format_money(net)}"
    if net < 0:
        return f"YOU LOSE {format_money(-net)}"
    return "PUSH" if any_wager else "NO WAGERS THIS ROUND"
