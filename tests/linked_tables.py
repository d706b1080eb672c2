"""The Rules Submission text of a Blackjack table that links its Blazing 7's meter across the
floor (605a.8): one definition for the config tests and the floor's end-to-end tests."""

from __future__ import annotations

from collections.abc import Sequence

#: The floor-wide id of the linked Blazing 7's meter.
METER = "floor:blazing7s"
#: The Blazing 7's wager feeding :data:`METER` (633b.9, Paytable A, the dealer's up card as
#: the third seven).
BLAZING = f"""
[wagers.blazing_7s]
paytable = "Paytable A"
min = "1.00"
max = "1.00"
meter_seed = "2000.00"
meter_reseed = "2000.00"
meter_increment = "5%"
third_seven = "dealer-up-card"
meter = "{METER}"
"""


def linked_section(meters: Sequence[str] = (METER,), share_window_ms: int = 200) -> str:
    """``[linked_meters]`` naming ``meters`` with its share window."""
    names = ", ".join(f'"{meter}"' for meter in meters)
    return f"\n[linked_meters]\nmeters = [{names}]\nshare_window_ms = {share_window_ms}\n"
