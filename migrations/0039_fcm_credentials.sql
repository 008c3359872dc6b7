-- An app's FCM credential: the Firebase service-account key file, checked and sealed
-- (AES-256-GCM, bound to the app key) like APNs keys; the rest is metadata the API may show.
-- FCM has no environments: one credential per app. A credential FCM's token endpoint or
-- send endpoint refuses is marked broken, and the app's Android chunks wait for a new one.
CREATE TABLE fcm_credentials (
    app_id              bigint PRIMARY KEY REFERENCES apps(id) ON DELETE CASCADE,
    project_id          text NOT NULL CHECK (project_id <> ''),
    client_email        text NOT NULL CHECK (client_email <> ''),
    private_key_id      text NOT NULL,
    token_uri           text NOT NULL,
    sealed_secret       bytea NOT NULL,
    updated_at          timestamptz NOT NULL DEFAULT now(),
    broken_at           timestamptz,
    broken_reason       text
);
