"""The SQL of the floor store's named migrations, one module each, in the order
:data:`game_server.floor.schema.MIGRATIONS` applies them: :mod:`.store` (``0001-store``),
:mod:`.guards` (``0002-guards``), :mod:`.roles` (``0003-roles``), :mod:`.meters`
(``0004-meters``), :mod:`.trust` (``0005-trust``).

A store records each migration by name and never applies it again, so a migration's text
never changes once released (``tests/floor/test_floor_schema.py`` pins each one's digest): a
change of the schema is a new migration, and a new module here.
"""
