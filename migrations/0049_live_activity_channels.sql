-- Live Activity broadcast channels (issue 29, iOS 18): the relay's mirror of the channels
-- it created at APNs' channel-management service for each app. A row is written only
-- after APNs created the channel and removed only after APNs deleted it (or no longer
-- knew it), so an app sees and uses exactly its own channels: every statement names the
-- app. Channels belong to one APNs environment (Apple: they are not shared across them).
CREATE TABLE live_activity_channels (
    app_id                 bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    -- APNs' id (base64), as its create answer's apns-channel-id gave it.
    channel_id             text NOT NULL CHECK (channel_id <> ''),
    environment            text NOT NULL CHECK (environment IN ('production', 'sandbox')),
    -- 0: no message stored; 1: the most recent message stored (fixed at creation).
    message_storage_policy smallint NOT NULL CHECK (message_storage_policy IN (0, 1)),
    created_at             timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, channel_id)
);
