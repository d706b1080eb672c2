"""Caribbean Stud Poker at the terminal (58 Pa. Code 639a, 639b.1): its view, table screen
(FOLD / BET 2X, the qualifying line, the progressive and Must-Hit-By meters) and demo bot. The
registry's entry: :data:`terminal_client.games.caribbean.game.GAME`."""
