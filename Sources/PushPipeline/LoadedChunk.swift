import Foundation
import PostgresStore

/// What a leased chunk needs from the database to be sent: its message, the app's APNs
/// credential and its devices, each classified as sendable or not.
struct LoadedChunk: Sendable {
    var messageState: String
    var body: String
    var environment: String
    var acceptedAt: Int
    var expiresAt: Date
    var credential: AppCredential?
    var targets: [ChunkRun.Target]
    /// Devices that cannot be sent to (deleted, inactive, moved environment).
    var unsendable: [ChunkRun.Outcome]

    /// Reads a leased chunk: its message with the credential, then its devices.
    static func read(_ chunk: LeasedChunk, on connection: PostgresConnection) throws -> LoadedChunk {
        guard let context = try connection.preparedQuery("pushrelay_chunk_context", """
            SELECT \(contextColumns)
            FROM messages m JOIN apps a ON a.id = m.app_id LEFT JOIN apns_credentials k ON k.app_id = m.app_id
            WHERE m.id = $1
            """, [chunk.messageID]).first else {
            throw PostgresError.protocolViolation("chunk \(chunk.id) has no message")
        }
        let devices = try devices(of: chunk, environment: try context.string("environment"), on: connection)
        return try LoadedChunk(context: context, appID: chunk.appID, devices: devices)
    }

    /// Leases the targeted lane's oldest ready chunk (of an app whose credential is not
    /// broken) and reads it, in one statement: a single-user push costs one round trip
    /// between its NOTIFY and its send. nil when nothing is ready.
    static func leaseTargeted(owner: String, leaseSeconds: Int, on connection: PostgresConnection) throws -> (LeasedChunk, LoadedChunk)? {
        let rows = try connection.preparedQuery("pushrelay_lease_targeted_loaded", """
            WITH leased AS (
                \(ChunkQueue.leaseSQL(.targeted))
                RETURNING c.id, c.message_id, c.app_id, c.leases, c.device_ids
            )
            \(leasedRowsSQL(leased: "leased", messages: "messages"))
            """, [owner, Double(leaseSeconds)])
        return try leased(from: Array(rows))
    }

    /// Rows that read what a targeted chunk leased by the same statement needs: one for the
    /// chunk with its message and credential (`chunk_id` set), one per device (`chunk_id`
    /// NULL), so the message body is not repeated on every device's row. `leased` names the
    /// lease's rows (id, message_id, app_id, leases, device_ids); `messages` where the
    /// message is read: the table, or the rows the same statement inserted it with.
    static func leasedRowsSQL(leased: String, messages: String) -> String {
        """
        SELECT l.id AS chunk_id, l.message_id, l.app_id, l.leases, \(contextColumns),
               NULL::bigint AS id, NULL::text AS token, NULL::integer AS badge, NULL::text AS device_environment, NULL::boolean AS active
        FROM \(leased) l JOIN \(messages) m ON m.id = l.message_id JOIN apps a ON a.id = l.app_id
        LEFT JOIN apns_credentials k ON k.app_id = l.app_id
        UNION ALL
        SELECT NULL, NULL, NULL, NULL, \(contextColumns.split(separator: ",").map { _ in "NULL" }.joined(separator: ", ")),
               i.id, d.token, d.badge, d.environment, d.active
        FROM \(leased) l CROSS JOIN LATERAL unnest(l.device_ids) AS i(id)
        LEFT JOIN devices d ON d.app_id = l.app_id AND d.id = i.id
        WHERE l.leases = 1 OR NOT \(DeliverySpans.recordedSQL(message: "l.message_id", device: "i.id"))
        """
    }

    /// The chunk read by `leasedRowsSQL`'s rows (other columns beside them are ignored); nil
    /// when nothing was leased.
    static func leased(from rows: [PostgresRow]) throws -> (LeasedChunk, LoadedChunk)? {
        guard let context = rows.first(where: { $0["chunk_id"] != nil }) else { return nil }
        let chunk = LeasedChunk(id: Int64(try context.int("chunk_id")), messageID: Int64(try context.int("message_id")),
                                appID: Int64(try context.int("app_id")), lane: .targeted, leases: try context.int("leases"))
        let devices = try classify(rows.filter { $0["chunk_id"] == nil }, environment: try context.string("environment"))
        return (chunk, try LoadedChunk(context: context, appID: chunk.appID, devices: devices))
    }

