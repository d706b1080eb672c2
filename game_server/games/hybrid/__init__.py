"""Blackjack at the hybrid tables in stadium play (58 Pa. Code 633b.5): the three-position
table (633b.5(a)-(v)) and the table without a dealer hole card (633b.5(w)-(ee)).

The game behind the contract :class:`~game_server.games.api.Game`: its object is
:data:`game_server.games.hybrid.game.GAME` (registered in ``pyproject.toml``). It builds on
the Blackjack game's rules and Rules Submission (:mod:`game_server.games.blackjack`).
"""
