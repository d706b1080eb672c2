"""The terminal's network side: a reconnecting AMP client over mutual TLS that feeds the
model (:mod:`terminal_client.model`). Entry points: :class:`TerminalClient`,
:func:`terminal_tls_options`, :func:`tls_endpoint`.
"""

from terminal_client.net.client import SOFTWARE, TerminalClient, default_retry_policy
from terminal_client.net.tls import TerminalTlsError, terminal_tls_options, tls_endpoint

__all__ = [
    "SOFTWARE",
    "TerminalClient",
    "TerminalTlsError",
    "default_retry_policy",
    "terminal_tls_options",
    "tls_endpoint",
]
