import Foundation
import PostgresStore
import RelayCore

/// The `devices` and `device_tags` tables, always scoped to one app: every statement names
/// the app, so a registration id of another app is simply not found.
public struct DeviceRepository: Sendable {
    /// The device family's 7002 for a registration id: unknown and other apps' ids get the
    /// same answer, so the answer tells nothing about another app's devices.
    public static func unknownRegistrationID(_ rid: String) -> JPushError {
        JPushError(status: 400, code: 7002, message: "registration_id \(InputEcho.quoted(rid)) is not a device of this app")
    }

    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Registers a token, or refreshes the device that has it: same registration id, new
    /// environment, `registered_at` and `last_seen_at`, and a dead token comes back to life
    /// (`reactivated_at`). One statement, so it is atomic without a transaction.
    ///
    /// Parameters: $1 app, $2 token, $3 environment, $4 alias given, $5 alias ("" removes),
    /// $6 badge (NULL keeps), $7 tags given, $8 tags (text[]). The benchmark's pgbench script
    /// (scripts/bench/register.sql) runs this same statement.
    public static let registerSQL = """
        WITH device AS (
            INSERT INTO devices AS d (app_id, token, environment, alias, badge)
            VALUES ($1, $2, $3, NULLIF($5, ''), coalesce($6::integer, 0))
            ON CONFLICT (app_id, token) DO UPDATE SET
                environment = EXCLUDED.environment,
                alias = CASE WHEN $4::boolean THEN EXCLUDED.alias ELSE d.alias END,
                badge = coalesce($6::integer, d.badge),
                registered_at = now(),
                last_seen_at = now(),
                reactivated_at = CASE WHEN d.active THEN d.reactivated_at ELSE now() END,
                active = true
            RETURNING d.id, d.registration_id
        ), dropped AS (
            DELETE FROM device_tags t USING device
            WHERE $7::boolean AND t.device_id = device.id AND NOT (t.tag = ANY ($8::text[]))
        ), added AS (
            INSERT INTO device_tags (app_id, tag, device_id)
            SELECT $1, tag, device.id FROM device, unnest($8::text[]) AS tag WHERE $7::boolean
            ON CONFLICT DO NOTHING
        )
        SELECT \(RegistrationID.sql("registration_id")) AS rid FROM device
        """

    public func register(appID: Int64, _ registration: DeviceRegistration) async throws -> String {
        let rows = try await pool.preparedQuery("pushrelay_register_device", Self.registerSQL, [
            appID, registration.token.hex, registration.environment.rawValue,
            registration.alias != nil, registration.alias ?? "", registration.badge,
            registration.tags != nil, PostgresArrayLiteral.text(registration.tags ?? []),
        ])
        guard let row = rows.first else { throw PostgresError.protocolViolation("registration returned no row") }
        return try row.string("rid")
    }

    /// The device's JPush view: tags, alias, mobile; nil when the app has no such device.
    public func info(appID: Int64, rid: String) async throws -> (tags: [String], alias: String?, mobile: String?)? {
        guard let uuid = RegistrationID.uuid(rid) else { return nil }
        return try await pool.withConnection { connection in
            let devices = try connection.query(
                "SELECT id, alias, mobile FROM devices WHERE app_id = $1 AND registration_id = $2::uuid", [appID, uuid])
            guard let device = devices.first else { return nil }
            let tags = try connection.query(
                "SELECT tag FROM device_tags WHERE device_id = $1 ORDER BY tag", [Int64(try device.int("id"))])
            return (try tags.map { try $0.string("tag") }, device["alias"], device["mobile"])
        }
    }

    /// Applies a `POST /v3/devices/{rid}` in one transaction; false when the app has no such
    /// device.
    ///
    /// - Throws: `DeviceFieldError` when the device would end up with more than 1000 tags
    ///   (nothing is changed then).
    public func update(appID: Int64, rid: String, _ update: DeviceUpdate) async throws -> Bool {
        guard let uuid = RegistrationID.uuid(rid) else { return false }
        return try await pool.withConnection { connection in
            try connection.transaction { connection in
                let devices = try connection.query("""
                    UPDATE devices SET
                        alias = CASE WHEN $3::boolean THEN NULLIF($4, '') ELSE alias END,
                        mobile = CASE WHEN $5::boolean THEN NULLIF($6, '') ELSE mobile END,
                        badge = coalesce($7::integer, badge)
                    WHERE app_id = $1 AND registration_id = $2::uuid
                    RETURNING id
                    """, [appID, uuid, update.alias != nil, update.alias ?? "", update.mobile != nil, update.mobile ?? "", update.badge])
                guard let device = devices.first else { return false }
                let id = Int64(try device.int("id"))
                switch update.tags {
                case .keep:
                    break
                case .clear:
                    try connection.query("DELETE FROM device_tags WHERE device_id = $1", [id])
                case .change(let add, let remove):
                    try connection.query("DELETE FROM device_tags WHERE device_id = $1 AND tag = ANY ($2::text[])",
                                         [id, PostgresArrayLiteral.text(remove)])
                    try connection.query("""
                        INSERT INTO device_tags (app_id, tag, device_id) SELECT $1, unnest($2::text[]), $3
                        ON CONFLICT DO NOTHING
                        """, [appID, PostgresArrayLiteral.text(add), id])
                    let count = try connection.query("SELECT count(*) AS n FROM device_tags WHERE device_id = $1", [id])
                    let tags = try count.first?.int("n") ?? 0
                    guard tags <= DeviceRegistration.maxTagsPerDevice else {
                        throw DeviceFieldError("a device may have at most \(DeviceRegistration.maxTagsPerDevice) tags; this change would give it \(tags)")
                    }
                }
                return true
            }
        }
    }

