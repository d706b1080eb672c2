"""Four Card Poker's pure rules (58 Pa. Code 641a, 641b.1): hands, paytables, the round's
engine, its replay and its exact math. No clock, no randomness, no I/O (the import rule)."""