    /// The message's and the credential's columns (`messages m`, `apps a`, `apns_credentials k`).
    private static let contextColumns = """
        m.state, m.body, m.environment, m.accepted_at, m.expires_at, k.app_id IS NOT NULL AS has_credential, a.app_key, \
        k.auth, k.topic, k.key_id, k.team_id, k.sealed_secret, k.updated_at::text AS version, k.broken_at IS NOT NULL AS broken
        """

    private init(context: PostgresRow, appID: Int64, devices: (targets: [ChunkRun.Target], unsendable: [ChunkRun.Outcome])) throws {
        messageState = try context.string("state")
        body = try context.string("body")
        environment = try context.string("environment")
        acceptedAt = try context.int("accepted_at")
        expiresAt = try context.date("expires_at")
        credential = try context.bool("has_credential") ? try AppCredential(row: context, appID: appID) : nil
        (targets, unsendable) = devices
    }

    /// The chunk's devices that can be sent to, and an outcome for each that cannot (deleted,
    /// inactive, moved to the other environment). A re-leased chunk reads only the devices
    /// without an outcome yet.
    static func devices(of chunk: LeasedChunk, environment: String, on connection: PostgresConnection) throws
        -> (targets: [ChunkRun.Target], unsendable: [ChunkRun.Outcome]) {
        let rows = chunk.leases > 1
            ? try connection.preparedQuery("pushrelay_chunk_devices_left", devicesSQL(skippingDone: true), [chunk.id])
            : try connection.preparedQuery("pushrelay_chunk_devices", devicesSQL(skippingDone: false), [chunk.id])
        return try classify(Array(rows), environment: environment)
    }

    /// Rows of `id, token, badge, environment|device_environment, active` (NULLs for a
    /// deleted device) as targets and outcomes.
    private static func classify(_ rows: [PostgresRow], environment: String) throws
        -> (targets: [ChunkRun.Target], unsendable: [ChunkRun.Outcome]) {
        var targets: [ChunkRun.Target] = []
        var unsendable: [ChunkRun.Outcome] = []
        targets.reserveCapacity(rows.count)
        for row in rows {
            let id = Int64(try row.int("id"))
            let reason: String? = if row["token"] == nil { "DeviceDeleted" }
                else if try !row.bool("active") { "TokenInactive" }
                else if (row["device_environment"] ?? row["environment"]) != environment { "EnvironmentChanged" }
                else { nil }
            if let reason {
                unsendable.append(ChunkRun.Outcome(deviceID: id, outcome: .failed, reason: reason, attempts: 0))
            } else {
                targets.append(ChunkRun.Target(deviceID: id, token: try row.string("token"), storedBadge: try row.int("badge")))
            }
        }
        return (targets, unsendable)
    }

    /// The chunk's devices, with what decides whether they can be sent to; with `skippingDone`,
    /// only those without an outcome (a re-leased chunk).
    ///
    /// A chunk's ids are sorted. A dense one (a broadcast's, cut by keyset: its ids span less
    /// than twice their number) is read as one range of the app's primary key, ~0.7 µs a
    /// device less than a probe per id; a sparse one (scattered registration ids) probes.
    /// Either way every id of the chunk comes out once, with NULLs for a deleted device.
    private static func devicesSQL(skippingDone: Bool) -> String {
        """
        WITH c AS MATERIALIZED (
            SELECT message_id, app_id, device_ids, device_ids[1] AS lo, device_ids[cardinality(device_ids)] AS hi,
                   device_ids[cardinality(device_ids)] - device_ids[1] < 2 * cardinality(device_ids) AS dense
            FROM push_chunks WHERE id = $1
        ), found AS MATERIALIZED (
            SELECT d.id, d.token, d.badge, d.environment, d.active
            FROM c JOIN devices d ON d.app_id = c.app_id AND d.id BETWEEN c.lo AND c.hi WHERE c.dense
            UNION ALL
            SELECT d.id, d.token, d.badge, d.environment, d.active
            FROM c JOIN devices d ON d.app_id = c.app_id AND d.id = ANY (c.device_ids) WHERE NOT c.dense
        )
        SELECT i.id, f.token, f.badge, f.environment, f.active
        FROM c CROSS JOIN LATERAL unnest(c.device_ids) AS i(id) LEFT JOIN found f ON f.id = i.id
        \(skippingDone ? "WHERE NOT \(DeliverySpans.recordedSQL(message: "c.message_id", device: "i.id"))" : "")
        """
    }
}
