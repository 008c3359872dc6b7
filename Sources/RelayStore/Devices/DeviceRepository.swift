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

    /// Registers a token, or refreshes the device that has it (`DeviceStatements.register`).
    public func register(appID: Int64, _ registration: DeviceRegistration) async throws -> String {
        let rows = try await pool.preparedQuery(DeviceStatements.register, [
            appID, registration.token.text, registration.environment?.rawValue,
            registration.alias != nil, registration.alias ?? "", registration.badge,
            registration.tags != nil, SQLArray.text(registration.tags ?? []), registration.platform.rawValue,
        ])
        guard let row = rows.first else { throw PostgresError.protocolViolation("registration returned no row") }
        return try row.string("rid")
    }

    /// The device's JPush view: tags, alias, mobile; nil when the app has no such device.
    /// Gives the device `registration.registrationID` its token of `registration.kind`.
    ///
    /// - Throws: `unknownRegistrationID` when the app has no iOS device of that id.
    public func register(appID: Int64, _ registration: PushTokenRegistration) async throws {
        let rid = registration.registrationID
        guard let uuid = RegistrationID.uuid(rid) else { throw Self.unknownRegistrationID(rid) }
        let (statement, parameters): (SQLStatement, [(any PostgresBindable)?]) = registration.kind == .voip
            ? (DeviceStatements.registerVoIP, [appID, uuid, registration.token.text])
            : (DeviceStatements.registerPushToken, [appID, uuid, registration.token.text, registration.kind.rawValue])
        let found = try await pool.withConnection { connection in
            try connection.preparedQuery(statement, parameters).first != nil
        }
        guard found else { throw Self.unknownRegistrationID(rid) }
    }

    public func info(appID: Int64, rid: String) async throws -> (tags: [String], alias: String?, mobile: String?)? {
        guard let uuid = RegistrationID.uuid(rid) else { return nil }
        return try await pool.withConnection { connection in
            let devices = try connection.preparedQuery(DeviceStatements.find, [appID, uuid])
            guard let device = devices.first else { return nil }
            let tags = try connection.preparedQuery(DeviceStatements.tagsOfDevice, [Int64(try device.int("id"))])
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
                let devices = try connection.preparedQuery(DeviceStatements.update, [appID, uuid, update.alias != nil, update.alias ?? "", update.mobile != nil, update.mobile ?? "", update.badge])
                guard let device = devices.first else { return false }
                let id = Int64(try device.int("id"))
                switch update.tags {
                case .keep:
                    break
                case .clear:
                    try connection.preparedQuery(DeviceStatements.clearTags, [id])
                case .change(let add, let remove):
                    try connection.preparedQuery(DeviceStatements.removeTags, [id, SQLArray.text(remove)])
                    try connection.preparedQuery(DeviceStatements.addTags, [appID, SQLArray.text(add), id])
                    let count = try connection.preparedQuery(DeviceStatements.countTags, [id])
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
        let rows = try connection.preparedQuery(DeviceStatements.resolve, [appID, SQLArray.text(rids)])
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
    /// id (migration 0025; `DeviceStatements.status`).
    public func status(appID: Int64, rids: [String]) async throws -> [String: (online: Bool, lastSeen: String)] {
        try await pool.withConnection { connection in
            let resolved = try Self.resolve(rids, appID: appID, on: connection)
            // A thousand devices' probes add up to a plan cost past jit_above_cost: compiling
            // would take ten times as long as the probes themselves.
            let rows = try connection.transaction { connection in
                try connection.query("SET LOCAL jit = off")
                return try connection.preparedQuery(DeviceStatements.status, [appID, SQLArray.bigint(resolved.map(\.id))])
            }
            var result: [String: (online: Bool, lastSeen: String)] = [:]
            for row in rows { result[try row.string("rid")] = (try row.bool("online"), try row.string("last_seen")) }
            return result
        }
    }

    /// Every tag the app uses, sorted: a skip scan over the tag index (one probe per tag,
    /// not one row per tagged device).
    public func tags(appID: Int64) async throws -> [String] {
        try await pool.preparedQuery(DeviceStatements.appTags, [appID]).map { try $0.string("tag") }
    }

    /// Whether the device has the tag; nil when the app has no such device.
    public func hasTag(appID: Int64, tag: String, rid: String) async throws -> Bool? {
        guard let uuid = RegistrationID.uuid(rid) else { return nil }
        let rows = try await pool.preparedQuery(DeviceStatements.hasTag, [appID, uuid, tag])
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
                    try connection.preparedQuery(DeviceStatements.untagDevices, [appID, tag, SQLArray.bigint(remove.map(\.id))])
                }
                guard !add.isEmpty else { return }
                try connection.preparedQuery(DeviceStatements.tagDevices, [appID, tag, SQLArray.bigint(add.map(\.id))])
                let full = try connection.preparedQuery(DeviceStatements.overTagged, [appID, SQLArray.bigint(add.map(\.id)), DeviceRegistration.maxTagsPerDevice])
                if let row = full.first {
                    throw DeviceFieldError("registration_id \(InputEcho.quoted(try row.string("rid"))) already has \(DeviceRegistration.maxTagsPerDevice) tags")
                }
            }
        }
    }

    /// Takes the tag off the app's devices of `platforms`.
    public func deleteTag(appID: Int64, tag: String, platforms: [DevicePlatform] = DevicePlatform.allCases) async throws {
        try await pool.preparedQuery(DeviceStatements.deleteTag, [appID, tag, SQLArray.text(platforms.map(\.rawValue))])
    }

    /// Registration ids of the app's devices of `platforms` with the alias, oldest device first.
    public func devices(appID: Int64, alias: String, platforms: [DevicePlatform] = DevicePlatform.allCases) async throws -> [String] {
        try await pool.preparedQuery(DeviceStatements.aliasDevices, [appID, alias, SQLArray.text(platforms.map(\.rawValue))])
            .map { try $0.string("rid") }
    }

    /// Takes the alias off the app's devices of `platforms`.
    public func deleteAlias(appID: Int64, alias: String, platforms: [DevicePlatform] = DevicePlatform.allCases) async throws {
        try await pool.preparedQuery(DeviceStatements.deleteAlias, [appID, alias, SQLArray.text(platforms.map(\.rawValue))])
    }

    /// Takes the alias off the given devices (those that have it; others are left alone).
    public func removeAlias(appID: Int64, alias: String, rids: [String]) async throws {
        try await pool.withConnection { connection in
            let devices = try Self.resolve(rids, appID: appID, on: connection)
            guard !devices.isEmpty else { return }
            try connection.preparedQuery(DeviceStatements.removeAlias, [appID, alias, SQLArray.bigint(devices.map(\.id))])
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
        try await pool.preparedQuery(DeviceStatements.invalidate, [appID, token, reason, apnsTimestamp, sentAt]).affectedRows == 1
    }

    /// Applies a push's badge to the devices it goes to, atomically, and returns each
    /// device's new badge (what APNs is sent), keyed by device id. PushCore's `BadgeChange`:
    /// `.set(N)` is `setTo: N`, `.add(N)` is `setTo: nil, adding: N` (clamped to 0...maxBadge).
    public func applyBadge(appID: Int64, deviceIDs: [Int64], setTo value: Int?, adding delta: Int = 0) async throws -> [Int64: Int] {
        let rows = try await pool.preparedQuery(DeviceStatements.applyBadge, [appID, SQLArray.bigint(deviceIDs), value, delta, Int(DeviceRegistration.maxBadge)])
        var badges: [Int64: Int] = [:]
        for row in rows { badges[Int64(try row.int("id"))] = try row.int("badge") }
        return badges
    }
}
