-- A credential per app and APNs environment: many teams have a development certificate and
-- a production one, or separate keys. A push uses its message's environment's credential,
-- and a credential APNs refuses pauses only that environment's chunks.
--
-- Each app's single credential becomes its production credential and, copied row for row
-- (the sealed secret too: it is bound to the app key, not to the environment), its sandbox
-- credential, so every app sends exactly as before.
ALTER TABLE apns_credentials
    ADD COLUMN environment text NOT NULL DEFAULT 'production' CHECK (environment IN ('sandbox', 'production')),
    DROP CONSTRAINT apns_credentials_pkey;

INSERT INTO apns_credentials (app_id, environment, auth, topic, key_id, team_id, certificate_expires_at,
                              certificate_subject, sealed_secret, updated_at, broken_at, broken_reason)
SELECT app_id, 'sandbox', auth, topic, key_id, team_id, certificate_expires_at,
       certificate_subject, sealed_secret, updated_at, broken_at, broken_reason
FROM apns_credentials;

-- Every writer names the environment from now on.
ALTER TABLE apns_credentials
    ALTER COLUMN environment DROP DEFAULT,
    ADD PRIMARY KEY (app_id, environment);
