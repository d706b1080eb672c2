"""The pure model of what this terminal knows, updated only from server messages.

No pygame and no Twisted here: the network client (:mod:`terminal_client.net`) feeds it,
the screens read it. Entry points: :class:`TerminalModel`, :func:`hand_total`; each game
reads its own views (:mod:`terminal_client.games`) into the common :class:`View` and what its
screens draw.
"""

from terminal_client.model.documents import (
    Recall,
    RecalledGame,
    RecalledResult,
    Rules,
    WagerRules,
    parse_recall,
    parse_rules,
)
from terminal_client.model.state import (
    NEEDS_UPDATE_TEXT,
    Connection,
    ConnectionState,
    Document,
    DocumentState,
    ErrorNotice,
    Intent,
    IntentKind,
    TerminalModel,
)
from terminal_client.model.totals import Total, format_total, hand_total
from terminal_client.model.view import (
    VIEW_VERSION,
    Countdown,
    Dealer,
    Hand,
    InsuranceOffer,
    ProgressiveMeter,
    RoundResult,
    Seat,
    Settlement,
    ShoeShown,
    View,
    WagerLimits,
    parse_view,
    phase_name,
    short_digest,
)

__all__ = [
    "NEEDS_UPDATE_TEXT",
    "VIEW_VERSION",
    "Connection",
    "ConnectionState",
    "Countdown",
    "Dealer",
    "Document",
    "DocumentState",
    "ErrorNotice",
    "Hand",
    "InsuranceOffer",
    "Intent",
    "IntentKind",
    "ProgressiveMeter",
    "Recall",
    "RecalledGame",
    "RecalledResult",
    "RoundResult",
    "Rules",
    "Seat",
    "Settlement",
    "ShoeShown",
    "TerminalModel",
    "Total",
    "View",
    "WagerLimits",
    "WagerRules",
    "format_total",
    "hand_total",
    "parse_recall",
    "parse_rules",
    "parse_view",
    "phase_name",
    "short_digest",
]
