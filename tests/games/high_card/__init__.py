"""High Card: the smallest game the tests play through the whole platform (one card to each
wager and one to the dealer, the higher card wins 1 to 1). It is registered by the tests
(never through the product's entry points) and written only through the Game contract, as
docs/adding-a-game.md says; the terminal plays it on its generic fallback screen."""
