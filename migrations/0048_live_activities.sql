-- Live Activities (issue 29): ActivityKit push tokens, each activity's state and pacing, and the
-- messages sent to it. A Live Activity push is a message like any other (msg_id, chunks, leases,
-- retries, outcomes): its chunks' platform says which tokens they carry.

-- Push-to-start tokens (iOS 17.2+): one per device and ActivityAttributes type; a new one
-- replaces the old. A start to an audience reaches the devices holding one for its type.
CREATE TABLE live_activity_start_tokens (
    app_id          bigint NOT NULL,
    device_id       bigint NOT NULL,
    attributes_type text NOT NULL CHECK (attributes_type <> ''),
    token           text NOT NULL CHECK (token ~ '^[0-9a-f]+$' AND length(token) BETWEEN 64 AND 200 AND length(token) % 2 = 0),
    registered_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, device_id, attributes_type),
    FOREIGN KEY (app_id, device_id) REFERENCES devices (app_id, id) ON DELETE CASCADE
);

-- Update tokens: one per activity and device (the device rotates it: a new one replaces the
-- old), with the activity's state on that device as the device last reported it. Updates and
-- ends go to the active and stale ones; ended and dismissed activities are not pushed. A token
-- APNs refuses (410, BadDeviceToken) is deleted.
CREATE TABLE live_activity_tokens (
    app_id        bigint NOT NULL,
    activity_id   text NOT NULL,
    device_id     bigint NOT NULL,
    token         text CHECK (token ~ '^[0-9a-f]+$' AND length(token) BETWEEN 64 AND 200 AND length(token) % 2 = 0),
    state         text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'ended', 'dismissed', 'stale')),
    registered_at timestamptz NOT NULL DEFAULT now(),
    state_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, activity_id, device_id),
    FOREIGN KEY (app_id, device_id) REFERENCES devices (app_id, id) ON DELETE CASCADE
);
-- A deleted device's tokens go with it.
CREATE INDEX live_activity_tokens_device ON live_activity_tokens (app_id, device_id);

-- One row per activity the app sent to: the pacing of its updates (LiveActivityPacer: when the
-- latest went or goes out, Unix ms, and the message waiting for that turn).
CREATE TABLE live_activities (
    app_id             bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    activity_id        text NOT NULL,
    attributes_type    text,
    last_due_at        bigint,
    waiting_message_id bigint,
    created_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, activity_id)
);
-- The dashboard's latest activities of an app.
CREATE INDEX live_activities_recent ON live_activities (app_id, created_at);

-- The messages of each activity, for its report (GET /v3/live-activities/{activity_id}).
CREATE TABLE live_activity_messages (
    app_id      bigint NOT NULL,
    activity_id text NOT NULL,
    message_id  bigint NOT NULL,
    event       text NOT NULL CHECK (event IN ('start', 'update', 'end')),
    send_at     timestamptz NOT NULL,
    PRIMARY KEY (app_id, activity_id, message_id),
    FOREIGN KEY (app_id, activity_id) REFERENCES live_activities (app_id, activity_id) ON DELETE CASCADE
);

-- 'la_start': devices' push-to-start tokens of the message's attributes type; 'la_update': the
-- message's activity's update tokens. Both through APNs with the app's APNs credential. The
-- lists name migration 0050's token kinds too (location, complication, fileprovider,
-- pushtotalk), so either migration may run last.
ALTER TABLE push_chunks DROP CONSTRAINT push_chunks_platform_check,
    ADD CONSTRAINT push_chunks_platform_check CHECK (platform IN (
        'ios', 'android', 'voip', 'la_start', 'la_update', 'location', 'complication', 'fileprovider', 'pushtotalk'));
ALTER TABLE messages DROP CONSTRAINT messages_resolve_platform_check,
    ADD CONSTRAINT messages_resolve_platform_check CHECK (resolve_platform IN (
        'ios', 'android', 'all', 'voip', 'la_start', 'la_update', 'location', 'complication', 'fileprovider', 'pushtotalk'));
