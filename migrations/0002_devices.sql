-- The device registry: each app's APNs tokens, their tags, alias, badge and state.
--
-- Built for the fan-out: "every active device of app X in environment E", "tag A or B and
-- not C" and "alias in (…)" are each one index range, read in chunks by keyset on
-- devices.id (WHERE id > $last ORDER BY id LIMIT n), never by OFFSET.
CREATE TABLE devices (
    id                  bigint GENERATED ALWAYS AS IDENTITY,
    app_id              bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    -- What JPush calls the registration id: random (122 bits), so it cannot be guessed
    -- from another app's ids; shown as 32 lowercase hex digits.
    registration_id     uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    -- Lowercase hex, normalised by the API.
    token               text NOT NULL CHECK (token ~ '^[0-9a-f]+$' AND length(token) BETWEEN 64 AND 200 AND length(token) % 2 = 0),
    environment         text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    alias               text CHECK (alias <> ''),
    mobile              text CHECK (mobile <> ''),
    -- The badge the app shows now; "+N" pushes add to it, the device API resets it.
    badge               integer NOT NULL DEFAULT 0 CHECK (badge >= 0),
    -- false once APNs said the token is dead; a new registration of the token revives it.
    active              boolean NOT NULL DEFAULT true,
    created_at          timestamptz NOT NULL DEFAULT now(),
    -- The last registration: a 410 whose APNs timestamp is older does not invalidate.
    registered_at       timestamptz NOT NULL DEFAULT now(),
    -- Registered or delivered to; "online" is within the last 10 minutes.
    last_seen_at        timestamptz NOT NULL DEFAULT now(),
    -- The last invalidation (kept after a revival, for the record) and the last revival.
    invalidated_at      timestamptz,
    invalidation_reason text,
    apns_invalidated_at timestamptz,
    reactivated_at      timestamptz,
    -- Keyed by app first: the admin listing's keyset, and the target of device_tags' key.
    PRIMARY KEY (app_id, id),
    UNIQUE (app_id, token),
    CHECK (active OR (invalidated_at IS NOT NULL AND invalidation_reason IS NOT NULL))
);

-- Broadcasts: active devices of one app and environment, in id order.
CREATE INDEX devices_fanout ON devices (app_id, environment, id) WHERE active;
-- Alias lookups and alias audiences.
CREATE INDEX devices_alias ON devices (app_id, alias, id) WHERE alias IS NOT NULL;

-- Tags: one row per (tag, device). app_id is repeated here so that a tag's devices are one
-- range of the primary key, already in device id order (what chunked fan-out reads); the
-- foreign key includes it, so a tag row cannot point at another app's device.
CREATE TABLE device_tags (
    app_id              bigint NOT NULL,
    tag                 text NOT NULL CHECK (tag <> ''),
    device_id           bigint NOT NULL,
    PRIMARY KEY (app_id, tag, device_id),
    FOREIGN KEY (app_id, device_id) REFERENCES devices (app_id, id) ON DELETE CASCADE
);
-- A device's tags, and the cascade when a device goes.
CREATE INDEX device_tags_device ON device_tags (device_id);
