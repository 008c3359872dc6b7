import Foundation
import PostgresStore
import PushCore

/// What a leased chunk needs from the database to be sent: its message, the app's credential
/// for the chunk's platform (APNs for the message's environment, or FCM) and its devices, each
/// classified as sendable or not.
struct LoadedChunk: Sendable {
    var messageState: MessageState
    var body: String
    var environment: String
    var acceptedAt: Int
    var expiresAt: Date
    /// The message's `apns-collapse-id` (`CollapseID`); nil for a message stored before
    /// migration 0035.
    var collapseID: String?
    var credential: ChunkCredential?
    var targets: [ChunkRun.Target]
    /// Devices that cannot be sent to (deleted, inactive, moved environment or platform).
    var unsendable: [ChunkRun.Outcome]

    /// Reads a leased chunk: its message with the credential, then its devices.
    static func read(_ chunk: LeasedChunk, on connection: PostgresConnection) throws -> LoadedChunk {
        guard let context = try connection.preparedQuery(LeaseStatements.chunkContext, [chunk.messageID, chunk.platform.rawValue]).first else {
            throw PostgresError.protocolViolation("chunk \(chunk.id) has no message")
        }
        let devices = try devices(of: chunk, environment: deviceEnvironment(chunk.platform, context), on: connection)
        return try LoadedChunk(context: context, chunk: chunk, devices: devices)
    }

    /// Leases the targeted lane's oldest ready chunk (whose credential is not broken) and reads
    /// it, in one statement: a single-user push costs one round trip between its NOTIFY and its
    /// send. nil when nothing is ready.
    static func leaseTargeted(owner: String, leaseSeconds: Int, on connection: PostgresConnection) throws -> (LeasedChunk, LoadedChunk)? {
        let rows = try connection.preparedQuery(LeaseStatements.lease(.targeted), [owner, Double(leaseSeconds)])
        return try leased(from: Array(rows), on: connection)
    }

    /// The chunk read by `LeaseStatements.leasedRows`'s rows (other columns beside them are ignored); nil
    /// when nothing was leased. `connection` is only used for a re-leased chunk.
    static func leased(from rows: [PostgresRow], on connection: PostgresConnection) throws -> (LeasedChunk, LoadedChunk)? {
        guard let context = rows.first(where: { $0["chunk_id"] != nil }) else { return nil }
        let chunk = LeasedChunk(id: Int64(try context.int("chunk_id")), messageID: Int64(try context.int("message_id")),
                                appID: Int64(try context.int("app_id")), lane: .targeted, leases: try context.int("leases"),
                                platform: try context.value("platform"))
        let devices = try classify(ids: try unrecorded(try context.bigints("ids"), of: chunk, on: connection),
                                   found: rows.filter { $0["chunk_id"] == nil },
                                   environment: deviceEnvironment(chunk.platform, context))
        return (chunk, try LoadedChunk(context: context, chunk: chunk, devices: devices))
    }
}

// The reading, in an extension: the memberwise initializer stays (tests build chunks with it).
extension LoadedChunk {
    private init(context: PostgresRow, chunk: LeasedChunk, devices: (targets: [ChunkRun.Target], unsendable: [ChunkRun.Outcome])) throws {
        messageState = try context.value("state")
        body = try context.string("body")
        environment = try context.string("environment")
        acceptedAt = try context.int("accepted_at")
        expiresAt = try context.date("expires_at")
        collapseID = context["collapse_id"]
        credential = try ChunkCredential(row: context, appID: chunk.appID, platform: chunk.platform)
        (targets, unsendable) = devices
    }

    /// The environment a chunk's devices must still have: the message's for iOS (and VoIP
    /// tokens), none (NULL) for Android.
    private static func deviceEnvironment(_ platform: ChunkPlatform, _ context: PostgresRow) throws -> String? {
        platform == .android ? nil : try context.string("environment")
    }

    /// The chunk's devices that can be sent to, and an outcome for each that cannot (deleted,
    /// inactive, moved to the other environment or platform: `environment` is nil for an
    /// Android chunk). A re-leased chunk reads only the devices without an outcome yet.
    static func devices(of chunk: LeasedChunk, environment: String?, on connection: PostgresConnection) throws
        -> (targets: [ChunkRun.Target], unsendable: [ChunkRun.Outcome]) {
        let rows = Array(try connection.preparedQuery(LeaseStatements.chunkDevices, [chunk.id]))
        // No row at all: the chunk is gone (its app was deleted), nothing to send.
        guard let ids = rows.first(where: { $0["ids"] != nil }) else { return ([], []) }
        return try classify(ids: try unrecorded(try ids.bigints("ids"), of: chunk, on: connection),
                            found: rows.filter { $0["ids"] == nil }, environment: environment)
    }

    /// The devices `ids` as targets and outcomes, from the rows of those `found` (`id, token,
    /// badge, device_environment, active`; rows of other ids are ignored): an id without a
    /// row was deleted. Paired here rather than by a join in SQL, which cost PostgreSQL more
    /// than the read itself (~1 ms per 2,000 devices).
    private static func classify(ids: [Int64], found rows: [PostgresRow], environment: String?) throws
        -> (targets: [ChunkRun.Target], unsendable: [ChunkRun.Outcome]) {
        var found: [Int64: PostgresRow] = [:]
        found.reserveCapacity(rows.count)
        for row in rows { found[Int64(try row.int("id"))] = row }
        var targets: [ChunkRun.Target] = []
        var unsendable: [ChunkRun.Outcome] = []
        targets.reserveCapacity(ids.count)
        for id in ids {
            let row = found[id]
            let reason: String? = if let row {
                if try !row.bool("active") { "TokenInactive" }
                else if row["device_environment"] != environment { "EnvironmentChanged" }
                else { nil }
            } else { "DeviceDeleted" }
            if let reason {
                unsendable.append(ChunkRun.Outcome(deviceID: id, outcome: .failed, reason: reason, attempts: 0))
            } else if let row {
                targets.append(ChunkRun.Target(deviceID: id, token: try row.string("token"), storedBadge: try row.int("badge")))
            }
        }
        return (targets, unsendable)
    }

    /// The chunk's `ids` still to send: all of them on a first lease, only those without an
    /// outcome on a re-lease (sent before a crash, or written by the holder whose lease ran
    /// out). A statement of its own, run only then, with the message as a parameter so that
    /// PostgreSQL prunes the day partitions: inside the lease or the accepting statement the
    /// look-up was planned and started against every partition on every lease (0.55 ms of
    /// the accepting statement's 1.26 in a new database, ~1 ms with a month of partitions).
    private static func unrecorded(_ ids: [Int64], of chunk: LeasedChunk, on connection: PostgresConnection) throws -> [Int64] {
        guard chunk.leases > 1 else { return ids }
        return try connection.preparedQuery(LeaseStatements.chunkUnrecorded, [chunk.messageID, SQLArray.bigint(ids)]).map { Int64(try $0.int("id")) }
    }
}
