import Foundation
import PostgresStore
@testable import RelayStore
import Testing
import TestSupport

/// Registrations coalesced by the group commit (`DeviceRegistrar`, `RegistrationBatch`): each
/// gets its own answer, a batch leaves every device exactly as the same registrations one
/// after another would, and a bad one fails alone.
@Suite struct DeviceRegistrarTests {
    static func token(_ index: Int) -> DeviceToken {
        try! DeviceToken(parsing: String(format: "%064x", index + 0xab00))
    }

    static let fcmToken = try! DeviceToken(parsing: "dJ3k:APA91bH" + String(repeating: "x-_Y", count: 40), platform: .android)

    static func ios(_ index: Int, environment: DeviceEnvironment = .production, alias: String? = nil, tags: [String]? = nil,
                    badge: Int? = nil) -> DeviceRegistration {
        DeviceRegistration(platform: .ios, token: token(index), environment: environment, alias: alias, tags: tags, badge: badge)
    }

    @Test func roundsPutATokenAgainInTheNextRoundAndSortEachOne() {
        let entries = [(2, 5), (1, 5), (1, 3), (1, 5), (2, 5), (1, 5)].map {
            RegistrationBatch.Entry(appID: Int64($0.0), registration: Self.ios($0.1))
        }
        // (app 1, token 3) once; (1, 5) three times; (2, 5) twice: the same token in two apps is two devices.
        #expect(RegistrationBatch.rounds(entries) == [[2, 1, 0], [3, 4], [5]])
    }

    /// The same registrations, as one batch's statements in one app and one after another in another:
    /// new devices, devices that change platform and environment, keep or set or remove
    /// their alias, keep or set their badge and tags, a dead token brought back, a token
    /// twice, an Android one; every device ends the same, and each registration is answered
    /// with its device's registration id.
    @Test func aBatchLeavesDevicesAsRegistrationsOneAfterAnother() async throws {
        try await TestDatabase.withMigratedPool(size: 3) { pool in
            let repository = DeviceRepository(pool: pool)
            let batched = try await Self.app(pool, "0123456789abcdef01234561")
            let alone = try await Self.app(pool, "0123456789abcdef01234562")
            let before = [
                Self.ios(0, alias: "ann", tags: ["a", "b"], badge: 4), Self.ios(1, alias: "bob", tags: ["a"], badge: 2),
                Self.ios(2, environment: .sandbox, alias: "cy"), Self.ios(3, tags: ["z"]),
            ]
            for app in [batched, alone] {
                for registration in before { _ = try await repository.register(appID: app, registration) }
                try await pool.query("UPDATE devices SET active = false, invalidated_at = now(), invalidation_reason = 'Unregistered' WHERE app_id = $1 AND token = $2",
                                     [app, Self.token(3).text])
            }
            let registrations = [
                Self.ios(0),                                              // keeps alias, tags and badge
                Self.ios(1, alias: "", tags: [], badge: 0),               // removes them
                Self.ios(2, alias: "dee", tags: ["b", "c"]),              // sandbox to production, new alias and tags
                Self.ios(3),                                              // a dead token again
                Self.ios(4, alias: "eve", tags: ["a"], badge: 7),         // new
                Self.ios(5),                                              // new, nothing given
                Self.ios(4, tags: ["d"]),                                 // the new one again, in the batch
                DeviceRegistration(platform: .android, token: Self.fcmToken, environment: nil, alias: "fay"),
                Self.ios(0, alias: "ann2", badge: 1),                     // again, after keeping
            ]
            // The batch's statements themselves, not the group commit (which would run each
            // registration alone after a failed statement).
            let answers = try await pool.withConnection { connection in
                try connection.transaction { connection in
                    try RegistrationBatch.register(registrations.map { RegistrationBatch.Entry(appID: batched, registration: $0) }, on: connection)
                }
            }
            var oneByOne: [String] = []
            for registration in registrations { oneByOne.append(try await repository.register(appID: alone, registration)) }

            let batchedDevices = try await Self.devices(pool, app: batched)
            let aloneDevices = try await Self.devices(pool, app: alone)
            #expect(batchedDevices.values.sorted { $0.token < $1.token } == aloneDevices.values.sorted { $0.token < $1.token })
            for (index, answer) in answers.enumerated() {
                let token = registrations[index].token.text
                #expect(answer == batchedDevices[token]?.rid, "registration \(index) answered with its device's id")
            }
            #expect(answers[4] == answers[6] && answers[0] == answers[8], "a token twice: one device")
            #expect(oneByOne.count == registrations.count)
            let revived = try #require(batchedDevices[Self.token(3).text])
            #expect(revived.active && revived.reactivated)
            #expect(batchedDevices[Self.token(0).text]?.alias == "ann2" && batchedDevices[Self.token(0).text]?.tags == ["a", "b"])
            #expect(batchedDevices[Self.token(4).text]?.tags == ["d"] && batchedDevices[Self.token(4).text]?.alias == "eve")
        }
    }

