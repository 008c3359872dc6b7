import APNSSimulator
import FCMSimulator
import Foundation
import PostgresStore
import Testing

/// The fault suite's Android scenarios (`make reliability`; reduced in `make test`): FCM
/// misbehaves while a broadcast to Android devices is sent — a 503 storm, 429s with
/// `Retry-After`, the token endpoint down — and every device still gets the push exactly
/// once, nothing expires or fails, the service account is not marked broken, and the
/// attempts stay near what the fault implies (backoff, no hot loop).
@Suite(.serialized) struct AndroidFaultTests {
    typealias Android = AndroidDeliveryTests

    static let devices = FaultReport.full ? 20_000 : 1_000

    /// What a scenario saw, for its checks and its line in the table.
    struct Run {
        let relay: PipelineHarness
        let fcm: Android.FCM
        /// When the push was accepted, in ms since 1970 (as the simulator's `receivedAt`).
        let pushedAt: Int64

        /// `messages:send` requests FCM answered, accepted or not (token requests aside).
        var sends: Int {
            let stats = fcm.simulator.stats
            return stats.accepted + stats.rejectedTotal - (stats.rejected["TOKEN_ENDPOINT_DOWN"] ?? 0)
        }
    }

    /// Sends one Android broadcast while `act` breaks and mends FCM; checks that every device
    /// got it once, then records the scenario with `act`'s notes.
    ///
    /// - Parameters:
    ///   - adjust: the simulator's configuration (the fault from the first send on).
    ///   - before: what is broken before the push is accepted.
    private static func broadcast(_ name: String, prefix: String, adjust: (inout FCMSimulatorConfiguration) -> Void,
                                  before: (Android.FCM) -> Void = { _ in }, act: (Run) async throws -> String) async throws {
        let started = ContinuousClock.now
        try await Android.with(adjust: {
            $0.server.maxRecordedTokens = devices
            adjust(&$0)
        }) { relay, fcm in
            let app = try await Android.app(relay, fcm)
            let tokens = try await Android.insertAndroid(relay, app, count: devices, prefix: prefix)
            before(fcm)
            let run = Run(relay: relay, fcm: fcm, pushedAt: Int64(Date().timeIntervalSince1970 * 1000))
            let msgID = try await relay.accepted(app, ["platform": ["android"], "audience": "all", "notification": ["alert": name],
                                                       "options": ["time_to_live": 3_600]])
            let notes = try await act(run)
            let message = try await relay.waitUntilFinished(msgID, timeout: .seconds(FaultReport.full ? 900 : 120))

            #expect(try message.int("sent_count") == devices)
            #expect(try message.int("expired_count") == 0 && message.int("failed_count") == 0)
            let arrived = Arrivals(fcm.simulator.deliveries(), tokens: tokens)
            #expect(arrived.delivered == devices, "every device received the push")
            #expect(arrived.duplicates == 0, "FCM took each message once")
            let broken = try await relay.pool.query("SELECT 1 FROM fcm_credentials WHERE app_id = $1 AND broken_at IS NOT NULL", [app.id])
            #expect(broken.isEmpty, "a struggling FCM is not a refused credential")
            FaultReport.record(name, sent: devices, delivered: arrived.delivered, duplicates: arrived.duplicates,
                               collapsed: arrived.collapsed, elapsed: ContinuousClock.now - started,
                               notes: String(format: "%.2f sends/device, ", Double(run.sends) / Double(devices)) + notes)
        }
    }

    /// FCM answers every send 503 (no `Retry-After`) for a while, then recovers: the relay
    /// backs off, and each device is tried a handful of times, not in a loop.
    @Test func a503Storm() async throws {
        let storm = FaultReport.full ? 10 : 2
        try await Self.broadcast("FCM: 503 storm (\(storm) s)", prefix: "s503", adjust: {
            $0.retryAfterSeconds = nil
            $0.server.rate503 = 1
        }) { run in
            try await poll(timeout: .seconds(60), "the storm to meet the broadcast") { run.sends > 0 ? true : nil }
            try await Task.sleep(for: .seconds(storm))
            run.fcm.simulator.setRates(FailureRates(rate429: 0, rate500: 0, rate503: 0))
            try await poll(timeout: .seconds(120), "every device") { run.fcm.simulator.stats.accepted >= Self.devices ? true : nil }
            // Backoff from 100 ms doubling to a 10 s cap fits about log2(storm / 0.1) tries in the storm.
            let perDevice = Double(run.sends) / Double(Self.devices)
            #expect(perDevice <= Double(storm) + 8, "\(perDevice) sends per device in a \(storm) s storm")
            return "\(run.fcm.simulator.stats.rejectedTotal) refused"
        }
    }

    /// FCM answers every send 429 with `Retry-After` until each device has been refused once,
    /// then accepts: no device is sent again before `Retry-After` has passed.
    @Test func a429WithRetryAfter() async throws {
        let retryAfter = FaultReport.full ? 5 : 2
        try await Self.broadcast("FCM: 429 with Retry-After \(retryAfter) s", prefix: "r429", adjust: {
            $0.retryAfterSeconds = retryAfter
            $0.server.rate429 = 1
        }) { run in
            try await poll(timeout: .seconds(120), "every device to be refused once") {
                run.fcm.simulator.stats.rejectedTotal >= Self.devices ? true : nil
            }
            run.fcm.simulator.setRates(FailureRates(rate429: 0, rate500: 0, rate503: 0))
            try await poll(timeout: .seconds(120), "every device") { run.fcm.simulator.stats.accepted >= Self.devices ? true : nil }
            let first = run.fcm.simulator.deliveries().map(\.receivedAt).min() ?? 0
            #expect(first - run.pushedAt >= Int64(retryAfter) * 1000, "the first retry came \(first - run.pushedAt) ms after the push")
            let perDevice = Double(run.sends) / Double(Self.devices)
            #expect(perDevice <= 3, "\(perDevice) sends per device")
            return "first accepted \(first - run.pushedAt) ms after the push"
        }
    }

    /// The token endpoint answers 503 for a while: no access token, so nothing is sent; the
    /// fetch is retried about once a second, the sends wait (not failed, the credential not
    /// broken), and once it is back one token serves the whole broadcast.
    @Test func theTokenEndpointDown() async throws {
        let outage = FaultReport.full ? 30 : 3
        try await Self.broadcast("FCM: token endpoint down \(outage) s", prefix: "tdown", adjust: { _ in },
                                 before: { $0.simulator.setTokenEndpointDown(true) }) { run in
            try await poll(timeout: .seconds(60), "a token request to be refused") {
                (run.fcm.simulator.stats.rejected["TOKEN_ENDPOINT_DOWN"] ?? 0) > 0 ? true : nil
            }
            try await Task.sleep(for: .seconds(outage))
            #expect(run.fcm.simulator.stats.accepted == 0)
            run.fcm.simulator.setTokenEndpointDown(false)
            try await poll(timeout: .seconds(120), "every device") { run.fcm.simulator.stats.accepted >= Self.devices ? true : nil }
            let refused = run.fcm.simulator.stats.rejected["TOKEN_ENDPOINT_DOWN"] ?? 0
            #expect(refused <= 2 * outage + 5, "\(refused) token requests in a \(outage) s outage")
            #expect(run.fcm.simulator.accessTokensIssued == 1)
            return "\(refused) token requests refused"
        }
    }
}
