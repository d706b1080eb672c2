"""What a game's server package and its terminal package both read, written once: each
game's published strategies, on the cards' ranks (the server's simulator and par sheet
compare them; the terminal's demo bot plays them). One package per game, as on each side;
the platform imports none of them (``tests/test_architecture.py``)."""
