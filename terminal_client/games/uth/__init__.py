"""Ultimate Texas Hold 'Em at the terminal (58 Pa. Code 653a): its view, screens, demo bot and
recall page. The registry's entry: :data:`terminal_client.games.uth.game.GAME`."""
