import APNSClient
import Foundation
@testable import PushPipeline
import Synchronization
import Testing
import TestSupport

/// The worker sends through whatever its sender factory makes: here a fake that refuses each
/// device's first attempt (503) and accepts the next, with no APNs, no TLS and no backoff time.
@Suite(.serialized) struct FakeSenderTests {
    /// Answers 503 to a token's first notification, 200 to the others; remembers every token sent to.
    final class SecondTimeLucky: NotificationSender {
        let sent = Mutex<[String]>([])

        func send(_ notifications: [APNSNotification], urgent: Bool) async -> [APNSResult] {
            sent.withLock { sent in
                notifications.map { notification in
                    defer { sent.append(notification.deviceToken) }
                    return sent.contains(notification.deviceToken)
                        ? .accepted(apnsID: UUID()) : .rejected(status: 503, reason: .serviceUnavailable, timestamp: nil)
                }
            }
        }

        func shutdown() async {}
    }

    @Test func aWorkerSendsThroughTheSenderItsFactoryMakes() async throws {
        let relay = try await PipelineHarness.start(worker: false)
        let fake = SecondTimeLucky()
        let made = Mutex<[String]>([])
        let worker = PushWorker(pool: relay.pool, connectionString: relay.databaseURL, configuration: relay.pipeline,
                                logger: TestDatabase.quietLogger, clock: SkippingClock()) { credential, environment in
            made.withLock { $0.append("\(credential.appKey) \(environment)") }
            return fake
        }
        let running = Task { await worker.run() }
        do {
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 30, prefix: "fa")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "fake"],
                                                       "options": ["apns_production": true]])
            let message = try await relay.waitUntilFinished(msgID, timeout: .seconds(30))
            #expect(try message.int("sent_count") == 30)
            #expect(try message.int("retry_count") == 30)
            #expect(made.withLock { $0 } == ["\(app.key) production"], "one client for the app's environment")
            #expect(fake.sent.withLock { $0 }.sorted() == (tokens + tokens).sorted(), "each device twice, nothing to the simulator")
            #expect(relay.simulator.stats.streams == 0)
        } catch {
            worker.stop()
            await running.value
            await relay.stop()
            throw error
        }
        worker.stop()
        await running.value
        await relay.stop()
    }
}
