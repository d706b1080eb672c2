"""``python -m terminal_client``: the same as ``etg terminal``."""

from terminal_client.cli import terminal

if __name__ == "__main__":
    terminal(prog_name="python -m terminal_client")
