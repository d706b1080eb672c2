"""Errors of the floor store: every one a sentence that says what was wrong and what to do."""

from __future__ import annotations

from shared.errors import ETGError


class FloorError(ETGError):
    """Base of every error of the floor package."""


class StoreUnavailable(FloorError):
    """The store cannot be reached, or the connection broke (the work is retried)."""


class StoreRefused(FloorError):
    """The store refused what was shipped: a gap, a fork, a rewrite, a row that does not
    chain, a bad signature, an unregistered key. Retrying the same rows cannot succeed."""


class StoreSchemaError(FloorError):
    """The database is not a floor store, or of a schema version this code does not run."""


class ClusterError(FloorError):
    """A local floor cluster (``etg floor up``) cannot be made, started or stopped."""
