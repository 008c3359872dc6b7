-- Apps sharing the relay, and their APNs credentials.
CREATE TABLE apps (
    id                  bigserial PRIMARY KEY,
    app_key             text NOT NULL UNIQUE CHECK (app_key ~ '^[0-9a-f]{24}$'),
    name                text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
    secret_hash         text NOT NULL,
    secret_rotated_at   timestamptz NOT NULL DEFAULT now(),
    created_at          timestamptz NOT NULL DEFAULT now()
);

-- One APNs credential per app. Secret material is sealed (AES-256-GCM); the rest is
-- metadata the API may show.
CREATE TABLE apns_credentials (
    app_id              bigint PRIMARY KEY REFERENCES apps(id) ON DELETE CASCADE,
    auth                text NOT NULL CHECK (auth IN ('token', 'certificate')),
    topic               text NOT NULL,
    key_id              text,
    team_id             text,
    certificate_expires_at timestamptz,
    certificate_subject text,
    sealed_secret       bytea NOT NULL,
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CHECK (auth <> 'token' OR (key_id IS NOT NULL AND team_id IS NOT NULL)),
    CHECK (auth <> 'certificate' OR certificate_expires_at IS NOT NULL)
);