    /// Device ids of the app's registration ids, in the order given.
    ///
    /// - Throws: `JPushError` 7002 naming the first id that is not a device of this app.
    public static func resolve(_ rids: [String], appID: Int64, on connection: PostgresConnection) throws -> [(rid: String, id: Int64)] {
        guard !rids.isEmpty else { return [] }
        if let malformed = rids.first(where: { RegistrationID.uuid($0) == nil }) {
            throw Self.unknownRegistrationID(malformed)
        }
        let rows = try connection.query("""
            SELECT id, \(RegistrationID.sql("registration_id")) AS rid FROM devices
            WHERE app_id = $1 AND registration_id = ANY ($2::uuid[])
            """, [appID, PostgresArrayLiteral.text(rids)])
        var ids: [String: Int64] = [:]
        for row in rows { ids[try row.string("rid")] = Int64(try row.int("id")) }
        return try rids.map { rid throws(JPushError) in
            guard let id = ids[rid] else { throw Self.unknownRegistrationID(rid) }
            return (rid, id)
        }
    }

    /// Online status: seen (registered, or delivered to within the kept deliveries) in the
    /// last 10 minutes. The last delivery: the spans of the app covering the device's id
    /// (migration 0023; one GiST probe per day partition), newest first, until one holds the
    /// id (migration 0025).
    public func status(appID: Int64, rids: [String]) async throws -> [String: (online: Bool, lastSeen: String)] {
        try await pool.withConnection { connection in
            let resolved = try Self.resolve(rids, appID: appID, on: connection)
            // A thousand devices' probes add up to a plan cost past jit_above_cost: compiling
            // would take ten times as long as the probes themselves.
            let rows = try connection.transaction { connection in
                try connection.query("SET LOCAL jit = off")
                return try connection.query(Self.statusSQL, [appID, Self.idArray(resolved.map(\.id))])
            }
            var result: [String: (online: Bool, lastSeen: String)] = [:]
            for row in rows { result[try row.string("rid")] = (try row.bool("online"), try row.string("last_seen")) }
            return result
        }
    }

    /// $1 app, $2 device ids (bigint[]). The span conditions are written as the index
    /// `delivery_spans_app_ids` is defined. The inner OFFSET 0 keeps the plan a walk down the
    /// app's spans that cover the device, newest first, stopped by the LIMIT at the first that
    /// holds its id, rather than reading every covering span's ids; the outer one has `seen`
    /// computed once, not once for each use.
    public static let statusSQL = """
        SELECT rid, seen > now() - interval '10 minutes' AS online,
               to_char(seen AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS last_seen
        FROM (SELECT \(RegistrationID.sql("d.registration_id")) AS rid,
                     greatest(d.last_seen_at, (
                         SELECT s.at
                         FROM (SELECT s.at, s.device_ids FROM delivery_spans s
                               WHERE int8range(s.app_id, s.app_id, '[]') @> $1::bigint AND int8range(s.lo, s.hi, '[]') @> d.id
                               ORDER BY s.at DESC OFFSET 0) s
                         WHERE d.id = ANY (s.device_ids)
                         LIMIT 1)) AS seen
              FROM devices d WHERE d.app_id = $1 AND d.id = ANY ($2::bigint[]) OFFSET 0) device
        """

    /// Every tag the app uses, sorted: a skip scan over the tag index (one probe per tag,
    /// not one row per tagged device).
    public func tags(appID: Int64) async throws -> [String] {
        try await pool.query("""
            WITH RECURSIVE t AS (
                (SELECT tag FROM device_tags WHERE app_id = $1 ORDER BY tag LIMIT 1)
                UNION ALL
                SELECT (SELECT tag FROM device_tags WHERE app_id = $1 AND tag > t.tag ORDER BY tag LIMIT 1)
                FROM t WHERE t.tag IS NOT NULL
            )
            SELECT tag FROM t WHERE tag IS NOT NULL
            """, [appID]).map { try $0.string("tag") }
    }

    /// Whether the device has the tag; nil when the app has no such device.
    public func hasTag(appID: Int64, tag: String, rid: String) async throws -> Bool? {
        guard let uuid = RegistrationID.uuid(rid) else { return nil }
        let rows = try await pool.query("""
            SELECT EXISTS (SELECT 1 FROM device_tags t WHERE t.app_id = $1 AND t.tag = $3 AND t.device_id = d.id) AS result
            FROM devices d WHERE d.app_id = $1 AND d.registration_id = $2::uuid
            """, [appID, uuid, tag])
        return try rows.first?.bool("result")
    }

