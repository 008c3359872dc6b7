import Foundation
import PostgresStore
import PushCore
import RelayCore

/// Cuts `resolving` messages (broadcasts, tag pushes) into chunks, one bounded slice per
/// transaction.
///
/// The message row is locked (`FOR UPDATE SKIP LOCKED`) for the slice, so two workers never
/// cut the same slice and a crash mid-slice leaves nothing half done: the cursor
/// (`resolve_cursor`) and the chunks it covers commit together.
struct AudienceResolver: Sendable {
    let pool: PostgresPool
    let chunkMaker: ChunkMaker
    /// Devices per slice (a multiple of the chunk size works best).
    let sliceSize: Int

    /// What one call did.
    enum Step: Equatable {
        /// A slice was made: call again.
        case made
        /// Messages wait, but each is locked right now (another worker's slice, or an
        /// outcome write updating its counters): call again shortly.
        case busy
        /// No message is waiting.
        case idle
    }

    /// Resolves one slice of the oldest message that needs it.
    func resolveNextSlice() async throws -> Step {
        // Bulk: a slice of a broadcast's audience waits behind API calls and targeted pushes.
        try await pool.withConnection(priority: .bulk) { [self] connection in
            try connection.transaction { connection in
                guard let row = try connection.query("""
                    SELECT id, app_id, body, environment, lane, resolve_cursor, accepted_at,
                           coalesce(extract(epoch FROM spread_until)::bigint - accepted_at, 0) AS spread
                    FROM messages WHERE state = 'resolving' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
                    """).first else {
                    let waiting = try connection.query("SELECT EXISTS (SELECT 1 FROM messages WHERE state = 'resolving') AS waiting")
                    return try waiting.first?.bool("waiting") == true ? .busy : .idle
                }
                let id = Int64(try row.int("id"))
                let audience: Audience
                do {
                    audience = try PushRequest.parse(Array(try row.string("body").utf8)).audience
                } catch {
                    // Accepted bodies always parse; one that no longer does (a rule tightened
                    // since) is closed rather than retried for ever.
                    try connection.query("UPDATE messages SET state = 'done', finished_at = now() WHERE id = $1", [id])
                    return .made
                }
                let message = ChunkMaker.Message(
                    id: id, appID: Int64(try row.int("app_id")), environment: try row.string("environment"),
                    lane: try row.string("lane"), audience: audience, acceptedAt: try row.int("accepted_at"),
                    spreadSeconds: try row.int("spread"))
                let slice = try chunkMaker.makeChunks(message, after: Int64(try row.int("resolve_cursor")), limit: sliceSize, on: connection)
                let complete = slice.devices < sliceSize
                // Resolved and every chunk already sent (or none made): the message is done.
                try connection.query("""
                    UPDATE messages SET target_count = target_count + $2, resolve_cursor = coalesce($3, resolve_cursor),
                           chunks_pending = chunks_pending + $5,
                           state = CASE WHEN NOT $4::boolean THEN 'resolving'
                                        WHEN chunks_pending + $5 = 0 THEN 'done' ELSE 'sending' END,
                           finished_at = CASE WHEN $4::boolean AND chunks_pending + $5 = 0 THEN now() ELSE finished_at END
                    WHERE id = $1
                    """, [id, slice.devices, slice.lastDeviceID, complete, slice.chunks])
                if slice.chunks > 0 { try connection.query(PushChannel.notify) }
                return .made
            }
        }
    }
}
