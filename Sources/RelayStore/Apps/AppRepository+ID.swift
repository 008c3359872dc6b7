import PostgresStore

extension AppRepository {
    /// The app's row id, which device queries are keyed on; nil when there is no such app.
    public func id(appKey: String) async throws -> Int64? {
        try await pool.preparedQuery(AppStatements.id, [appKey]).first.map { Int64(try $0.int("id")) }
    }
}
