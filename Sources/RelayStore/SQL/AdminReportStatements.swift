import PostgresStore

/// The admin reports' statements (`AdminReportRepository`) but the message listing's
/// (`MessageListingStatements`, a text per filter set): a message's funnel and the delivery statistics
/// of a window, over every app or one ($4, or $3 for the failures, its app key).
enum AdminReportStatements {
    /// Message $1's summary and body.
    static let message = SQLStatement("pushrelay_admin_report_message", """
        SELECT \(MessageSummary.columns), m.body FROM messages m JOIN apps a ON a.id = m.app_id \(MessageSummary.receiptJoin)
        WHERE m.id = $1
        """)

    /// Message $1's failures by reason.
    static let messageFailures = SQLStatement("pushrelay_admin_report_message_failures",
                                              "SELECT reason, count FROM message_failures WHERE message_id = $1")

    /// Outcomes from $1 to $2 per app and bucket of $3 seconds.
    static let statsEveryApp = SQLStatement("pushrelay_admin_report_stats", """
        SELECT a.app_key, a.name, (floor(EXTRACT(EPOCH FROM s.minute) / $3) * $3)::bigint AS bucket,
               sum(s.sent) AS sent, sum(s.failed) AS failed, sum(s.invalidated) AS invalidated,
               sum(s.expired) AS expired, sum(s.withdrawn) AS withdrawn, sum(s.retries) AS retries
        FROM delivery_stats s JOIN apps a ON a.id = s.app_id
        WHERE s.minute >= $1 AND s.minute < $2
        GROUP BY 1, 2, 3 ORDER BY 1, 3
        """)

    static let statsOneApp = SQLStatement("pushrelay_admin_report_stats_app", """
        SELECT a.app_key, a.name, (floor(EXTRACT(EPOCH FROM s.minute) / $3) * $3)::bigint AS bucket,
               sum(s.sent) AS sent, sum(s.failed) AS failed, sum(s.invalidated) AS invalidated,
               sum(s.expired) AS expired, sum(s.withdrawn) AS withdrawn, sum(s.retries) AS retries
        FROM delivery_stats s JOIN apps a ON a.id = s.app_id
        WHERE s.minute >= $1 AND s.minute < $2 AND a.app_key = $4
        GROUP BY 1, 2, 3 ORDER BY 1, 3
        """)

    /// Failures from $1 to $2 per app and reason.
    static let failuresEveryApp = SQLStatement("pushrelay_admin_report_failures", """
        SELECT a.app_key, f.reason, sum(f.count) AS count
        FROM delivery_failure_stats f JOIN apps a ON a.id = f.app_id
        WHERE f.minute >= $1 AND f.minute < $2
        GROUP BY 1, 2
        """)

    static let failuresOneApp = SQLStatement("pushrelay_admin_report_failures_app", """
        SELECT a.app_key, f.reason, sum(f.count) AS count
        FROM delivery_failure_stats f JOIN apps a ON a.id = f.app_id
        WHERE f.minute >= $1 AND f.minute < $2 AND a.app_key = $3
        GROUP BY 1, 2
        """)

    static let all = [message, messageFailures, statsEveryApp, statsOneApp, failuresEveryApp, failuresOneApp]
}
