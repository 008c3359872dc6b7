import PostgresStore

/// The statement behind `PUT /admin/v1/apps/{app_key}/rate_limit`.
enum AppRateLimitStatements {
    /// App key $1's limit per minute becomes $2 (NULL: the default); no row when there is no such app.
    static let set = SQLStatement("pushrelay_app_rate_limit_set",
                                  "UPDATE apps SET rate_limit_per_minute = $2 WHERE app_key = $1 RETURNING app_key")

    static let all = [set]
}
