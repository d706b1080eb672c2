"""War: a test-only game beside High Card (one card to each seat with a wager and one to the
dealer, the higher card wins 1 to 1, a tie pushes), written as a new game is by
docs/adding-a-game.md on the seated stadium table's bases: the size of a new game."""
