"""The authoritative game server: rules engine, certified RNG shoe, table, log and network."""