    /// Adds the tag to some devices and removes it from others, all or nothing.
    ///
    /// - Throws: 7002 for an id that is not this app's, or when a device would pass 1000 tags.
    public func changeTag(appID: Int64, tag: String, _ change: RegistrationIDChange) async throws {
        try await pool.withConnection { connection in
            try connection.transaction { connection in
                let add = try Self.resolve(change.add, appID: appID, on: connection)
                let remove = try Self.resolve(change.remove, appID: appID, on: connection)
                if !remove.isEmpty {
                    try connection.query("DELETE FROM device_tags WHERE app_id = $1 AND tag = $2 AND device_id = ANY ($3::bigint[])",
                                         [appID, tag, Self.idArray(remove.map(\.id))])
                }
                guard !add.isEmpty else { return }
                try connection.query("""
                    INSERT INTO device_tags (app_id, tag, device_id) SELECT $1, $2, unnest($3::bigint[])
                    ON CONFLICT DO NOTHING
                    """, [appID, tag, Self.idArray(add.map(\.id))])
                let full = try connection.query("""
                    SELECT \(RegistrationID.sql("d.registration_id")) AS rid FROM devices d
                    WHERE d.app_id = $1 AND d.id = ANY ($2::bigint[])
                      AND (SELECT count(*) FROM device_tags t WHERE t.device_id = d.id) > $3
                    LIMIT 1
                    """, [appID, Self.idArray(add.map(\.id)), DeviceRegistration.maxTagsPerDevice])
                if let row = full.first {
                    throw DeviceFieldError("registration_id \(InputEcho.quoted(try row.string("rid"))) already has \(DeviceRegistration.maxTagsPerDevice) tags")
                }
            }
        }
    }

    public func deleteTag(appID: Int64, tag: String) async throws {
        try await pool.query("DELETE FROM device_tags WHERE app_id = $1 AND tag = $2", [appID, tag])
    }

    /// Registration ids with the alias, oldest device first.
    public func devices(appID: Int64, alias: String) async throws -> [String] {
        try await pool.query("""
            SELECT \(RegistrationID.sql("registration_id")) AS rid FROM devices WHERE app_id = $1 AND alias = $2 ORDER BY id
            """, [appID, alias]).map { try $0.string("rid") }
    }

    public func deleteAlias(appID: Int64, alias: String) async throws {
        try await pool.query("UPDATE devices SET alias = NULL WHERE app_id = $1 AND alias = $2", [appID, alias])
    }

    /// Takes the alias off the given devices (those that have it; others are left alone).
    public func removeAlias(appID: Int64, alias: String, rids: [String]) async throws {
        try await pool.withConnection { connection in
            let devices = try Self.resolve(rids, appID: appID, on: connection)
            guard !devices.isEmpty else { return }
            try connection.query("UPDATE devices SET alias = NULL WHERE app_id = $1 AND alias = $2 AND id = ANY ($3::bigint[])",
                                 [appID, alias, Self.idArray(devices.map(\.id))])
        }
    }

    /// Marks a token dead after APNs refused it, unless it was registered again since.
    ///
    /// - Parameters:
    ///   - apnsTimestamp: the time APNs last knew the token invalid (410 responses carry it);
    ///     a registration after it means the token is valid again, so nothing changes.
    ///   - sentAt: when the refused notification was sent; used when APNs gave no timestamp.
    /// - Returns: whether the device was invalidated.
    public func invalidate(appID: Int64, token: String, reason: String, apnsTimestamp: Date?, sentAt: Date) async throws -> Bool {
        try await pool.query("""
            UPDATE devices SET active = false, invalidated_at = now(), invalidation_reason = $3, apns_invalidated_at = $4::timestamptz
            WHERE app_id = $1 AND token = $2 AND active AND registered_at < coalesce($4::timestamptz, $5::timestamptz)
            """, [appID, token, reason, apnsTimestamp, sentAt]).affectedRows == 1
    }

    /// Applies a push's badge to the devices it goes to, atomically, and returns each
    /// device's new badge (what APNs is sent), keyed by device id. PushCore's `BadgeChange`:
    /// `.set(N)` is `setTo: N`, `.add(N)` is `setTo: nil, adding: N` (clamped to 0...maxBadge).
    public func applyBadge(appID: Int64, deviceIDs: [Int64], setTo value: Int?, adding delta: Int = 0) async throws -> [Int64: Int] {
        let rows = try await pool.query("""
            UPDATE devices SET badge = coalesce($3::integer, least($5::integer, greatest(0, badge + $4::integer)))
            WHERE app_id = $1 AND id = ANY ($2::bigint[])
            RETURNING id, badge
            """, [appID, Self.idArray(deviceIDs), value, delta, Int(DeviceRegistration.maxBadge)])
        var badges: [Int64: Int] = [:]
        for row in rows { badges[Int64(try row.int("id"))] = try row.int("badge") }
        return badges
    }

    public static func idArray(_ ids: [Int64]) -> String {
        "{" + ids.map(String.init).joined(separator: ",") + "}"
    }
}
