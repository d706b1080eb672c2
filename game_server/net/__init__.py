"""The table's network edge: certificates and mutual TLS 1.3 (docs/design.md "Network").

- :mod:`game_server.net.pki` makes and reads the private CA and the certificates of the
  server, the terminals and the operator tools (pure of Twisted; entry points
  :func:`~game_server.net.pki.init_pki`, :func:`~game_server.net.pki.add_terminal`,
  :func:`~game_server.net.pki.peer_identity`).
- :mod:`game_server.net.tls` turns them into Twisted TLS options (entry points
  :func:`~game_server.net.tls.server_tls_options`,
  :func:`~game_server.net.tls.client_tls_options`, :func:`~game_server.net.tls.identity_of`).

This package imports neither module, so that importing :mod:`game_server.net.pki` never
loads Twisted.
"""
