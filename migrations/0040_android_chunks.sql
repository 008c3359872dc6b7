-- Android delivery beside iOS: a chunk holds the devices of one platform, sent through its
-- service (APNs for iOS, FCM for Android) with that service's credential.
ALTER TABLE push_chunks
    ADD COLUMN platform text NOT NULL DEFAULT 'ios' CHECK (platform IN ('ios', 'android'));

-- Which devices a resolving message's cursor walks: 'ios' (the message's environment),
-- 'android', or 'all' (both in one pass: a targeted push's few devices). A broadcast to both
-- platforms walks iOS, then Android from the start.
ALTER TABLE messages
    ADD COLUMN resolve_platform text NOT NULL DEFAULT 'ios' CHECK (resolve_platform IN ('ios', 'android', 'all'));
