-- The rate limit's request counter, shared by every API node (N nodes allow the limit, not N
-- times it): one row per subject (an app key, or group-<group key>) holding the count of its
-- current one-minute window, overwritten when the next window starts, so the table holds a
-- row per app or group that called the API; rows idle for an hour are swept. UNLOGGED: no
-- WAL is written per request, and a crash (or a failover) only starts the counts afresh.
CREATE UNLOGGED TABLE request_counts (
    subject      text PRIMARY KEY,
    window_start bigint NOT NULL,
    count        bigint NOT NULL
);
