"""Code that both the game server and the player terminals import.

Cards (:mod:`shared.cards`), money (:mod:`shared.money`) and the base errors
(:mod:`shared.errors`). Nothing here reads the clock, a random source, pygame or sqlite.
"""
