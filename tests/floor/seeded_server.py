"""``python -m game_server`` with shoes from a fixed test seed (``ETG_TEST_SHOE_SEED``): the
real server, its real log and its sealed, committed shoes, dealt from
:func:`~game_server.table.session.simulation_seeds` instead of the certified entropy source,
so that an end-to-end test knows what the first round deals (a seed found by search, as the
simulation tests use fixed seeds). Every log it writes verifies as any other."""

from __future__ import annotations

import os
import runpy
from typing import Any

import game_server.net.service as service
from game_server.table.session import SeedSource, simulation_seeds

SEED = int(os.environ["ETG_TEST_SHOE_SEED"])


def _seeds(entropy: Any, table_id: str) -> SeedSource:
    return simulation_seeds(SEED, table_id)


service.production_seeds = _seeds
runpy.run_module("game_server", run_name="__main__")
