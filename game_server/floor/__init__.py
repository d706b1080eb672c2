"""The floor store: PostgreSQL as the casino floor's system of record (docs/design.md "The floor").

Each table server's SQLite log stays the table's authority; a floor that outgrows one
machine adds a PostgreSQL store that every server ships its events and signed checkpoints to
(``etg serve --store URL``), whose checkpoints are the anchors that make a cut-back log
detectable (``etg verify DB --store URL``).

Modules (the package is imported only by ``--store`` and ``etg floor``; nothing else of the
platform needs psycopg):

- :mod:`~game_server.floor.schema`: the store's named migrations, roles and ingest guards;
- :mod:`~game_server.floor.store`: :class:`~game_server.floor.store.FloorStore`, a client
  (register, claim, ingest, read back);
- :mod:`~game_server.floor.shipper`: :class:`~game_server.floor.shipper.Shipper`, the thread
  that ships one log in order with a durable cursor, and its lag meters and alarm;
- :mod:`~game_server.floor.anchors`: the store as an anchor stream;
- :mod:`~game_server.floor.serving`: what ``etg serve --store`` wires into the server;
- :mod:`~game_server.floor.cluster`: ``etg floor up/down``, a local cluster for development.
"""
