-- Client keys (issue 28): a credential an app may ship inside its binary. It can only register
-- a device (POST /client/v1/devices), which answers that device's own secret; the secret then
-- acts for that one device. Both are shown once and kept as SecretHasher hashes, like master
-- secrets. A client key is `ck_<key_id>_<secret>`: key_id (public, random) finds the row, the
-- secret is checked against secret_hash.
CREATE TABLE client_keys (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    app_id       bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    key_id       text NOT NULL UNIQUE CHECK (key_id ~ '^[0-9a-f]{16}$'),
    name         text NOT NULL CHECK (name <> ''),
    secret_hash  text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    -- Set once: a revoked key is refused by the next request on every node (each request
    -- reads its row); kept for the listing.
    revoked_at   timestamptz,
    -- The last registration through the key, written at most once a minute.
    last_used_at timestamptz
);
-- The admin listing of one app's keys, oldest first.
CREATE INDEX client_keys_app ON client_keys (app_id, id);

-- The secret of a device registered through a client key (one per device; registering the
-- token again replaces it). A device unregistering itself drops its row.
CREATE TABLE device_secrets (
    app_id        bigint NOT NULL,
    device_id     bigint NOT NULL,
    client_key_id bigint REFERENCES client_keys(id) ON DELETE SET NULL,
    secret_hash   text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, device_id),
    FOREIGN KEY (app_id, device_id) REFERENCES devices (app_id, id) ON DELETE CASCADE
);
-- What ON DELETE SET NULL of a client key would look up.
CREATE INDEX device_secrets_client_key ON device_secrets (client_key_id) WHERE client_key_id IS NOT NULL;
