"""Blackjack at the fully automated electronic table (58 Pa. Code 633a, 633b, 605a).

The game behind the contract :class:`~game_server.games.api.Game`: its object is
:data:`game_server.games.blackjack.game.GAME` (registered in ``pyproject.toml``). The hybrid
tables (:mod:`game_server.games.hybrid`) build on its rules and Rules Submission.
"""
