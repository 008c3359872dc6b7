import PostgresStore
import RelayCrypto

/// The `dashboard_sessions` table: which signed session cookies are still logged in. A
/// cookie with a good MAC is a session only while its row is here, so a logout ends it on
/// every API node, not just on the one that answered it.
struct DashboardSessionStore: Sendable {
    let pool: PostgresPool

    func open(_ session: DashboardSession) async throws {
        _ = try await pool.preparedQuery(DashboardSessionStatements.open, [session.id, session.expiresAt])
    }

    func isOpen(_ session: DashboardSession) async throws -> Bool {
        try await !pool.preparedQuery(DashboardSessionStatements.isOpen, [session.id]).isEmpty
    }

    func close(_ session: DashboardSession) async throws {
        _ = try await pool.preparedQuery(DashboardSessionStatements.close, [session.id])
    }
}

extension DashboardSession {
    /// The session's row key: the SHA-256 of its nonce, so the table alone makes no cookie.
    var id: String { Self.hex(Digest.sha256(Array("session-id|\(nonce)".utf8))) }
}
