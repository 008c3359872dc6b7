-- Deliveries partitioned by day. The partition key is message_id: msg_ids are
-- time-ordered (PushCore's MessageIDGenerator: milliseconds since 2024-01-01 shifted left
-- by 22 bits), so a day is a range of ids. Keying on the id, not on `at`, keeps the
-- primary key (message_id, device_id) — PostgreSQL needs the partition key in it — so
-- the pipeline's ON CONFLICT and every lookup by message stay as they were, and touch one
-- partition. A message's deliveries live in the partition of the day it was accepted.
--
-- Retention drops whole partitions (pushrelay_drop_delivery_partitions); messages and
-- their counters (messages, message_failures, delivery_stats) are kept.

-- The first msg_id of a day (UTC).
CREATE FUNCTION pushrelay_message_id_at(day timestamptz) RETURNS bigint
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT greatest((extract(epoch FROM day) * 1000)::bigint - 1704067200000, 0) << 22
$$;

-- Creates the partitions of the days from `days_behind` days ago to `days_ahead` days from
-- now (UTC) that do not exist yet; returns how many it created. Takes a transaction-level
-- advisory lock so nodes running it together do not race.
CREATE FUNCTION pushrelay_create_delivery_partitions(days_ahead integer, days_behind integer DEFAULT 0) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    today timestamptz := date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    day timestamptz;
    name text;
    created integer := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('pushrelay_delivery_partitions'));
    FOR offset_days IN -days_behind..days_ahead LOOP
        day := today + make_interval(days => offset_days);
        name := 'deliveries_' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD');
        CONTINUE WHEN to_regclass(name) IS NOT NULL;
        EXECUTE format('CREATE TABLE %I PARTITION OF deliveries FOR VALUES FROM (%s) TO (%s)', name,
                       pushrelay_message_id_at(day), pushrelay_message_id_at(day + interval '1 day'));
        created := created + 1;
    END LOOP;
    RETURN created;
END
$$;

-- Drops the partitions whose every message was accepted more than `retention_days` days
-- ago (the history partition too, once it is that old); returns their names.
CREATE FUNCTION pushrelay_drop_delivery_partitions(retention_days integer) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    cutoff bigint := pushrelay_message_id_at(now() - make_interval(days => retention_days));
    part record;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('pushrelay_delivery_partitions'));
    FOR part IN
        SELECT c.relname AS name,
               (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''?(-?\d+)''?\)'))[1]::bigint AS upper
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'deliveries'::regclass
    LOOP
        CONTINUE WHEN part.upper IS NULL OR part.upper > cutoff;
        EXECUTE format('DROP TABLE %I', part.name);
        RETURN NEXT part.name;
    END LOOP;
END
$$;

ALTER TABLE deliveries RENAME TO deliveries_unpartitioned;
ALTER TABLE deliveries_unpartitioned RENAME CONSTRAINT deliveries_pkey TO deliveries_unpartitioned_pkey;

CREATE TABLE deliveries (
    message_id          bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    device_id           bigint NOT NULL,
    outcome             text NOT NULL CHECK (outcome IN ('sent', 'failed', 'invalidated', 'expired', 'withdrawn')),
    reason              text,
    attempts            integer NOT NULL DEFAULT 1,
    at                  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (message_id, device_id)
) PARTITION BY RANGE (message_id);

-- Everything accepted before yesterday (and ids not made by the generator) in one
-- partition; a day each from yesterday on, a week ahead. The worker role keeps creating
-- them ahead.
DO $$
BEGIN
    EXECUTE format('CREATE TABLE deliveries_history PARTITION OF deliveries FOR VALUES FROM (MINVALUE) TO (%s)',
                   pushrelay_message_id_at(date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 day'));
END
$$;
SELECT pushrelay_create_delivery_partitions(7, 1);

INSERT INTO deliveries SELECT message_id, device_id, outcome, reason, attempts, at FROM deliveries_unpartitioned;
DROP TABLE deliveries_unpartitioned;
