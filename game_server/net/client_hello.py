"""The server name (SNI) a TLS ClientHello asks for, read from the bytes the front peeks at
(pure). The front of ``etg serve --workers`` routes a connection by it
(:mod:`game_server.net.workers`): the certificate decides, the name only routes.
"""

from __future__ import annotations

from typing import Final

#: Bytes of a ClientHello the front reads at most (a ClientHello is well under this).
MAX_HELLO_BYTES: Final = 16 * 1024

_HANDSHAKE: Final = 0x16
_CLIENT_HELLO: Final = 0x01
_SERVER_NAME: Final = 0x0000
_HOST_NAME: Final = 0x00


class Incomplete(Exception):
    """More bytes of the ClientHello are needed to read its server name."""


def server_name(data: bytes) -> str | None:
    """The host name of the server-name extension (RFC 6066) of the TLS ClientHello that
    ``data`` starts with; None if ``data`` is not a ClientHello or names no server (such a
    connection goes to the first worker, whose handshake and Hello refuse or serve it).

    Raises:
        Incomplete: ``data`` ends before the ClientHello does.
    """
    handshake = bytearray()
    at = 0
    needed: int | None = None
    while needed is None or len(handshake) < needed:
        if len(data) < at + 5:
            raise Incomplete
        if data[at] != _HANDSHAKE or data[at + 1] != 0x03:
            return None
        length = int.from_bytes(data[at + 3 : at + 5], "big")
        if len(data) < at + 5 + length:
            raise Incomplete
        handshake += data[at + 5 : at + 5 + length]
        at += 5 + length
        if needed is None:
            if len(handshake) < 4:
                return None  # a handshake header split over records: no client does it
            if handshake[0] != _CLIENT_HELLO:
                return None
            needed = 4 + int.from_bytes(handshake[1:4], "big")
            if needed > MAX_HELLO_BYTES:
                return None
    try:
        return _name_of(bytes(handshake[4:needed]))
    except (IndexError, UnicodeDecodeError):
        return None


def _name_of(hello: bytes) -> str | None:
    """The server name of a ClientHello's body (IndexError if it is cut short)."""
    at = 2 + 32  # legacy version, random
    at += 1 + hello[at]  # session id
    at += 2 + int.from_bytes(hello[at : at + 2], "big")  # cipher suites
    at += 1 + hello[at]  # compression methods
    if at == len(hello):
        return None  # no extensions
    end = at + 2 + int.from_bytes(hello[at : at + 2], "big")
    at += 2
    while at + 4 <= end:
        kind = int.from_bytes(hello[at : at + 2], "big")
        size = int.from_bytes(hello[at + 2 : at + 4], "big")
        body = hello[at + 4 : at + 4 + size]
        at += 4 + size
        if kind != _SERVER_NAME:
            continue
        entries = body[2 : 2 + int.from_bytes(body[0:2], "big")]
        spot = 0
        while spot + 3 <= len(entries):
            name_type = entries[spot]
            size = int.from_bytes(entries[spot + 1 : spot + 3], "big")
            name = entries[spot + 3 : spot + 3 + size]
            spot += 3 + size
            if name_type == _HOST_NAME and len(name) == size:
                return name.decode("ascii")
        return None
    return None
