"""The fully automated Blackjack table at the terminal: it reads the seated table's view and
plays on the seated table's screens (:mod:`terminal_client.screens.table`); its main wager,
table printing, rules lines, demo bot and recall totals are here. The registry's entry:
:data:`terminal_client.games.blackjack.game.GAME`."""
