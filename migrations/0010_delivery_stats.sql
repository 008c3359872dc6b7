-- Rollups for admin reports: outcomes per app and minute, and non-sent outcomes per app,
-- minute and reason. The pipeline's outcome-writing statement adds to them in the same
-- transaction as the deliveries it counts, so a window of any length is a range of a few
-- rows per minute, never a count of deliveries.
CREATE TABLE delivery_stats (
    app_id              bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    minute              timestamptz NOT NULL,
    sent                bigint NOT NULL DEFAULT 0,
    failed              bigint NOT NULL DEFAULT 0,
    invalidated         bigint NOT NULL DEFAULT 0,
    expired             bigint NOT NULL DEFAULT 0,
    withdrawn           bigint NOT NULL DEFAULT 0,
    retries             bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (app_id, minute)
);
-- Windows across every app.
CREATE INDEX delivery_stats_minute ON delivery_stats (minute);

CREATE TABLE delivery_failure_stats (
    app_id              bigint NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
    minute              timestamptz NOT NULL,
    reason              text NOT NULL,
    count               bigint NOT NULL,
    PRIMARY KEY (app_id, minute, reason)
);
CREATE INDEX delivery_failure_stats_minute ON delivery_failure_stats (minute);

-- GET /v3/users: devices registered per hour, day or month of one app.
CREATE INDEX devices_created ON devices (app_id, created_at);
