import APNSSimulator
import FCMSimulator
import Foundation
import PostgresStore
import RelayCore
import RelayCrypto
import Testing

/// End to end with Android: `POST /v3/push` → PostgreSQL → worker → the APNs simulator for
/// iOS devices and the FCM simulator (its token endpoint and `messages:send`, over TLS) for
/// Android ones, checked on the simulators' own records.
@Suite(.serialized) struct AndroidDeliveryTests {
    /// An FCM simulator trusting one fresh service account, beside the relay's APNs simulator.
    struct FCM {
        let simulator: FCMSimulator
        let account: FCMServiceAccount
        let url: URL
        let caFile: String

        static func start(adjust: (inout FCMSimulatorConfiguration) -> Void = { _ in }) throws -> FCM {
            var account = FCMServiceAccount(
                projectID: "pipeline-project", clientEmail: "relay@pipeline-project.iam.gserviceaccount.com", privateKeyID: "k1",
                privateKeyPEM: try RS256Signer.generateKeyPEM())
            var server = APNSSimulatorConfiguration()
            server.listen = .init(host: "127.0.0.1", port: 0)
            server.unregisteredPrefix = "dead"
            server.badTokenPrefix = "bad"
            var configuration = FCMSimulatorConfiguration(server: server, serviceAccounts: [account])
            adjust(&configuration)
            let simulator = try FCMSimulator(configuration: configuration, logger: Logger(label: "fcm-sim", level: .error))
            let port = try simulator.start().port
            let caFile = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-ca-\(UUID().uuidString).pem").path
            try simulator.certificatePEM.write(toFile: caFile, atomically: true, encoding: .utf8)
            account.tokenURI = "https://127.0.0.1:\(port)/token"
            return FCM(simulator: simulator, account: account, url: URL(string: "https://127.0.0.1:\(port)")!, caFile: caFile)
        }

        func stop() async {
            await simulator.shutdown()
            try? FileManager.default.removeItem(atPath: caFile)
        }
    }

    /// Runs `body` with a relay whose worker sends to `fcm` (chunks of `chunkSize`).
    static func with(chunkSize: Int = 2000, adjust: (inout FCMSimulatorConfiguration) -> Void = { _ in },
                     _ body: (PipelineHarness, FCM) async throws -> Void) async throws {
        let fcm = try FCM.start(adjust: adjust)
        do {
            try await PipelineHarness.with(tune: {
                $0.fcmURL = fcm.url
                $0.fcmCAFile = fcm.caFile
                $0.chunkSize = chunkSize
            }) { relay in try await body(relay, fcm) }
        } catch {
            await fcm.stop()
            throw error
        }
        await fcm.stop()
    }

    /// An app with the APNs key and the simulator's service account uploaded.
    static func app(_ relay: PipelineHarness, _ fcm: FCM) async throws -> PipelineHarness.App {
        let app = try await relay.createApp()
        let uploaded = try await relay.request("PUT", "/admin/v1/apps/\(app.key)/fcm", body: Data(fcm.account.json))
        guard uploaded.status == 200 else { throw HarnessError("FCM credential upload failed: \(uploaded.status) \(uploaded.text)") }
        return app
    }

    /// Inserts `count` active Android devices: tokens `prefix` + `-` + the index.
    @discardableResult
    static func insertAndroid(_ relay: PipelineHarness, _ app: PipelineHarness.App, count: Int, prefix: String) async throws -> [String] {
        try await relay.pool.query("""
            INSERT INTO devices (app_id, token, platform, environment, registered_at)
            SELECT $1, $2 || '-' || i, 'android', NULL, now() - interval '1 hour' FROM generate_series(0, $3::integer - 1) AS i
            """, [app.id, prefix, count])
        return (0..<count).map { "\(prefix)-\($0)" }
    }

