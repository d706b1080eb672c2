"""Game recall and verification over the event log: rounds, timelines, replay, proof.

Entry points: :mod:`game_server.recall.rounds` (the log as rounds).
"""
