"""Settings for the whole test suite.

Hypothesis draws its examples from a fixed seed per test (``derandomize``), so every run of
``make test`` checks the same cases and a failure reproduces exactly; the examples still cover
the space the strategies describe. ``ETG_HYPOTHESIS=explore`` draws fresh examples instead,
to look for new failures by hand.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile("explore" if os.environ.get("ETG_HYPOTHESIS") == "explore" else "ci")
