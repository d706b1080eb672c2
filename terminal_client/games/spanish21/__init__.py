"""The terminal's Spanish 21 table (58 Pa. Code 635a, 635b.1): :mod:`.game`."""
