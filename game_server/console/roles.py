"""Who may see and do what in the operator's console.

Issue 21's roles: an **attendant** credits terminals in and cashes them out, and reopens a
table after a fault; a **supervisor** opens, closes and takes tables out of service, revokes
terminals and would change limits within the Rules Submission; an **investigator** only
reads: recall, the pictures of past games, verification of a log, reports. Every role sees
the floor (each table's state, round number, terminals' credits and meters): that is what
each of them works from.

Cards are not on the floor page. The round in play (the investigator's timeline, with the
players' cards as dealt; the dealer's hole card only once revealed) is shown to supervisors
and investigators, never to attendants; past games and their pictures to investigators only;
the meter reports to supervisors and investigators; each table's shoes, with their
commitments and (once retired) reveals, to supervisors and investigators (what a player
sees at the table, listed: ``docs/shoe-spec.md``). Separation of duties: a supervisor does
not move credits (an attendant does, and the supervisor sees it in the audit and the
report), and an investigator changes nothing.

Entry points: :class:`Role`, :class:`Permission`, :func:`may`, :data:`PERMISSIONS`.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Role(StrEnum):
    """A person's role in the console."""

    ATTENDANT = "attendant"
    SUPERVISOR = "supervisor"
    INVESTIGATOR = "investigator"


class Permission(StrEnum):
    """One thing the console lets a role see or do (the value is the sentence a refusal
    names)."""

    FLOOR = "see the floor"
    CASH = "credit a terminal or cash it out"
    REOPEN_AFTER_FAULT = "reopen a table after a fault"
    TABLE_STATE = "open, close or take a table out of service"
    REVOKE = "revoke or reinstate a terminal"
    LIMITS = "change a table's limits"
    ROUND_IN_PLAY = "see the round in play"
    RECALL = "recall past games and their pictures"
    VERIFY = "verify an event log"
    REPORTS = "read the meter reports"
    SHOES = "see the shoes' commitments and reveals"


PERMISSIONS: Final[dict[Role, frozenset[Permission]]] = {
    Role.ATTENDANT: frozenset({Permission.FLOOR, Permission.CASH, Permission.REOPEN_AFTER_FAULT}),
    Role.SUPERVISOR: frozenset(
        {
            Permission.FLOOR,
            Permission.TABLE_STATE,
            Permission.REOPEN_AFTER_FAULT,
            Permission.REVOKE,
            Permission.LIMITS,
            Permission.ROUND_IN_PLAY,
            Permission.REPORTS,
            Permission.SHOES,
        }
    ),
    Role.INVESTIGATOR: frozenset(
        {
            Permission.FLOOR,
            Permission.ROUND_IN_PLAY,
            Permission.RECALL,
            Permission.VERIFY,
            Permission.REPORTS,
            Permission.SHOES,
        }
    ),
}

#: Roles that sign in with a one-time code besides the password (issue 21).
SECOND_FACTOR: Final = frozenset({Role.SUPERVISOR})


def may(role: Role, permission: Permission) -> bool:
    """Whether ``role`` has ``permission``."""
    return permission in PERMISSIONS[role]
