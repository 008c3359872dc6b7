import PostgresStore

/// The rate limit's shared request counter (`RequestCounter`, table `request_counts`).
enum RequestCountStatements {
    /// Counts $3 requests of subject $1 in the window starting at $2 (epoch seconds) and
    /// returns the window's count and start. A later window starts the count afresh; a node
    /// whose clock lags counts into the newer window it finds, so skewed clocks never reset it.
    static let take = SQLStatement("pushrelay_request_count_take", """
        INSERT INTO request_counts AS c (subject, window_start, count) VALUES ($1, $2, $3)
        ON CONFLICT (subject) DO UPDATE SET
            count = CASE WHEN excluded.window_start > c.window_start THEN excluded.count ELSE c.count + excluded.count END,
            window_start = GREATEST(c.window_start, excluded.window_start)
        RETURNING count, window_start
        """)

    /// Drops the counters of subjects idle since before $1 (epoch seconds).
    static let sweep = SQLStatement("pushrelay_request_count_sweep", "DELETE FROM request_counts WHERE window_start < $1")

    static let all = [take, sweep]
}
