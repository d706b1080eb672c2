"""Pure game logic: hands, rounds, wagers, paytables and meters.

No I/O, no clock, no randomness, no Twisted, no sqlite: time and cards come in as arguments
(docs/design.md "Layout and the import rule"; enforced by ``tests/test_architecture.py``).
"""
