"""The pure rules of Spanish 21: the Match the Dealer wager, the table's rules, the round
engine over Blackjack's, and the basic strategy (no clock, no randomness, no I/O)."""
