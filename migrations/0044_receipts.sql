-- Receipts (issue 28): what the app itself reports through POST /client/v1/receipts with
-- its device secret, that a notification reached the phone ("received", from a Notification
-- Service Extension or the app's handler) or was opened ("opened", a tap).
--
-- One row per (message, device, event): a repeated receipt changes nothing. Receipts are
-- per-device records like deliveries: partitioned by message id beside them (a day's
-- deliveries, spans and receipts are made and dropped together), so retention drops them
-- whole with their day, and messages and their counters outlive them.
CREATE TABLE receipts (
    message_id  bigint NOT NULL,
    device_id   bigint NOT NULL,
    event       text NOT NULL CHECK (event IN ('received', 'opened')),
    -- When it happened, as the app said (clamped between the message's acceptance and the
    -- receipt's arrival), else when the receipt arrived.
    at          timestamptz NOT NULL,
    PRIMARY KEY (message_id, device_id, event)
) PARTITION BY RANGE (message_id);

-- A partition of receipts beside each of deliveries, with the same bounds (the history
-- partition's included), named receipts_<day>.
DO $$
DECLARE
    part record;
BEGIN
    FOR part IN
        SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'deliveries'::regclass
    LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF receipts %s',
                       'receipts_' || substr(part.name, length('deliveries_') + 1), part.bound);
    END LOOP;
END
$$;

-- Migration 0023's functions, now for the three tables.
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
        FOREACH parent IN ARRAY ARRAY['deliveries', 'delivery_spans', 'receipts'] LOOP
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
        WHERE i.inhparent IN ('deliveries'::regclass, 'delivery_spans'::regclass, 'receipts'::regclass)
        ORDER BY c.relname
    LOOP
        CONTINUE WHEN part.upper IS NULL OR part.upper > cutoff;
        EXECUTE format('DROP TABLE %I', part.name);
        RETURN NEXT part.name;
    END LOOP;
END
$$;

-- A message's receipts counted, beside its row rather than on it: a broadcast's receipts
-- arrive while its chunks are still being sent, and counting them on `messages` would make
-- every receipt wait for (and hold up) the outcome writes that update the same row. Totals
-- over both platforms with the Android share, as migration 0042's counters; iOS is the
-- rest. No row until the message's first receipt.
CREATE TABLE message_receipt_counts (
    message_id        bigint PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
    received          bigint NOT NULL DEFAULT 0,
    opened            bigint NOT NULL DEFAULT 0,
    android_received  bigint NOT NULL DEFAULT 0,
    android_opened    bigint NOT NULL DEFAULT 0
);

-- The device's last receipt: only a device with a secret can report one.
ALTER TABLE device_secrets ADD COLUMN last_receipt_at timestamptz;

-- Whether a device may set its own alias and tags (PATCH /client/v1/devices/{rid}): off by
-- default, since a client key is public and an alias set from a phone lets anyone claim
-- another user's alias (docs/client-keys.md).
ALTER TABLE apps ADD COLUMN client_may_set_alias boolean NOT NULL DEFAULT false;
