import Foundation
import PostgresStore
import PushCore

/// Cuts the next slice of a message's audience into push chunks: one statement
/// (`AudienceStatements.makeChunks`) that reads device ids by keyset (`d.id > cursor ORDER BY
/// d.id LIMIT n`) and inserts them as chunks of `chunkSize`, so the audience never passes
/// through memory.
struct ChunkMaker {
    var chunkSize: Int

    /// What one slice made.
    struct Slice: Equatable {
        var devices: Int
        /// Of `devices`, the Android ones.
        var android: Int
        var chunks: Int
        /// The highest device id taken: the next cursor.
        var lastDeviceID: Int64?
    }

    /// The message whose audience is cut.
    struct Message {
        var id: Int64
        var appID: Int64
        var environment: String
        /// The devices this pass walks (`resolve_platform`).
        var platforms: AudiencePlatforms
        var lane: String
        var audience: Audience
        /// Unix seconds the push was accepted; spreading starts there.
        var acceptedAt: Int
        /// `big_push_duration` in seconds; 0 makes every chunk available at once.
        var spreadSeconds: Int
    }

    /// Makes chunks from the devices after `cursor`, at most `limit` devices.
    ///
    /// With spreading, a chunk becomes available at `acceptedAt` plus the duration scaled by
    /// where its first device id lies in the app's id range: no count of the audience needed.
    func makeChunks(_ message: Message, after cursor: Int64, limit: Int, on connection: PostgresConnection) throws -> Slice {
        let audience = AudienceCondition(message.audience)
        // Android devices have no environment: their statements do not bind it.
        let environment: [(any PostgresBindable)?] = message.platforms.usesEnvironment ? [message.environment] : []
        var parameters: [(any PostgresBindable)?] = [message.id, message.appID, message.lane, chunkSize, cursor, limit]
        if message.spreadSeconds > 0 {
            let range = try connection.preparedQuery(AudienceStatements.deviceRange(message.platforms), [message.appID] + environment)
            let low = range.first?["lo"].flatMap { Int64($0) } ?? 0
            let high = range.first?["hi"].flatMap { Int64($0) } ?? 0
            parameters += [message.acceptedAt, message.spreadSeconds, low, high]
        }
        let statement = (message.spreadSeconds > 0 ? AudienceStatements.makeSpreadChunks : AudienceStatements.makeChunks)[audience.shape, message.platforms]
        let row = try connection.preparedQuery(statement, parameters + environment + audience.lists).first
        return Slice(devices: try row?.int("devices") ?? 0, android: try row?.int("android") ?? 0, chunks: try row?.int("chunks") ?? 0,
                     lastDeviceID: row?["last"].flatMap { Int64($0) })
    }
}
