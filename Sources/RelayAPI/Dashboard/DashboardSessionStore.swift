import PostgresStore
import RelayCrypto

/// The `dashboard_sessions` table: which signed session cookies are still logged in. A
/// cookie with a good MAC is a session only while its row is here, so a logout ends it on
/// every API node, not just on the one that answered it.
struct DashboardSessionStore: Sendable {
    let pool: PostgresPool

    /// Records a new session, sweeping the ones that have expired.
    static let openSQL = """
        WITH swept AS (DELETE FROM dashboard_sessions WHERE expires_at <= now())
        INSERT INTO dashboard_sessions (session_id, expires_at) VALUES ($1, to_timestamp($2))
        """
    static let isOpenSQL = "SELECT 1 AS open FROM dashboard_sessions WHERE session_id = $1 AND expires_at > now()"
    static let closeSQL = "DELETE FROM dashboard_sessions WHERE session_id = $1"

    func open(_ session: DashboardSession) async throws {
        _ = try await pool.preparedQuery("pushrelay_dashboard_session_open", Self.openSQL, [session.id, session.expiresAt])
    }

    func isOpen(_ session: DashboardSession) async throws -> Bool {
        try await !pool.preparedQuery("pushrelay_dashboard_session_is_open", Self.isOpenSQL, [session.id]).isEmpty
    }

    func close(_ session: DashboardSession) async throws {
        _ = try await pool.preparedQuery("pushrelay_dashboard_session_close", Self.closeSQL, [session.id])
    }
}

extension DashboardSession {
    /// The session's row key: the SHA-256 of its nonce, so the table alone makes no cookie.
    var id: String { Self.hex(Digest.sha256(Array("session-id|\(nonce)".utf8))) }
}
