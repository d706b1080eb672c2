"""Caribbean Stud Poker at the fully automated electronic table (58 Pa. Code 639a), with the
Progressive Payout Wager and its Must-Hit-By Mystery Bonus (639b.1).

The game behind the contract :class:`~game_server.games.api.Game`: its object is
:data:`game_server.games.caribbean.game.GAME` (registered in ``pyproject.toml``).
"""
