"""Blackjack played on a hybrid gaming table (58 Pa. Code 633b.5): the pure engines.

- :mod:`game_server.games.hybrid.rules.three_position`: the three-position table with a dealer
  hole card, community cards and the Buzzer Beater wager (633b.5(a)-(v)); entry points
  :class:`~game_server.games.hybrid.rules.three_position.ThreePositionRound` and
  :func:`~game_server.games.hybrid.rules.three_position.replay`.
- :mod:`game_server.games.hybrid.rules.no_hole_card`: the version without a dealer hole card
  (633b.5(w)-(ee)).

This package imports neither engine, so that loading one does not load the other.
"""
