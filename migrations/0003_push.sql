-- The push pipeline: messages accepted by /v3/push, their audience cut into chunks that
-- workers lease, one outcome per (message, device), and counters kept as outcomes arrive
-- so reports never count rows.

CREATE TABLE messages (
    -- The msg_id: PushCore's MessageIDGenerator (time-ordered, 63 bits).
    id                  bigint PRIMARY KEY CHECK (id > 0),
    app_id              bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    -- Idempotency key: the same cid for the same app answers the first result.
    cid                 text,
    sendno              bigint NOT NULL DEFAULT 0,
    -- The push body as accepted; PushCore's PushRequest.parse rebuilds the request from it.
    body                text NOT NULL,
    environment         text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    -- 'targeted' (alias / registration_id audiences) never waits behind 'broadcast'.
    lane                text NOT NULL CHECK (lane IN ('targeted', 'broadcast')),
    -- resolving: the audience is being cut into chunks (resolve_cursor is the keyset
    -- position in device ids); sending: every chunk exists; done / withdrawn: final.
    state               text NOT NULL DEFAULT 'resolving'
                        CHECK (state IN ('resolving', 'sending', 'done', 'withdrawn')),
    resolve_cursor      bigint NOT NULL DEFAULT 0,
    resolve_lease_owner text,
    resolve_lease_expires_at timestamptz,
    -- Unix seconds the push was accepted (PushCore's acceptedAt), and the APNs expiration
    -- derived from it; no send or retry happens after expires_at.
    accepted_at         bigint NOT NULL,
    expires_at          timestamptz NOT NULL,
    -- big_push_duration: chunks are spread until this time.
    spread_until        timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    finished_at         timestamptz,
    -- Counters, updated in the same transaction as the outcomes they count.
    target_count        bigint NOT NULL DEFAULT 0,
    sent_count          bigint NOT NULL DEFAULT 0,
    failed_count        bigint NOT NULL DEFAULT 0,
    invalidated_count   bigint NOT NULL DEFAULT 0,
    expired_count       bigint NOT NULL DEFAULT 0,
    retry_count         bigint NOT NULL DEFAULT 0,
    first_sent_at       timestamptz,
    last_sent_at        timestamptz,
    UNIQUE (app_id, cid)
);
-- Admin listing and reports by app, newest first.
CREATE INDEX messages_app ON messages (app_id, id DESC);
-- Messages whose audience is still being resolved.
CREATE INDEX messages_resolving ON messages (id) WHERE state = 'resolving';

-- Failures by APNs reason (or our own: Expired, NoCredentials, …) per message.
CREATE TABLE message_failures (
    message_id          bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    reason              text NOT NULL,
    count               bigint NOT NULL,
    PRIMARY KEY (message_id, reason)
);

-- A slice of one message's audience: up to a few thousand device ids, leased by one
-- worker at a time (FOR UPDATE SKIP LOCKED and a lease deadline). A chunk whose lease
-- expires is leased again, and only its devices without an outcome are sent.
CREATE TABLE push_chunks (
    id                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id          bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    app_id              bigint NOT NULL,
    lane                text NOT NULL CHECK (lane IN ('targeted', 'broadcast')),
    device_ids          bigint[] NOT NULL,
    state               text NOT NULL DEFAULT 'ready' CHECK (state IN ('ready', 'leased', 'done')),
    -- Not leased before this: spreading (big_push_duration) and retry backoff.
    available_at        timestamptz NOT NULL DEFAULT now(),
    lease_owner         text,
    lease_expires_at    timestamptz,
    -- Leases taken so far; more than one means a re-send (collapse id on every send).
    leases              integer NOT NULL DEFAULT 0
);
CREATE INDEX push_chunks_ready ON push_chunks (lane, available_at, id) WHERE state = 'ready';
CREATE INDEX push_chunks_leased ON push_chunks (lease_expires_at) WHERE state = 'leased';
CREATE INDEX push_chunks_message ON push_chunks (message_id) WHERE state <> 'done';

-- The outcome of one message for one device. No foreign key to devices: a device deleted
-- later keeps its record.
CREATE TABLE deliveries (
    message_id          bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
    device_id           bigint NOT NULL,
    -- sent (accepted by APNs), failed, invalidated (the token is dead), expired, withdrawn
    outcome             text NOT NULL CHECK (outcome IN ('sent', 'failed', 'invalidated', 'expired', 'withdrawn')),
    reason              text,
    attempts            integer NOT NULL DEFAULT 1,
    at                  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (message_id, device_id)
);

-- Credentials APNs refused (InvalidProviderToken, BadCertificate, …): the app's deliveries
-- pause until a new credential is uploaded.
ALTER TABLE apns_credentials
    ADD COLUMN broken_at timestamptz,
    ADD COLUMN broken_reason text;