    /// The `message` object FCM received for `token` (its last).
    static func received(_ fcm: FCM, _ token: String) -> [String: Any]? {
        guard let delivery = fcm.simulator.deliveries(token: token).first else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(delivery.payload)) as? [String: Any])?["message"] as? [String: Any]
    }

    /// `pushrelay_fcm_responses_total` by "status reason", summed over the apps.
    static func fcmAnswers(_ relay: PipelineHarness) async throws -> [String: Double] {
        let scrape = try MetricsEndpointTests.parse(try await relay.request("GET", "/metrics").text)
        var sums: [String: Double] = [:]
        for (series, value) in scrape.samples where series.name == RelayMetrics.fcmResponses {
            sums["\(series.labels["status"] ?? "") \(series.labels["reason"] ?? "")", default: 0] += value
        }
        return sums
    }

    @Test func aPushToAllReachesEachIOSAndAndroidTokenOnceWithOneAccessToken() async throws {
        try await Self.with(chunkSize: 16) { relay, fcm in
            let app = try await Self.app(relay, fcm)
            let ios = try await relay.insertDevices(app, count: 30, prefix: "e1")
            let android = try await Self.insertAndroid(relay, app, count: 50, prefix: "fcm")
            let unregistered = try await Self.insertAndroid(relay, app, count: 3, prefix: "dead")
            let invalid = try await Self.insertAndroid(relay, app, count: 2, prefix: "bad")
            let before = try await Self.fcmAnswers(relay)
            let msgID = try await relay.accepted(app, [
                "platform": "all", "audience": "all",
                "notification": [
                    "alert": "hello both",
                    "android": ["title": "Hi", "extras": ["n": 3, "ok": true], "channel_id": "news", "priority": 1],
                ],
                "options": ["time_to_live": 600],
            ])
            let message = try await relay.waitUntilFinished(msgID)
            #expect(try message.int("target_count") == 85)
            #expect(try message.int("sent_count") == 80)
            #expect(try message.int("invalidated_count") == 5)
            #expect(try message.int("failed_count") == 0)

            // iOS through APNs, Android through FCM: each good token once.
            let apns = relay.simulator.deliveries()
            #expect(Set(apns.map(\.token)) == Set(ios) && apns.allSatisfy { $0.count == 1 && $0.alert == "hello both" })
            let fcmDelivered = fcm.simulator.deliveries()
            #expect(Set(fcmDelivered.map(\.token)) == Set(android))
            #expect(fcmDelivered.allSatisfy { $0.count == 1 })
            #expect(fcm.simulator.stats.accepted == 50)
            // Four chunks of Android devices (16 each), one access token.
            #expect(fcm.simulator.accessTokensIssued == 1)
            // FCM's answers in the metrics, by status and error code.
            let after = try await Self.fcmAnswers(relay)
            #expect(after["200 "]! - (before["200 "] ?? 0) == 50)
            #expect(after["404 UNREGISTERED"]! - (before["404 UNREGISTERED"] ?? 0) == 3)
            #expect(after["400 INVALID_ARGUMENT"]! - (before["400 INVALID_ARGUMENT"] ?? 0) == 2)
            // The app's FCM client and its connections, counted apart from its APNs client.
            let scrape = try MetricsEndpointTests.parse(try await relay.request("GET", "/metrics").text)
            #expect(scrape.value(RelayMetrics.fcmClients, [:]) == 1 && scrape.value(RelayMetrics.apnsClients, [:]) == 1)
            #expect((scrape.value(RelayMetrics.fcmConnections, [:]) ?? 0) >= 1)

            // The JPush body mapped: alert and title, extras as strings, channel and priority.
            let sent = try #require(Self.received(fcm, android[7]))
            let shown = sent["notification"] as? [String: Any]
            #expect(shown?["body"] as? String == "hello both" && shown?["title"] as? String == "Hi")
            let data = sent["data"] as? [String: String]
            #expect(data?["n"] == "3" && data?["ok"] == "true" && data?["_j_msgid"] == String(msgID))
            let options = sent["android"] as? [String: Any]
            #expect(options?["ttl"] as? String == "600s" && options?["priority"] as? String == "HIGH")
            let drawer = options?["notification"] as? [String: Any]
            #expect(drawer?["channel_id"] as? String == "news" && drawer?["notification_priority"] as? String == "PRIORITY_HIGH")

            // The reports split the platforms: APNs' share, FCM's share, both in the total.
            let received = try await relay.request("GET", "/v3/received/detail?msg_ids=\(msgID)", auth: app.auth)
            let counts = try #require((try JSONSerialization.jsonObject(with: received.body) as? [[String: Any]])?.first)
            #expect(counts["ios_apns_sent"] as? Int == 30 && counts["android_pns_sent"] as? Int == 50)
            let detail = try await relay.request("GET", "/v3/messages/detail?msg_ids=\(msgID)", auth: app.auth)
            let notification = try #require(((try JSONSerialization.jsonObject(with: detail.body) as? [[String: Any]])?.first?["details"]
                as? [String: Any])?["notification"] as? [String: Any])
            #expect(notification["target"] as? Int == 85 && notification["sent"] as? Int == 80)
            let apnsCounts = (notification["sub_ios"] as? [String: Any])?["apns"] as? [String: Any]
            #expect(apnsCounts?["target"] as? Int == 30 && apnsCounts?["sent"] as? Int == 30)
            let pnsCounts = (notification["sub_android"] as? [String: Any])?["android_pns"] as? [String: Any]
            #expect(pnsCounts?["target"] as? Int == 55 && pnsCounts?["sent"] as? Int == 50)

            let admin = try await relay.request("GET", "/admin/v1/messages/\(msgID)")
            let platforms = admin.json["platforms"] as? [String: [String: Int]]
            #expect(platforms?["ios"] == ["target": 30, "sent": 30, "received": 0, "opened": 0]
                && platforms?["android"] == ["target": 55, "sent": 50, "received": 0, "opened": 0])

            // Dead and malformed tokens are invalidated, by FCM's reason…
            let failures = try await relay.pool.query("SELECT reason, count FROM message_failures WHERE message_id = $1 ORDER BY reason", [msgID])
            #expect(try failures.map { "\(try $0.string("reason"))=\(try $0.int("count"))" } == ["INVALID_ARGUMENT=2", "UNREGISTERED=3"])
            let inactive = try await relay.pool.query("SELECT token FROM devices WHERE app_id = $1 AND NOT active", [app.id])
            #expect(Set(try inactive.map { try $0.string("token") }) == Set(unregistered + invalid))

            // …and skipped next time; the token is still the first one.
            relay.simulator.reset()
            fcm.simulator.reset()
            let again = try await relay.accepted(app, ["platform": ["android"], "audience": "all", "notification": ["alert": "again"]])
            let second = try await relay.waitUntilFinished(again)
            #expect(try second.int("target_count") == 50 && second.int("sent_count") == 50)
            #expect(fcm.simulator.stats.streams == 50, "dead tokens are not sent again")
            #expect(relay.simulator.stats.streams == 0, "an Android push sends nothing to APNs")
            #expect(fcm.simulator.accessTokensIssued == 1)
        }
    }

    @Test func aTargetedPushReachesBothPlatformsOfAnAlias() async throws {
        try await Self.with { relay, fcm in
            let app = try await Self.app(relay, fcm)
            let ios = try await relay.insertDevices(app, count: 2, prefix: "f1")
            let android = try await Self.insertAndroid(relay, app, count: 2, prefix: "tok")
            try await relay.pool.query("UPDATE devices SET alias = 'alice' WHERE app_id = $1 AND token = ANY ($2::text[])",
                                       [app.id, "{\(ios[0]),\(android[1])}"])
            let msgID = try await relay.accepted(app, ["platform": "all", "audience": ["alias": ["alice"]],
                                                       "notification": ["alert": "for alice"], "message": ["msg_content": "custom"]])
            let message = try await relay.waitUntilFinished(msgID)
            #expect(try message.int("target_count") == 2 && message.int("sent_count") == 2)
            #expect(relay.simulator.deliveries().map(\.token) == [ios[0]])
            #expect(fcm.simulator.deliveries().map(\.token) == [android[1]])
            let data = Self.received(fcm, android[1])?["data"] as? [String: String]
            #expect(data?["msg_content"] == "custom")
            let chunks = try await relay.pool.query("SELECT platform FROM push_chunks WHERE message_id = $1 ORDER BY platform", [msgID])
            #expect(try chunks.map { try $0.string("platform") } == ["android", "ios"], "a chunk per platform")
            #expect(try message.int("android_target_count") == 1 && message.int("android_sent_count") == 1)

            // A registration id of one Android device: handed to the local worker, sent at once.
            let rid = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE token = $1",
                                                 [android[0]])[0].string("rid")
            let single = try await relay.accepted(app, ["platform": "all", "audience": ["registration_id": [rid]], "notification": ["alert": "one"]])
            #expect(try await relay.waitUntilFinished(single).int("sent_count") == 1)
            #expect(fcm.simulator.deliveries(token: android[0]).count == 1)
        }
    }

    @Test func anAndroidAudienceWithNobodyIs1011AndAnAppWithoutFCMCredentialFails() async throws {
        try await Self.with { relay, fcm in
            let app = try await relay.createApp()
            let nobody = try await relay.push(app, ["platform": ["android"], "audience": "all", "notification": ["alert": "x"]])
            #expect(nobody.errorCode == 1011)
            let android = try await Self.insertAndroid(relay, app, count: 3, prefix: "nocred")
            let msgID = try await relay.accepted(app, ["platform": ["android"], "audience": "all", "notification": ["alert": "x"]])
            let message = try await relay.waitUntilFinished(msgID)
            #expect(try message.int("target_count") == 3 && message.int("failed_count") == 3)
            let failures = try await relay.pool.query("SELECT reason, count FROM message_failures WHERE message_id = $1", [msgID])
            #expect(try failures.map { "\(try $0.string("reason"))=\(try $0.int("count"))" } == ["NoCredentials=3"])
            #expect(fcm.simulator.stats.streams == 0 && android.count == 3)
        }
    }

    @Test func aServiceAccountFCMRefusesIsMarkedBrokenAndItsChunksWaitForANewOne() async throws {
        // Access tokens that expire as they are issued: every send is refused, refreshed once, refused again.
        try await Self.with(adjust: { $0.accessTokenLifetime = 0 }) { relay, fcm in
            let app = try await Self.app(relay, fcm)
            let ios = try await relay.insertDevices(app, count: 2, prefix: "c7")
            try await Self.insertAndroid(relay, app, count: 4, prefix: "paused")
            let msgID = try await relay.accepted(app, ["platform": "all", "audience": "all", "notification": ["alert": "x"]])
            let broken = try await poll(timeout: .seconds(30), "the FCM credential to be marked broken") {
                try await relay.pool.query("SELECT broken_reason FROM fcm_credentials WHERE app_id = $1 AND broken_at IS NOT NULL",
                                           [app.id]).first
            }
            #expect(broken["broken_reason"]?.contains("UNAUTHENTICATED") == true)
            // iOS went out; the Android chunk waits in the queue, not failed.
            try await poll(timeout: .seconds(30), "the iOS devices to be sent") { relay.simulator.stats.accepted == ios.count ? true : nil }
            let message = try await relay.message(msgID)
            #expect(try message["state"] == "sending" && message.int("failed_count") == 0)
            let metadata = try await relay.request("GET", "/admin/v1/apps/\(app.key)/fcm")
            #expect(metadata.json["broken_at"] as? String != nil)
        }
    }
}
