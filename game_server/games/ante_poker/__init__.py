"""The ante-versus-dealer poker family (Caribbean Stud Poker, Four Card Poker, Ultimate Texas
Hold 'Em): what each of them keeps of the family, written once. Not a game: it is registered
nowhere; each game of the family subclasses :class:`.game.AntePokerGame` and plays its bots'
logged rounds with :func:`.sim.play_logged`."""
