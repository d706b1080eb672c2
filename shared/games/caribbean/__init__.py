"""Caribbean Stud Poker's code both sides read: its published simple strategy
(:mod:`.strategy`)."""
