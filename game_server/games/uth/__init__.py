"""Ultimate Texas Hold 'Em at the fully automated electronic table (58 Pa. Code 653a).

The game behind the contract :class:`~game_server.games.api.Game`: its object is
:data:`game_server.games.uth.game.GAME` (registered in ``pyproject.toml``).
"""
