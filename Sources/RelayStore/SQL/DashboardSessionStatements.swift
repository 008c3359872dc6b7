import PostgresStore

/// Every statement on the `dashboard_sessions` table, one text each; a session is its
/// row key ($1).
enum DashboardSessionStatements {
    /// Records a new session ($2 its expiry, seconds since the epoch), sweeping the ones
    /// that have expired.
    static let open = SQLStatement("pushrelay_dashboard_session_open", """
        WITH swept AS (DELETE FROM dashboard_sessions WHERE expires_at <= now())
        INSERT INTO dashboard_sessions (session_id, expires_at) VALUES ($1, to_timestamp($2))
        """)

    static let isOpen = SQLStatement("pushrelay_dashboard_session_is_open",
                                     "SELECT 1 AS open FROM dashboard_sessions WHERE session_id = $1 AND expires_at > now()")

    static let close = SQLStatement("pushrelay_dashboard_session_close", "DELETE FROM dashboard_sessions WHERE session_id = $1")

    static let all = [open, isOpen, close]
}
