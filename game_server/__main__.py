"""``python -m game_server``: the same as ``etg serve``."""

from game_server.cli import serve_command

serve_command(prog_name="python -m game_server")
