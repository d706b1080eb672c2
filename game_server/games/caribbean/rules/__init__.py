"""Caribbean Stud Poker (58 Pa. Code 639a, 639b.1) as a pure rules engine.

- :mod:`.rules`: :class:`CaribbeanRules` and the paytables;
- :mod:`.events`: the round's records;
- :mod:`.game`: :class:`CaribbeanRound`, one round, and :func:`replay`;
- :mod:`.strategy`: the published near-optimal strategy (bots, simulation);
- :mod:`.math`: exact figures of the Progressive Payout and the Five Card Hand Bonus.
"""
