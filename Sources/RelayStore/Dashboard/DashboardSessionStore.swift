import PostgresStore

/// The `dashboard_sessions` table: which signed session cookies are still logged in. A
/// cookie with a good MAC is a session only while its row (keyed by the session's id) is
/// here, so a logout ends it on every API node, not just on the one that answered it.
public struct DashboardSessionStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// - Parameter expiresAt: seconds since the epoch.
    public func open(id: String, expiresAt: Int64) async throws {
        _ = try await pool.preparedQuery(DashboardSessionStatements.open, [id, expiresAt])
    }

    public func isOpen(id: String) async throws -> Bool {
        try await !pool.preparedQuery(DashboardSessionStatements.isOpen, [id]).isEmpty
    }

    public func close(id: String) async throws {
        _ = try await pool.preparedQuery(DashboardSessionStatements.close, [id])
    }
}
