"""The certified RNG: HMAC_DRBG (NIST SP 800-90A), a health-tested entropy source
(SP 800-90B) and the shoe (Fisher-Yates shuffle, commitment, reveal).

Entry points: :func:`self_test` at table start, :meth:`ShoeSeed.fresh` with an
:class:`EntropySource`, then :class:`Shoe`; :func:`verify_reveal` for investigators;
:class:`StackedShoe` for scenario tests and replay.
"""

from game_server.rng.drbg import BLOCK_BYTES, HmacDrbg, RandomStream, self_test
from game_server.rng.entropy import EntropySource
from game_server.rng.errors import (
    BadDeckCount,
    BadRange,
    BadSeedMaterial,
    DrbgSelfTestFailed,
    EntropyHealthError,
    RequestTooLarge,
    ReseedRequired,
    RngError,
    ShoeExhausted,
)
from game_server.rng.shoe import (
    ALLOWED_DECKS,
    Shoe,
    ShoeSeed,
    StackedShoe,
    fisher_yates,
    verify_reveal,
)

__all__ = [
    "ALLOWED_DECKS",
    "BLOCK_BYTES",
    "BadDeckCount",
    "BadRange",
    "BadSeedMaterial",
    "DrbgSelfTestFailed",
    "EntropyHealthError",
    "EntropySource",
    "HmacDrbg",
    "RandomStream",
    "RequestTooLarge",
    "ReseedRequired",
    "RngError",
    "Shoe",
    "ShoeExhausted",
    "ShoeSeed",
    "StackedShoe",
    "fisher_yates",
    "self_test",
    "verify_reveal",
]
