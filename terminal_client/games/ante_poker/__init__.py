"""The ante-versus-dealer poker family on the terminal (Four Card Poker, Caribbean Stud
Poker): its shared layout, cards and screens (:mod:`.screens`). Not a game: registered
nowhere; each table's own package builds on it."""
