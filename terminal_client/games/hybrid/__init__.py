"""The hybrid Blackjack tables at the terminal (58 Pa. Code 633b.5): the three-position table
and the table without a hole card. They build on Blackjack's (:mod:`..blackjack`). The
registry's entry: :data:`terminal_client.games.hybrid.game.GAME`."""
