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

    /// Resolves one slice of the oldest message that needs it.
    ///
    /// - Returns: true when a slice was made (call again), false when no message is waiting.
    func resolveNextSlice() async throws -> Bool {
        try await pool.withConnection { [self] connection in
            try connection.transaction { connection in
                guard let row = try connection.query("""
                    SELECT id, app_id, body, environment, lane, resolve_cursor, accepted_at,
                           coalesce(extract(epoch FROM spread_until)::bigint - accepted_at, 0) AS spread
                    FROM messages WHERE state = 'resolving' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
                    """).first else { return false }
                let id = Int64(try row.int("id"))
                let audience: Audience
                do {
                    audience = try PushRequest.parse(Array(try row.string("body").utf8)).audience
                } catch {
                    // Accepted bodies always parse; one that no longer does (a rule tightened
                    // since) is closed rather than retried for ever.
                    try connection.query("UPDATE messages SET state = 'done', finished_at = now() WHERE id = $1", [id])
                    return true
                }
                let message = ChunkMaker.Message(
                    id: id, appID: Int64(try row.int("app_id")), environment: try row.string("environment"),
                    lane: try row.string("lane"), audience: audience, acceptedAt: try row.int("accepted_at"),
                    spreadSeconds: try row.int("spread"))
                let slice = try chunkMaker.makeChunks(message, after: Int64(try row.int("resolve_cursor")), limit: sliceSize, on: connection)
                let complete = slice.devices < sliceSize
                try connection.query("""
                    UPDATE messages SET target_count = target_count + $2, resolve_cursor = coalesce($3, resolve_cursor),
                           state = CASE WHEN $4::boolean THEN 'sending' ELSE 'resolving' END
                    WHERE id = $1
                    """, [id, slice.devices, slice.lastDeviceID, complete])
                if complete { try MessageCompletion.finishIfDone(messageID: id, on: connection) }
                if slice.chunks > 0 { try connection.query(PushChannel.notify) }
                return true
            }
        }
    }
}

/// A message is done when its audience is resolved and every chunk is done.
enum MessageCompletion {
    /// Marks the message done when nothing is left. Run it after the statement that locked
    /// the message row in the same transaction, so two workers finishing the last two chunks
    /// at once cannot both miss it (the second one's statement sees the first one's commit).
    static func finishIfDone(messageID: Int64, on connection: PostgresConnection) throws {
        try connection.query("""
            UPDATE messages SET state = 'done', finished_at = now()
            WHERE id = $1 AND state = 'sending'
              AND NOT EXISTS (SELECT 1 FROM push_chunks WHERE message_id = $1 AND state <> 'done')
            """, [messageID])
    }
}
