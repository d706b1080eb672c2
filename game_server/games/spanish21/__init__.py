"""Spanish 21 (58 Pa. Code 635a) with the Match the Dealer Progressive wager (635b.1) at the
fully automated table, built on the Blackjack package's engine (:mod:`.game`)."""
