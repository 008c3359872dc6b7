import PostgresStore

/// The readings `GET /metrics` takes from the database at each scrape.
enum MetricsStatements {
    /// The push queue per lane: chunks ready, delayed and leased, and how long the oldest
    /// ready one has waited (seconds).
    static let queue = SQLStatement("pushrelay_metrics_queue", """
        SELECT lane,
               count(*) FILTER (WHERE state = 'ready' AND available_at <= now()) AS ready,
               count(*) FILTER (WHERE state = 'ready' AND available_at > now()) AS delayed,
               count(*) FILTER (WHERE state = 'leased') AS leased,
               coalesce(EXTRACT(EPOCH FROM now() - min(available_at) FILTER (WHERE state = 'ready' AND available_at <= now())), 0)
                   AS oldest
        FROM push_chunks WHERE state <> 'done' GROUP BY lane
        """)

    /// The messages being resolved or sent, per state.
    static let messagesInProgress = SQLStatement("pushrelay_metrics_messages_in_progress", """
        SELECT state, count(*) AS n FROM messages WHERE state IN ('resolving', 'sending') GROUP BY state
        """)

    static let all = [queue, messagesInProgress]
}
