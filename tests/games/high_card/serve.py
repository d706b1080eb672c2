"""``python -m high_card.serve ARGS``: the real table server (``etg serve ARGS``) with High
Card registered first, as an installed game's entry point would register it."""

from game_server import games
from game_server.cli import serve_command

from .game import GAME

games.register(GAME)
serve_command(prog_name="python -m high_card.serve")
