-- An app's own /v3 request limit per minute; NULL takes the relay's default
-- (PUSHRELAY_RATE_LIMIT_PER_MINUTE).
ALTER TABLE apps ADD COLUMN rate_limit_per_minute integer
    CHECK (rate_limit_per_minute IS NULL OR rate_limit_per_minute BETWEEN 1 AND 1000000000);
