"""The live table: shoes, rounds, wallets and meters over the pure engine, writing the log.

:class:`~game_server.table.session.TableSession` is the one place that turns engine steps
into logged facts (save, then send); the simulator and the server both drive it.
"""
