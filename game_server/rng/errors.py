"""Errors of the certified RNG: the DRBG, the entropy source and the shoe.

Every failure is a specific subclass of :class:`RngError` with a sentence that says what was
wrong and what to do. Nothing in ``game_server.rng`` catches and hides one of them: a failed
self-test or health test must reach the table, which takes itself out of service.
"""

from shared.errors import ETGError


class RngError(ETGError):
    """Base of every error of the RNG package."""


class DrbgSelfTestFailed(RngError):
    """A known-answer test of HMAC_DRBG gave the wrong output (NIST SP 800-90A, 11.3)."""


class ReseedRequired(RngError):
    """The DRBG reached its reseed interval and must be reseeded before it generates again."""


class RequestTooLarge(RngError, ValueError):
    """More output asked of one generate call than NIST SP 800-90A allows (2**19 bits)."""


class BadSeedMaterial(RngError, ValueError):
    """Entropy input, nonce, personalization or additional input of the wrong size or form."""


class BadRange(RngError, ValueError):
    """A number outside what an RNG call accepts (``randbelow(0)``, a negative bit count...)."""


class EntropyHealthError(RngError):
    """The entropy source failed a continuous health test (NIST SP 800-90B, 4.4)."""


class ShoeExhausted(RngError):
    """A card was drawn from a shoe that has no cards left."""


class BadDeckCount(RngError, ValueError):
    """A shoe asked for with a number of decks the product does not offer."""