    /// A registration PostgreSQL refuses (its app is gone) fails alone: the others of its
    /// batch are stored and answered.
    @Test func oneBadRegistrationInABatchFailsAlone() async throws {
        try await TestDatabase.withMigratedPool(size: 3) { pool in
            let registrar = DeviceRegistrar(repository: DeviceRepository(pool: pool), maxInFlight: 1)
            let app = try await Self.app(pool, "0123456789abcdef01234563")
            let entries = (0..<5).map { RegistrationBatch.Entry(appID: $0 == 2 ? app + 1_000 : app, registration: Self.ios($0, tags: ["t"])) }
            let answers = await registrar.registerAll(entries)
            let devices = try await Self.devices(pool, app: app)
            #expect(devices.count == 4)
            for (index, answer) in answers.enumerated() {
                if index == 2 {
                    #expect(throws: PostgresError.self) { try answer.get() }
                } else {
                    #expect(try answer.get() == devices[Self.token(index).text]?.rid)
                }
            }
        }
    }

    /// Concurrent callers each get their own device's id, whether they ran alone or in a batch.
    @Test func concurrentRegistrationsEachGetTheirOwnAnswer() async throws {
        try await TestDatabase.withMigratedPool(size: 3) { pool in
            let registrar = DeviceRegistrar(repository: DeviceRepository(pool: pool), maxInFlight: 1)
            let app = try await Self.app(pool, "0123456789abcdef01234564")
            let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<100 {
                    group.addTask { (index, try await registrar.register(appID: app, Self.ios(index % 80, alias: "u\(index)"))) }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            let devices = try await Self.devices(pool, app: app)
            #expect(devices.count == 80)
            for (index, rid) in answers { #expect(devices[Self.token(index % 80).text]?.rid == rid) }
        }
    }

    // MARK: Helpers

    private static func app(_ pool: PostgresPool, _ key: String) async throws -> Int64 {
        Int64(try await pool.query("INSERT INTO apps (app_key, name, secret_hash) VALUES ($1, $1, 'h') RETURNING id", [key])[0].int("id"))
    }

    /// What a registration decides about a device, by token.
    struct Device: Equatable {
        var token: String
        var rid: String
        var platform: String
        var environment: String?
        var alias: String?
        var badge: Int
        var active: Bool
        var reactivated: Bool
        var tags: [String]

        static func == (lhs: Device, rhs: Device) -> Bool {
            // The registration ids of two apps' devices differ; everything else must not.
            (lhs.token, lhs.platform, lhs.environment, lhs.alias) == (rhs.token, rhs.platform, rhs.environment, rhs.alias)
                && (lhs.badge, lhs.active, lhs.reactivated, lhs.tags) == (rhs.badge, rhs.active, rhs.reactivated, rhs.tags)
        }
    }

    private static func devices(_ pool: PostgresPool, app: Int64) async throws -> [String: Device] {
        let rows = try await pool.query("""
            SELECT d.token, replace(d.registration_id::text, '-', '') AS rid, d.platform, d.environment, d.alias, d.badge, d.active,
                   d.reactivated_at IS NOT NULL AND d.registered_at >= d.reactivated_at AS reactivated,
                   coalesce((SELECT string_agg(t.tag, ',' ORDER BY t.tag) FROM device_tags t WHERE t.device_id = d.id), '') AS tags
            FROM devices d WHERE d.app_id = $1
            """, [app])
        var devices: [String: Device] = [:]
        for row in rows {
            let tags = try row.string("tags")
            devices[try row.string("token")] = Device(
                token: try row.string("token"), rid: try row.string("rid"), platform: try row.string("platform"), environment: row["environment"],
                alias: row["alias"], badge: try row.int("badge"), active: try row.bool("active"), reactivated: try row.bool("reactivated"),
                tags: tags.isEmpty ? [] : tags.split(separator: ",").map(String.init))
        }
        return devices
    }
}
