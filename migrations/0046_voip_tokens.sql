-- PushKit VoIP tokens (issue 29): an iOS device may hold one beside its notification token.
-- VoIP pushes (`notification.ios.push_type: voip`) go to these tokens only, and alert and
-- background pushes to `token` only: APNs answers a token sent another kind of push 400
-- DeviceTokenNotForTopic. A VoIP token APNs refuses is cleared (with when and why) and leaves
-- the device and its notification token active.
ALTER TABLE devices
    ADD COLUMN voip_token text
        CHECK (voip_token ~ '^[0-9a-f]+$' AND length(voip_token) BETWEEN 64 AND 200 AND length(voip_token) % 2 = 0),
    ADD COLUMN voip_registered_at timestamptz,
    ADD COLUMN voip_invalidated_at timestamptz,
    ADD COLUMN voip_invalidation_reason text,
    ADD CONSTRAINT devices_voip_token_ios CHECK (voip_token IS NULL OR platform = 'ios');

-- VoIP audiences: an app's active devices of one environment holding a VoIP token, in id order.
CREATE INDEX devices_fanout_voip ON devices (app_id, environment, id) WHERE active AND voip_token IS NOT NULL;
-- A VoIP token registered again (or moved to another device of the app).
CREATE INDEX devices_voip_token ON devices (app_id, voip_token) WHERE voip_token IS NOT NULL;

-- A chunk of VoIP tokens is sent through APNs with the app's APNs credential, like an iOS one.
ALTER TABLE push_chunks DROP CONSTRAINT push_chunks_platform_check,
    ADD CONSTRAINT push_chunks_platform_check CHECK (platform IN ('ios', 'android', 'voip'));
ALTER TABLE messages DROP CONSTRAINT messages_resolve_platform_check,
    ADD CONSTRAINT messages_resolve_platform_check CHECK (resolve_platform IN ('ios', 'android', 'all', 'voip'));
