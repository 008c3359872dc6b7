-- The other kinds of token an iOS device may hold beside its notification token (issue 29):
-- the location push service extension's, PushKit's complication and File Provider tokens, and
-- Push to Talk's ephemeral token. One row per device and kind; a push of that type
-- (`notification.ios.push_type`) goes to these tokens only, and APNs refusing one drops that
-- row only (the device and its other tokens stay). VoIP tokens keep their columns on devices
-- (migration 0046); docs/api.md, "Other token kinds", says why.
CREATE TABLE device_push_tokens (
    app_id        bigint NOT NULL,
    device_id     bigint NOT NULL,
    kind          text NOT NULL CHECK (kind IN ('location', 'complication', 'fileprovider', 'pushtotalk')),
    token         text NOT NULL CHECK (token ~ '^[0-9a-f]+$' AND length(token) BETWEEN 64 AND 200 AND length(token) % 2 = 0),
    -- A refusal whose APNs timestamp is older than this does not drop the token.
    registered_at timestamptz NOT NULL DEFAULT now(),
    -- A kind's devices in id order (a push's walk and its probe per device), by app.
    PRIMARY KEY (app_id, kind, device_id),
    FOREIGN KEY (app_id, device_id) REFERENCES devices (app_id, id) ON DELETE CASCADE
);
-- A token registered again (or moved to another device of the app).
CREATE INDEX device_push_tokens_token ON device_push_tokens (app_id, kind, token);
-- A device's tokens (the admin answer) and the cascade when a device goes.
CREATE INDEX device_push_tokens_device ON device_push_tokens (device_id);

-- A chunk of one kind's tokens is sent through APNs with the app's APNs credential, like an
-- iOS one; its platform is the kind. ('la_start' and 'la_update' are Live Activity chunks,
-- migration 0048: both migrations list every value, so they agree whatever order they land in.)
ALTER TABLE push_chunks DROP CONSTRAINT push_chunks_platform_check,
    ADD CONSTRAINT push_chunks_platform_check
        CHECK (platform IN ('ios', 'android', 'voip', 'la_start', 'la_update', 'location', 'complication', 'fileprovider', 'pushtotalk'));
ALTER TABLE messages DROP CONSTRAINT messages_resolve_platform_check,
    ADD CONSTRAINT messages_resolve_platform_check
        CHECK (resolve_platform IN ('ios', 'android', 'all', 'voip', 'la_start', 'la_update', 'location', 'complication', 'fileprovider', 'pushtotalk'));
