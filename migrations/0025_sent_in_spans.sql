-- A delivery span holds the ids of the devices it records as sent; `deliveries` keeps only
-- the outcomes that are not `sent`.
--
-- A `sent` row per device was most of a broadcast's database work: a heap tuple, a
-- primary-key entry and their WAL for every device. In 1,000,000-device profiling runs the
-- outcome statement was about half of PostgreSQL's statement time (2.5-2.8 s of 4.9-5.3 s),
-- and the rows ~100 bytes a device (estimated) kept for the retention period. A
-- span (migration 0023) already names each outcome write's run of sent devices; with the
-- run's ids in it as one array, a broadcast writes a row per chunk, not per device. A
-- device's outcome for a message is its `deliveries` row if it has one, else `sent` if a span
-- of the message holds its id (PushPipeline's DeliverySpans.sentSQL).
ALTER TABLE delivery_spans ADD COLUMN device_ids bigint[];

-- Out of line and uncompressed: a chunk's array is 16 KB of ascending ids, written once on
-- the broadcast's path and read only by status and report lookups; compressing it would
-- save disk for CPU on every write (not measured).
ALTER TABLE delivery_spans ALTER COLUMN device_ids SET STORAGE EXTERNAL;

-- A span and its rows came from one write, at one `at` (migration 0023).
UPDATE delivery_spans s SET device_ids = coalesce((
    SELECT array_agg(x.device_id ORDER BY x.device_id) FROM deliveries x
    WHERE x.message_id = s.message_id AND x.outcome = 'sent' AND x.at = s.at AND x.device_id BETWEEN s.lo AND s.hi), '{}');
DELETE FROM delivery_spans WHERE cardinality(device_ids) = 0;
ALTER TABLE delivery_spans ALTER COLUMN device_ids SET NOT NULL;
ALTER TABLE delivery_spans ADD CHECK (cardinality(device_ids) > 0 AND device_ids[1] = lo AND device_ids[cardinality(device_ids)] = hi);

DELETE FROM deliveries WHERE outcome = 'sent';
-- The outcome's CHECK (named when migration 0020 made the table) without `sent`.
DO $$
DECLARE
    name text;
BEGIN
    FOR name IN SELECT conname FROM pg_constraint
                WHERE conrelid = 'deliveries'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%outcome%'
    LOOP
        EXECUTE format('ALTER TABLE deliveries DROP CONSTRAINT %I', name);
    END LOOP;
END
$$;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_outcome CHECK (outcome IN ('failed', 'invalidated', 'expired', 'withdrawn'));

-- A message's spans, for the lookups that know the message: a report's per-device status,
-- the devices a re-leased chunk still has to send to, a write that may repeat another's.
CREATE INDEX delivery_spans_message_ids ON delivery_spans
    USING gist (int8range(message_id, message_id, '[]'), int8range(lo, hi, '[]'));

-- Outcome writes of the chunk that committed. A holder compares it with the writes it saw
-- succeed: a write whose success was lost with its connection and is made again must skip
-- what it recorded, as a duplicate `deliveries` row used to make it do.
ALTER TABLE push_chunks ADD COLUMN writes integer NOT NULL DEFAULT 0;
