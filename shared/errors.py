"""Base errors shared by every package.

Each package has one base error (``RulesError``, ``ConfigError``, ``EventLogError``,
``ProtocolError``) with specific subclasses whose messages say what was wrong and what to do.
"""


class ETGError(Exception):
    """Base of every error this product raises on purpose."""


class CardError(ETGError, ValueError):
    """Text or a number that is not a playing card."""


class MoneyError(ETGError, ValueError):
    """An amount that is not a valid number of cents, or a payout that cannot be computed."""
