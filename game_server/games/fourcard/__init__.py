"""Four Card Poker at the fully automated electronic table (58 Pa. Code 641a, 641b.1): the
Ante and Play, the Ante Bonus, Aces Up, the Four-Card and Five-Card Progressive Payout wagers
and the Must-Hit-By Mystery Bonus. The platform knows it through :data:`game.GAME`."""
