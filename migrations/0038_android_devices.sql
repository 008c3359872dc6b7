-- Android devices beside iOS ones: a device's platform says which push service its token
-- belongs to (APNs for iOS, FCM for Android). An FCM registration token is opaque text
-- (letters, digits, `-_:`; up to 4 KB), and has no APNs environment: an Android device's
-- environment is NULL, so every iOS audience (`environment = $n`, index devices_fanout)
-- leaves Android devices out without a further condition.
ALTER TABLE devices
    ADD COLUMN platform text NOT NULL DEFAULT 'ios' CHECK (platform IN ('ios', 'android')),
    ALTER COLUMN environment DROP NOT NULL,
    DROP CONSTRAINT devices_token_check,
    DROP CONSTRAINT devices_environment_check;

ALTER TABLE devices
    ADD CONSTRAINT devices_token_check CHECK (CASE platform
        WHEN 'ios' THEN token ~ '^[0-9a-f]+$' AND length(token) BETWEEN 64 AND 200 AND length(token) % 2 = 0
        ELSE token ~ '^[A-Za-z0-9_:-]+$' AND octet_length(token) BETWEEN 1 AND 4096 END),
    ADD CONSTRAINT devices_environment_check CHECK (CASE platform
        WHEN 'ios' THEN environment IN ('sandbox', 'production')
        ELSE environment IS NULL END);

-- Android audiences: an app's active Android devices in id order (keyset chunks).
CREATE INDEX devices_fanout_android ON devices (app_id, id) WHERE active AND platform = 'android';
