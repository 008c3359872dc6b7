import Foundation
import PostgresStore

/// The `push_chunks` queue: lease with `FOR UPDATE SKIP LOCKED` and a deadline, release for
/// a later retry, finish, and take back the chunks of workers that went silent.
struct ChunkQueue: Sendable {
    let pool: PostgresPool
    /// Who holds a lease (host, pid and a random part).
    let owner: String
    let leaseSeconds: Int

    /// Leases the next ready chunk of a lane, skipping those whose credential is broken (the
    /// app's APNs one for the message's environment, or its FCM one for Android chunks).
    ///
    /// Targeted chunks go oldest first. Broadcast chunks go round-robin over apps: the next
    /// app id after `afterApp` first, then around, and within an app the oldest message first.
    func lease(_ lane: Lane, afterApp: Int64) async throws -> LeasedChunk? {
        let rows = try await pool.preparedQuery(LeaseStatements.lease(lane), [owner, Double(leaseSeconds)] + (lane == .broadcast ? [afterApp] : []),
                                                priority: lane == .broadcast ? .bulk : .normal)
        // The targeted lane's rows also read the chunk's devices (`LeaseStatements.leasedRows`).
        guard let row = rows.first(where: { $0["chunk_id"] != nil }) else { return nil }
        return LeasedChunk(id: Int64(try row.int("chunk_id")), messageID: Int64(try row.int("message_id")),
                           appID: Int64(try row.int("app_id")), lane: lane, leases: try row.int("leases"),
                           platform: try row.value("platform"))
    }

    /// Gives a chunk back, to be leased again after `delay` (retries, a paused app).
    func release(_ chunk: LeasedChunk, after delay: Duration) async throws {
        try await pool.preparedQuery(LeaseStatements.release, [chunk.id, owner, Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18], priority: chunk.priority)
    }

    /// Pushes the lease deadlines out while the chunks are still being worked on (`LeaseKeeper`).
    func extend(_ chunks: [Int64]) async throws {
        try await pool.preparedQuery(LeaseStatements.extend, [SQLArray.bigint(chunks), owner, Double(leaseSeconds)])
    }

    /// Makes the chunks whose lease ran out ready again (their worker died or hung).
    ///
    /// - Returns: how many were taken back.
    @discardableResult
    func reclaimExpired() async throws -> Int {
        try await pool.preparedQuery(LeaseStatements.reclaimExpired).affectedRows
    }
}
