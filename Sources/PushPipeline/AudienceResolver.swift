import Foundation
import PostgresStore
import PushCore
import RelayCore

/// Cuts `resolving` messages (broadcasts, tag pushes) into chunks, one bounded slice per
/// transaction.
///
/// A resolver holds the message (an advisory lock for the transaction) while it cuts a
/// slice, so two workers never cut the same slice, and a crash mid-slice leaves nothing half
/// done: the cursor (`resolve_cursor`) and the chunks it covers commit together.
struct AudienceResolver: Sendable {
    let pool: PostgresPool
    let chunkMaker: ChunkMaker
    /// Devices per slice but the first, which is one chunk (a multiple of the chunk size
    /// works best).
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
    ///
    /// Resolvers exclude each other per message with a transaction-scoped advisory lock, not
    /// with the message row's lock: outcome writers update that row (its counters) all the
    /// time, and would wait for the whole slice. The row is locked only by the slice's last
    /// statement.
    func resolveNextSlice() async throws -> Step {
        // Bulk: a slice of a broadcast's audience waits behind API calls and targeted pushes.
        do {
            return try await pool.withConnection(priority: .bulk) { [self] connection in
                try connection.transaction { connection in try resolveSlice(on: connection) }
            }
        } catch is SliceAbandoned {
            return .made
        }
    }

    /// The message was withdrawn (or finished) while its slice was being cut: the slice is
    /// rolled back.
    private struct SliceAbandoned: Error {}

    private func resolveSlice(on connection: PostgresConnection) throws -> Step {
        // The first waiting message no other resolver holds (the limit bounds the locks tried).
        guard let claimed = try connection.preparedQuery(AudienceStatements.claimResolving).first else {
            let waiting = try connection.preparedQuery(AudienceStatements.anyResolving)
            return try waiting.first?.bool("waiting") == true ? .busy : .idle
        }
        // Read after taking the lock, so the cursor is the one the last resolver committed.
        guard let row = try connection.preparedQuery(AudienceStatements.resolvingMessage, [Int64(try claimed.int("id"))]).first else { return .made }
        let id = Int64(try row.int("id"))
        let request: PushRequest
        do {
            request = try PushRequest.parseStored(Array(try row.string("body").utf8))
        } catch {
            // Accepted bodies always parse; one that no longer does (a rule tightened
            // since) is closed rather than retried for ever.
            try connection.preparedQuery(AudienceStatements.closeUnparsable, [id])
            return .made
        }
        let platforms: AudiencePlatforms = try row.value("resolve_platform")
        let message = ChunkMaker.Message(
            id: id, appID: Int64(try row.int("app_id")), environment: try row.string("environment"), platforms: platforms,
            lane: try row.string("lane"), audience: request.audience, acceptedAt: try row.int("accepted_at"),
            spreadSeconds: try row.int("spread"))
        // A message's first slice is one chunk: its first notifications go out while the
        // rest is cut (a whole slice of a broadcast took ~17 ms before anything was sent).
        let cursor = Int64(try row.int("resolve_cursor"))
        let limit = cursor == 0 ? chunkMaker.chunkSize : sliceSize
        let slice = try chunkMaker.makeChunks(message, after: cursor, limit: limit, on: connection)
        // A broadcast to both platforms walks its Android devices once its iOS ones are cut.
        let passDone = slice.devices < limit
        let next: AudiencePlatforms? = passDone && platforms == .ios && request.deliversToAndroid ? .android : nil
        let complete = passDone && next == nil
        // Resolved and every chunk already sent (or none made): the message is done.
        let updated = try connection.preparedQuery(AudienceStatements.advanceResolving,
                                                   [id, slice.devices, slice.lastDeviceID, complete, slice.chunks, next?.rawValue, slice.android])
        // Withdrawn meanwhile: its chunks must not exist.
        guard !updated.isEmpty else { throw SliceAbandoned() }
        if slice.chunks > 0 { try connection.query(PushChannel.notify) }
        return .made
    }
}
