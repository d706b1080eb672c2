"""``0004-meters``: the floor's linked progressive meters (605a.8): their tables and the
``SECURITY DEFINER`` functions that open, contribute to, award and read a meter, each in one
transaction under the meter's row lock (:mod:`game_server.floor.schema`, "Linked meters").
Never edit: the store records a migration by name.
"""

from __future__ import annotations

from typing import Final

from game_server.floor.names import (
    INVESTIGATOR,
    METER_FUNCTIONS,
    METER_TABLES,
    READ_FUNCTIONS,
    REFUSED_METER,
    SHIPPER,
)


def _meter_refuse(message: str, *args: str) -> str:
    params = "".join(f", {arg}" for arg in args)
    return f"RAISE EXCEPTION 'etg-floor: {message}'{params} USING ERRCODE = '{REFUSED_METER}';"


_STEP_COLUMNS: Final = (
    "seq bigint, amount bigint, reserve bigint, wagered bigint, contributed bigint, "
    "reserved bigint, house_funded bigint, paid bigint, hits bigint"
)

#: The SQL of ``0004-meters``.
STATEMENTS: Final = f"""
CREATE TABLE floor.meters (
    meter_id text PRIMARY KEY CHECK (meter_id <> ''),
    name text NOT NULL,
    seed bigint NOT NULL,
    reseed bigint NOT NULL,
    increment_bp integer NOT NULL,
    secondary_bp integer NOT NULL,
    share_window_ms integer NOT NULL CHECK (share_window_ms BETWEEN 0 AND 10000),
    opened_at timestamptz NOT NULL DEFAULT now(),
    opened_by text NOT NULL DEFAULT session_user,
    CHECK (reseed >= 0 AND seed >= reseed),
    CHECK (increment_bp >= 0 AND secondary_bp >= 0 AND increment_bp + secondary_bp <= 10000)
);
CREATE TABLE floor.meter_steps (
    meter_id text NOT NULL,
    seq bigint NOT NULL CHECK (seq >= 1),
    kind text NOT NULL CHECK (kind IN ('opened', 'contributed', 'awarded', 'reseeded')),
    table_id text,
    round_id bigint,
    step text,
    place text,
    wager bigint,
    increment bigint,
    secondary bigint,
    kept bigint,
    award bigint,
    percent integer,
    share bigint,
    winners integer,
    from_reserve bigint,
    from_house bigint,
    amount bigint NOT NULL CHECK (amount >= 0),
    reserve bigint NOT NULL CHECK (reserve >= 0),
    wagered bigint NOT NULL,
    contributed bigint NOT NULL,
    reserved bigint NOT NULL,
    house_funded bigint NOT NULL,
    paid bigint NOT NULL,
    hits bigint NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    recorded_by text NOT NULL DEFAULT session_user,
    PRIMARY KEY (meter_id, seq),
    UNIQUE (meter_id, table_id, round_id, step),
    CHECK (contributed + reserved + house_funded = amount + reserve + 1000 * paid)
);
CREATE TABLE floor.meter_awards (
    meter_id text NOT NULL,
    award bigint NOT NULL,
    percent integer NOT NULL CHECK (percent BETWEEN 1 AND 100),
    opened_at timestamptz NOT NULL,
    closes_at timestamptz NOT NULL,
    shared boolean NOT NULL,
    PRIMARY KEY (meter_id, award)
);
CREATE TABLE floor.meter_claims (
    meter_id text NOT NULL,
    award bigint NOT NULL,
    position integer NOT NULL,
    table_id text NOT NULL,
    round_id bigint NOT NULL,
    step text NOT NULL,
    places text[] NOT NULL CHECK (cardinality(places) >= 1),
    claimed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    claimed_by text NOT NULL DEFAULT session_user,
    PRIMARY KEY (meter_id, table_id, round_id, step),
    UNIQUE (meter_id, award, position)
);
{
    "".join(
        f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON floor.{table} "
        f"FOR EACH ROW EXECUTE FUNCTION floor.refuse_change();"
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON floor.{table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION floor.refuse_change();"
        for table in METER_TABLES
    )
}

CREATE FUNCTION floor.meter_lock(p_meter text) RETURNS floor.meters LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
DECLARE spec floor.meters%ROWTYPE;
BEGIN
    SELECT * INTO spec FROM floor.meters WHERE meter_id = p_meter FOR UPDATE;
    IF NOT FOUND THEN
        {
    _meter_refuse("the floor has no linked meter %: a table that names it opens it", "p_meter")
}
    END IF;
    RETURN spec;
END $$;

CREATE FUNCTION floor.meter_open(p_meter text, p_name text, p_seed bigint, p_reseed bigint,
                                 p_increment_bp integer, p_secondary_bp integer,
                                 p_share_window_ms integer)
RETURNS TABLE ({_STEP_COLUMNS}) LANGUAGE plpgsql
SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
#variable_conflict use_column
DECLARE spec floor.meters%ROWTYPE;
BEGIN
    INSERT INTO floor.meters (meter_id, name, seed, reseed, increment_bp, secondary_bp,
                              share_window_ms)
    VALUES (p_meter, p_name, p_seed, p_reseed, p_increment_bp, p_secondary_bp,
            p_share_window_ms)
    ON CONFLICT (meter_id) DO NOTHING;
    SELECT * INTO spec FROM floor.meter_lock(p_meter);
    IF (spec.name, spec.seed, spec.reseed, spec.increment_bp, spec.secondary_bp,
        spec.share_window_ms) IS DISTINCT FROM (p_name, p_seed, p_reseed, p_increment_bp,
        p_secondary_bp, p_share_window_ms) THEN
        {
    _meter_refuse(
        "the linked meter % is open on the floor as %, seed % reseed % cents, increment % bp, "
        "secondary % bp, share window % ms; a table cannot link to it with another "
        "specification: give it another id or the same specification",
        "p_meter",
        "spec.name",
        "spec.seed",
        "spec.reseed",
        "spec.increment_bp",
        "spec.secondary_bp",
        "spec.share_window_ms",
    )
}
    END IF;
    IF NOT EXISTS (SELECT 1 FROM floor.meter_steps s WHERE s.meter_id = p_meter) THEN
        INSERT INTO floor.meter_steps (meter_id, seq, kind, amount, reserve, wagered,
            contributed, reserved, house_funded, paid, hits)
        VALUES (p_meter, 1, 'opened', p_seed * 1000, 0, 0, 0, 0, p_seed * 1000, 0, 0);
    END IF;
    RETURN QUERY SELECT * FROM floor.meter_state_of(p_meter);
END $$;

CREATE FUNCTION floor.meter_state_of(p_meter text) RETURNS TABLE ({_STEP_COLUMNS})
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_temp AS $$
    SELECT seq, amount, reserve, wagered, contributed, reserved, house_funded, paid, hits
    FROM floor.meter_steps WHERE meter_id = p_meter ORDER BY seq DESC LIMIT 1
$$;

CREATE FUNCTION floor.meter_state(p_meter text)
RETURNS TABLE (name text, seed bigint, reseed bigint, increment_bp integer,
               secondary_bp integer, share_window_ms integer, {_STEP_COLUMNS})
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = floor, pg_temp AS $$
    SELECT m.name, m.seed, m.reseed, m.increment_bp, m.secondary_bp, m.share_window_ms,
           s.seq, s.amount, s.reserve, s.wagered, s.contributed, s.reserved, s.house_funded,
           s.paid, s.hits
    FROM floor.meters m, floor.meter_state_of(m.meter_id) s WHERE m.meter_id = p_meter
$$;

CREATE FUNCTION floor.meter_contribute(p_meter text, p_table text, p_round bigint,
                                       p_step text, p_place text, p_wager bigint)
RETURNS TABLE (seq bigint, increment bigint, secondary bigint, kept bigint, amount bigint,
               reserve bigint, again boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
DECLARE
    spec floor.meters%ROWTYPE;
    held floor.meter_steps%ROWTYPE;
    now_ floor.meter_steps%ROWTYPE;
    inc bigint;
    sec bigint;
BEGIN
    SELECT * INTO spec FROM floor.meter_lock(p_meter);
    SELECT * INTO held FROM floor.meter_steps s
        WHERE s.meter_id = p_meter AND s.table_id = p_table AND s.round_id = p_round
          AND s.step = p_step;
    IF FOUND THEN
        IF held.kind <> 'contributed' OR held.place IS DISTINCT FROM p_place
           OR held.wager <> p_wager THEN
            {
    _meter_refuse(
        "meter %: step % of round % of table % was already recorded as another change; refused",
        "p_meter",
        "p_step",
        "p_round",
        "p_table",
    )
}
        END IF;
        RETURN QUERY SELECT held.seq, held.increment, held.secondary, held.kept, held.amount,
                            held.reserve, true;
        RETURN;
    END IF;
    IF p_wager IS NULL OR p_wager <= 0 THEN
        {_meter_refuse("meter %: a contribution needs a wager of at least 1 cent", "p_meter")}
    END IF;
    SELECT * INTO now_ FROM floor.meter_steps s WHERE s.meter_id = p_meter
        ORDER BY s.seq DESC LIMIT 1;
    inc := p_wager * spec.increment_bp / 10;
    sec := p_wager * spec.secondary_bp / 10;
    INSERT INTO floor.meter_steps (meter_id, seq, kind, table_id, round_id, step, place, wager,
        increment, secondary, kept, amount, reserve, wagered, contributed, reserved,
        house_funded, paid, hits)
    VALUES (p_meter, now_.seq + 1, 'contributed', p_table, p_round, p_step, p_place, p_wager,
        inc, sec, p_wager * 1000 - inc - sec, now_.amount + inc, now_.reserve + sec,
        now_.wagered + p_wager, now_.contributed + inc, now_.reserved + sec,
        now_.house_funded, now_.paid, now_.hits);
    RETURN QUERY SELECT now_.seq + 1, inc, sec, p_wager * 1000 - inc - sec, now_.amount + inc,
                        now_.reserve + sec, false;
END $$;

CREATE FUNCTION floor.meter_claim(p_meter text, p_table text, p_round bigint, p_step text,
                                  p_percent integer, p_places text[], p_shared boolean)
RETURNS TABLE (award bigint, wait_ms integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
DECLARE
    spec floor.meters%ROWTYPE;
    held floor.meter_claims%ROWTYPE;
    open_ floor.meter_awards%ROWTYPE;
    at timestamptz := clock_timestamp();
BEGIN
    SELECT * INTO spec FROM floor.meter_lock(p_meter);
    IF p_percent IS NULL OR p_percent NOT BETWEEN 1 AND 100 THEN
        {_meter_refuse("meter %: a share of the meter must be 1..100 percent", "p_meter")}
    END IF;
    SELECT * INTO held FROM floor.meter_claims c
        WHERE c.meter_id = p_meter AND c.table_id = p_table AND c.round_id = p_round
          AND c.step = p_step;
    IF FOUND THEN
        SELECT * INTO open_ FROM floor.meter_awards a
            WHERE a.meter_id = p_meter AND a.award = held.award;
    ELSE
        SELECT * INTO open_ FROM floor.meter_awards a
            WHERE p_shared AND a.shared AND a.meter_id = p_meter AND a.percent = p_percent
              AND a.closes_at > at
              AND NOT EXISTS (SELECT 1 FROM floor.meter_steps s WHERE s.meter_id = p_meter
                              AND s.kind = 'awarded' AND s.award = a.award)
            ORDER BY a.award DESC LIMIT 1;
        IF NOT FOUND THEN
            open_.award := coalesce((SELECT max(a.award) FROM floor.meter_awards a
                                     WHERE a.meter_id = p_meter), 0) + 1;
            open_.closes_at := CASE WHEN p_shared
                THEN at + make_interval(secs => spec.share_window_ms / 1000.0) ELSE at END;
            INSERT INTO floor.meter_awards (meter_id, award, percent, opened_at, closes_at,
                                            shared)
            VALUES (p_meter, open_.award, p_percent, at, open_.closes_at, p_shared IS TRUE);
        END IF;
        INSERT INTO floor.meter_claims (meter_id, award, position, table_id, round_id, step,
                                        places)
        VALUES (p_meter, open_.award,
                coalesce((SELECT max(c.position) FROM floor.meter_claims c
                          WHERE c.meter_id = p_meter AND c.award = open_.award), 0) + 1,
                p_table, p_round, p_step, p_places);
    END IF;
    RETURN QUERY SELECT open_.award,
        greatest(0, ceil(extract(epoch FROM open_.closes_at - at) * 1000))::integer;
END $$;

CREATE FUNCTION floor.meter_settle(p_meter text, p_table text, p_round bigint, p_step text)
RETURNS TABLE (seq bigint, award bigint, percent integer, share bigint, winners integer,
               places text[], amount bigint, reserve bigint, again boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = floor, pg_temp AS $$
#variable_conflict use_column
DECLARE
    spec floor.meters%ROWTYPE;
    claim floor.meter_claims%ROWTYPE;
    grp floor.meter_awards%ROWTYPE;
    paid_ floor.meter_steps%ROWTYPE;
    now_ floor.meter_steps%ROWTYPE;
    n integer;
    each_ bigint;
    need bigint;
    from_r bigint;
BEGIN
    SELECT * INTO claim FROM floor.meter_claims c
        WHERE c.meter_id = p_meter AND c.table_id = p_table AND c.round_id = p_round
          AND c.step = p_step;
    IF NOT FOUND THEN
        {
    _meter_refuse(
        "meter %: no claim of step % of round % of table % to settle",
        "p_meter",
        "p_step",
        "p_round",
        "p_table",
    )
}
    END IF;
    SELECT * INTO grp FROM floor.meter_awards a
        WHERE a.meter_id = p_meter AND a.award = claim.award;
    IF grp.closes_at > clock_timestamp() THEN
        PERFORM pg_sleep(extract(epoch FROM grp.closes_at - clock_timestamp()));
    END IF;
    SELECT * INTO spec FROM floor.meter_lock(p_meter);
    SELECT * INTO paid_ FROM floor.meter_steps s
        WHERE s.meter_id = p_meter AND s.kind = 'awarded' AND s.award = claim.award;
    IF FOUND THEN
        RETURN QUERY SELECT paid_.seq, paid_.award, paid_.percent, paid_.share, paid_.winners,
                            claim.places, paid_.amount, paid_.reserve, true;
        RETURN;
    END IF;
    SELECT sum(cardinality(c.places))::integer INTO n FROM floor.meter_claims c
        WHERE c.meter_id = p_meter AND c.award = claim.award;
    SELECT * INTO now_ FROM floor.meter_steps s WHERE s.meter_id = p_meter
        ORDER BY s.seq DESC LIMIT 1;
    each_ := now_.amount * grp.percent / (100 * 1000 * n);
    INSERT INTO floor.meter_steps (meter_id, seq, kind, award, percent, share, winners, amount,
        reserve, wagered, contributed, reserved, house_funded, paid, hits)
    VALUES (p_meter, now_.seq + 1, 'awarded', claim.award, grp.percent, each_, n,
        now_.amount - each_ * n * 1000, now_.reserve, now_.wagered, now_.contributed,
        now_.reserved, now_.house_funded, now_.paid + each_ * n, now_.hits + 1)
    RETURNING * INTO paid_;
    need := spec.reseed * 1000 - paid_.amount;
    IF need > 0 THEN
        from_r := least(need, paid_.reserve);
        INSERT INTO floor.meter_steps (meter_id, seq, kind, award, from_reserve, from_house,
            amount, reserve, wagered, contributed, reserved, house_funded, paid, hits)
        VALUES (p_meter, paid_.seq + 1, 'reseeded', claim.award, from_r, need - from_r,
            paid_.amount + need, paid_.reserve - from_r, paid_.wagered, paid_.contributed,
            paid_.reserved, paid_.house_funded + need - from_r, paid_.paid, paid_.hits);
    END IF;
    RETURN QUERY SELECT paid_.seq, paid_.award, paid_.percent, paid_.share, paid_.winners,
                        claim.places, paid_.amount, paid_.reserve, false;
END $$;

REVOKE ALL ON {", ".join(f"floor.{t}" for t in METER_TABLES)} FROM PUBLIC;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA floor FROM PUBLIC;
REVOKE UPDATE, DELETE, TRUNCATE ON floor.meter_steps, floor.meter_awards, floor.meter_claims
    FROM CURRENT_USER;
REVOKE DELETE, TRUNCATE ON floor.meters FROM CURRENT_USER;
GRANT SELECT ON {", ".join(f"floor.{t}" for t in METER_TABLES)} TO {INVESTIGATOR};
GRANT EXECUTE ON FUNCTION {", ".join(f"floor.{f}" for f in METER_FUNCTIONS)} TO {SHIPPER};
GRANT EXECUTE ON FUNCTION floor.meter_state(text) TO {INVESTIGATOR};
GRANT EXECUTE ON FUNCTION {", ".join(f"floor.{f}" for f in READ_FUNCTIONS)}
    TO {SHIPPER}, {INVESTIGATOR};
"""
