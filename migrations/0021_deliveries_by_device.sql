-- Fan-out writes one `deliveries` row per device and nothing else per device.
--
-- "Delivered to" (the online status of POST /v3/devices/status and the active devices of
-- GET /v3/users) is read from the deliveries themselves through this index, instead of
-- updating `devices.last_seen_at` for every device a push reached: that update rewrote a
-- whole device row and its five index entries per delivery, and was most of a
-- broadcast's database time. `devices.last_seen_at` now means "last registered".
CREATE INDEX deliveries_device_sent ON deliveries (device_id, at) WHERE outcome = 'sent';

-- The foreign key to messages cost a lookup and a share lock on the message row for every
-- inserted delivery, on the row every worker of a broadcast also updates (its counters).
-- Deliveries are written only by the pipeline for a message it holds, and an app's
-- deletion removes its messages' deliveries itself (AppRepository.delete); retention drops
-- whole partitions.
DO $$
DECLARE
    name text;
BEGIN
    FOR name IN SELECT conname FROM pg_constraint
                WHERE conrelid = 'deliveries'::regclass AND contype = 'f' AND confrelid = 'messages'::regclass
    LOOP
        EXECUTE format('ALTER TABLE deliveries DROP CONSTRAINT %I', name);
    END LOOP;
END
$$;

-- Chunks of a message not yet done. Workers decrement it as they finish chunks, in the
-- statement that writes the outcomes; the one that takes it to zero (audience resolved)
-- marks the message done. A counter, not a look at the other chunks, so completion needs
-- no second statement under the message row's lock.
ALTER TABLE messages ADD COLUMN chunks_pending integer NOT NULL DEFAULT 0;
UPDATE messages m SET chunks_pending = (SELECT count(*) FROM push_chunks c WHERE c.message_id = m.id AND c.state <> 'done')
WHERE m.state IN ('resolving', 'sending');

-- A chunk's device ids (a few KB) are compressed as each chunk is made; lz4 does that in a
-- fraction of pglz's time. Left as it is where the server was built without lz4.
DO $$
BEGIN
    ALTER TABLE push_chunks ALTER COLUMN device_ids SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN
    RAISE NOTICE 'lz4 is not available: push_chunks.device_ids keeps the default compression';
END
$$;
