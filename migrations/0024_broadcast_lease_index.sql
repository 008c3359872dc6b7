-- The broadcast lane is leased in (app, message, chunk) order, round-robin over apps from
-- the app served last. push_chunks_ready (lane, available_at, id) does not have that
-- order, so every lease sorted all of the lane's ready chunks: ~1 ms a lease with a
-- 1,000,000-device broadcast's 2,000 chunks ready, a tenth of the broadcast's database
-- time. With this index a lease reads the first unlocked entry (ChunkQueue.leaseSQL).
CREATE INDEX push_chunks_ready_broadcast ON push_chunks (app_id, message_id, id) WHERE state = 'ready' AND lane = 'broadcast';
