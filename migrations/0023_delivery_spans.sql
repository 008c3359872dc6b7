-- "Delivered to" without an index entry per delivery.
--
-- Migration 0021's deliveries_device_sent (device_id, at) cost every delivery a btree insert
-- at a random position, about a tenth of a broadcast's CPU, only so that
-- POST /v3/devices/status could find a device's last delivery. Instead, each outcome write
-- records the runs of ids of the devices it sent to (PushPipeline's DeliverySpans; a
-- chunk is made in id order, so its devices usually make one run): a row per run, not per
-- device. A device's last delivery is then the newest span of its app containing its id
-- that a delivery confirms: the row (message_id, device_id) of the span's message, sent, at
-- the span's `at`. A span and the rows it records are written by one statement with
-- at = now(), the transaction's start, so the newest confirmed span gives exactly the
-- latest `at` of the device's sent deliveries, as the index did.
CREATE TABLE delivery_spans (
    message_id  bigint NOT NULL,
    app_id      bigint NOT NULL,
    lo          bigint NOT NULL,
    hi          bigint NOT NULL CHECK (hi >= lo),
    at          timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (message_id);

-- The app as a one-point range beside the ids: both keys are GiST's built-in range_ops, so
-- a lookup descends to its own app's spans only, without the btree_gist extension.
CREATE INDEX delivery_spans_app_ids ON delivery_spans
    USING gist (int8range(app_id, app_id, '[]'), int8range(lo, hi, '[]'));

-- A partition of delivery_spans beside each of deliveries, with the same bounds (the history
-- partition's included), named delivery_spans_<day>.
DO $$
DECLARE
    part record;
BEGIN
    FOR part IN
        SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'deliveries'::regclass
    LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF delivery_spans %s',
                       'delivery_spans_' || substr(part.name, length('deliveries_') + 1), part.bound);
    END LOOP;
END
$$;

-- Migration 0020's functions, now for both tables: a day's partitions are made together
-- and dropped together. The count and the names cover both tables.
CREATE OR REPLACE FUNCTION pushrelay_create_delivery_partitions(days_ahead integer, days_behind integer DEFAULT 0) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    today timestamptz := date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC';
    day timestamptz;
    parent text;
    name text;
    created integer := 0;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('pushrelay_delivery_partitions'));
    FOR offset_days IN -days_behind..days_ahead LOOP
        day := today + make_interval(days => offset_days);
        FOREACH parent IN ARRAY ARRAY['deliveries', 'delivery_spans'] LOOP
            name := parent || '_' || to_char(day AT TIME ZONE 'UTC', 'YYYYMMDD');
            CONTINUE WHEN to_regclass(name) IS NOT NULL;
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)', name, parent,
                           pushrelay_message_id_at(day), pushrelay_message_id_at(day + interval '1 day'));
            created := created + 1;
        END LOOP;
    END LOOP;
    RETURN created;
END
$$;

CREATE OR REPLACE FUNCTION pushrelay_drop_delivery_partitions(retention_days integer) RETURNS SETOF text
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
        WHERE i.inhparent IN ('deliveries'::regclass, 'delivery_spans'::regclass)
        ORDER BY i.inhparent = 'delivery_spans'::regclass, c.relname
    LOOP
        CONTINUE WHEN part.upper IS NULL OR part.upper > cutoff;
        EXECUTE format('DROP TABLE %I', part.name);
        RETURN NEXT part.name;
    END LOOP;
END
$$;

-- The spans of the deliveries kept so far: a write's rows are those of one message with one
-- `at`; runs split where ids lie more than 1024 apart, as DeliverySpans.maxGap does.
INSERT INTO delivery_spans (message_id, app_id, lo, hi, at)
SELECT message_id, app_id, min(device_id), max(device_id), at
FROM (SELECT r.message_id, m.app_id, r.device_id, r.at,
             sum(CASE WHEN r.gap > 1024 THEN 1 ELSE 0 END) OVER (PARTITION BY r.message_id, r.at ORDER BY r.device_id) AS run
      FROM (SELECT message_id, device_id, at,
                   device_id - lag(device_id) OVER (PARTITION BY message_id, at ORDER BY device_id) AS gap
            FROM deliveries WHERE outcome = 'sent') r
      JOIN messages m ON m.id = r.message_id) runs
GROUP BY message_id, app_id, at, run;

DROP INDEX deliveries_device_sent;
