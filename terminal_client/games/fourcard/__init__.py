"""Four Card Poker as the terminal sees it (the ``etg.terminal_games`` entry point
``fourcard``)."""
