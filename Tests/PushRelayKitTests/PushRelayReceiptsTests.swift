import Foundation
import PushRelayKit
import Testing

/// Receipts from the Notification Service Extension and from taps, against a scripted relay
/// and a hand-driven clock: with and without network, within the extension's time, and
/// what each answer of the relay leads to.
@Suite struct PushRelayReceiptsTests {
    static let credentials = DeviceCredentials(registrationID: "rid1", deviceSecret: "secret1", token: "aa01", environment: .production)
    static let recorded = ScriptedTransport.Answer.reply(200, #"{"recorded":1,"duplicates":0,"dropped":0}"#)
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    struct Phone {
        let transport: ScriptedTransport
        let sleeper = ManualSleeper()
        let queue = InMemoryReceiptQueueStore()
        let credentials: InMemoryCredentialStore
        let receipts: PushRelayReceipts

        init(_ answers: [ScriptedTransport.Answer], registered: Bool = true, queue store: (any ReceiptQueueStore)? = nil) {
            transport = ScriptedTransport(answers)
            credentials = InMemoryCredentialStore(registered ? PushRelayReceiptsTests.credentials : nil)
            let client = PushRelayDeviceClient(baseURL: URL(string: "http://relay.test")!, clientKey: "ck_k1_public", transport: transport)
            receipts = PushRelayReceipts(registration: ClientKeyRegistration(client: client, store: credentials), store: store ?? queue,
                                         backoff: Backoff(initial: .seconds(2), jitter: 0), sleeper: sleeper, random: { 0 },
                                         now: { PushRelayReceiptsTests.now })
        }

        var queued: [Receipt] { (try? queue.update { $0.receipts }) ?? [] }
        var receiptRequests: [ScriptedTransport.Sent] { transport.sent.filter { $0.url.hasSuffix("/client/v1/receipts") } }
    }

    /// What the extension gets: `userInfo` as the OS hands it over.
    static func userInfo(msgID: Any) -> [AnyHashable: Any] {
        ["aps": ["alert": "Trade filled", "mutable-content": 1] as [String: Any], "_j_msgid": msgID, "route": "trade"]
    }

    @Test func theExtensionReportsReceivedInOneCall() async throws {
        let phone = Phone([Self.recorded])
        #expect(await phone.receipts.didReceive(Self.userInfo(msgID: 18100013)) == .sent)
        let sent = try #require(phone.receiptRequests.first)
        #expect(sent.method == "POST" && sent.url == "http://relay.test/client/v1/receipts")
        #expect(sent.headers["Authorization"] == "Bearer secret1")
        let expected: [String: Any] = ["registration_id": "rid1", "receipts": [["msg_id": 18100013, "event": "received", "at": 1_700_000_000]]]
        #expect(NSDictionary(dictionary: sent.json) == NSDictionary(dictionary: expected))
        #expect(phone.queued.isEmpty)
        #expect(phone.sleeper.waitingCount == 0, "the budget's timer ended with the send")
    }

    @Test func aStringMsgIDIsReportedAsAString() async throws {
        let phone = Phone([Self.recorded])
        #expect(await phone.receipts.didReceive(Self.userInfo(msgID: "m-7")) == .sent)
        let receipts = try #require(phone.receiptRequests.first?.json["receipts"] as? [[String: Any]])
        #expect(receipts.first?["msg_id"] as? String == "m-7")
    }

    @Test func aNotificationTheRelayDidNotSendIsNotReported() async throws {
        let phone = Phone([])
        #expect(await phone.receipts.didReceive(["aps": ["alert": "hi"]]) == .notFromRelay)
        #expect(phone.transport.sent.isEmpty && phone.queued.isEmpty)
    }

    @Test func offlineTheReceiptIsQueuedAndSentWithTheNextOne() async throws {
        let phone = Phone([.offline])
        #expect(await phone.receipts.didReceive(Self.userInfo(msgID: 1)) == .queued)
        #expect(phone.queued.map(\.msgID) == ["1"])
        try await phone.sleeper.waitForSleepers()
        #expect(phone.sleeper.waitingDurations == [.seconds(2)], "a retry after the backoff")

        phone.transport.answer([Self.recorded])
        #expect(await phone.receipts.didReceive(Self.userInfo(msgID: 2)) == .sent)
        let batch = try #require(phone.receiptRequests.last?.json["receipts"] as? [[String: Any]])
        #expect(batch.compactMap { $0["msg_id"] as? Int } == [1, 2], "one request for both")
        #expect(phone.queued.isEmpty)
    }

    @Test func noAnswerWithinTheBudgetLeavesItQueued() async throws {
        let phone = Phone([.silent])
        async let delivery = phone.receipts.didReceive(Self.userInfo(msgID: 1), within: .seconds(5))
        try await phone.sleeper.fire(.seconds(5))
        #expect(await delivery == .queued)
        #expect(phone.queued.map(\.msgID) == ["1"])
        #expect(phone.sleeper.waitingCount == 0, "a cut-off send is no failure: no retry scheduled by it")
    }

    @Test(arguments: [
        ScriptedTransport.Answer.reply(429, #"{"error":{"code":2002,"message":"too many"}}"#),
        ScriptedTransport.Answer.reply(503, #"{"error":{"code":7030,"message":"busy"}}"#),
        ScriptedTransport.Answer.reply(502, "<html>bad gateway</html>"),
    ])
    func rateLimitsAndServerErrorsAreRetriedWithGrowingBackoff(answer: ScriptedTransport.Answer) async throws {
        let phone = Phone([answer, answer, Self.recorded])
        #expect(await phone.receipts.report(.opened, msgID: "5") == .queued)
        try await phone.sleeper.fire(.seconds(2))
        try await phone.sleeper.fire(.seconds(4))
        try await poll("the retry to go through") { phone.queued.isEmpty ? true : nil }
        #expect(phone.receiptRequests.count == 3)
        #expect(phone.sleeper.requested == [.seconds(2), .seconds(4)])
    }

    @Test func aRefusedReceiptIsDroppedNotRetried() async throws {
        let phone = Phone([.reply(400, #"{"error":{"code":1003,"message":"bad msg_id"}}"#)])
        #expect(await phone.receipts.report(.received, msgID: "9") == .sent)
        #expect(phone.queued.isEmpty)
        #expect(phone.sleeper.requested.isEmpty)
    }

    @Test func aRefusedSecretIsRenewedThenTheReceiptSent() async throws {
        let phone = Phone([
            .reply(401, #"{"error":{"code":7004,"message":"bad secret"}}"#),
            .reply(200, #"{"registration_id":"rid1","device_secret":"secret2"}"#),
            Self.recorded,
        ])
        #expect(await phone.receipts.report(.received, msgID: "9") == .sent)
        #expect(phone.transport.sent.map(\.url) == ["http://relay.test/client/v1/receipts", "http://relay.test/client/v1/devices", "http://relay.test/client/v1/receipts"])
        #expect(phone.transport.sent[1].headers["Authorization"] == "Bearer ck_k1_public")
        #expect(phone.transport.sent[1].json["token"] as? String == "aa01")
        #expect(phone.transport.sent[2].headers["Authorization"] == "Bearer secret2")
        #expect(phone.credentials.load()?.deviceSecret == "secret2")
    }

    @Test func aSecretRefusedAgainAfterRenewalWaitsForTheBackoff() async throws {
        let refused = ScriptedTransport.Answer.reply(403, #"{"error":{"code":7004,"message":"not this device"}}"#)
        let phone = Phone([refused, .reply(200, #"{"registration_id":"rid1","device_secret":"secret2"}"#), refused])
        #expect(await phone.receipts.report(.received, msgID: "9") == .queued)
        #expect(phone.transport.sent.count == 3, "renewed once, not in a loop")
        try await phone.sleeper.waitForSleepers()
        #expect(phone.sleeper.waitingDurations == [.seconds(2)])
    }

    @Test func beforeRegistrationReceiptsWait() async throws {
        let phone = Phone([Self.recorded], registered: false)
        #expect(await phone.receipts.report(.received, msgID: "9") == .queued)
        #expect(phone.transport.sent.isEmpty)
        phone.credentials.save(Self.credentials)
        #expect(await phone.receipts.flush() == .sent)
        #expect(phone.receiptRequests.count == 1)
    }

    @Test func aLongQueueIsFlushedInBatchesOfAHundred() async throws {
        let phone = Phone([Self.recorded, Self.recorded, Self.recorded])
        try phone.queue.update { queue in
            for id in 1...250 { queue.add(Receipt(msgID: String(id), event: .received, at: 1)) }
        }
        #expect(await phone.receipts.flush() == .sent)
        #expect(phone.receiptRequests.map { ($0.json["receipts"] as? [Any])?.count ?? 0 } == [100, 100, 50])
    }

    @Test func aTapReportsOpenedOnce() async throws {
        let phone = Phone([Self.recorded])
        let router = NotificationRouter<String>()
        router.route("trade", to: "TradeDetail")
        router.reportOpens(to: phone.receipts)
        let payload = try NotificationPayload(userInfo: Self.userInfo(msgID: 77))
        router.handleTap(payload)
        router.handleTap(payload)  // the OS reports a launching tap twice
        let sent = try await poll("the opened receipt") { phone.receiptRequests.first }
        #expect((sent.json["receipts"] as? [[String: Any]])?.first?["event"] as? String == "opened")
        #expect((sent.json["receipts"] as? [[String: Any]])?.first?["msg_id"] as? Int == 77)
        try await poll("the queue to empty") { phone.queued.isEmpty ? true : nil }
        #expect(phone.receiptRequests.count == 1)
    }

    @Test func theAppAndItsExtensionShareAFileQueue() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-\(UUID().uuidString).json")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(atPath: url.path + ".lock")
        }
        // The extension, offline, queues; the app, online, sends what the extension left.
        let nse = Phone([.offline], queue: FileReceiptQueueStore(url: url))
        #expect(await nse.receipts.didReceive(Self.userInfo(msgID: 1)) == .queued)
        let app = Phone([Self.recorded], queue: FileReceiptQueueStore(url: url))
        #expect(await app.receipts.flush() == .sent)
        #expect((app.receiptRequests.first?.json["receipts"] as? [[String: Any]])?.first?["msg_id"] as? Int == 1)
        #expect(try FileReceiptQueueStore(url: url).update { $0.receipts }.isEmpty)
    }
}

/// The file queue: changes from several writers at once are all kept; a file it cannot read is replaced.
@Suite struct FileReceiptQueueStoreTests {
    @Test func concurrentWritersLoseNothing() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-\(UUID().uuidString).json")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(atPath: url.path + ".lock")
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<4 {
                group.addTask {
                    let store = FileReceiptQueueStore(url: url)  // a store each, as two processes have
                    for id in 0..<25 {
                        try store.update { _ = $0.add(Receipt(msgID: "\(writer)-\(id)", event: .received, at: 1)) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try FileReceiptQueueStore(url: url).update { $0.receipts.count } == 100)
    }

    @Test func anUnreadableFileStartsAnEmptyQueue() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("receipts-\(UUID().uuidString).json")
        defer {
            try? FileManager.default.removeItem(at: url)
            try? FileManager.default.removeItem(atPath: url.path + ".lock")
        }
        try Data("not json".utf8).write(to: url)
        let store = FileReceiptQueueStore(url: url)
        #expect(try store.update { $0.receipts.isEmpty })
        try store.update { _ = $0.add(Receipt(msgID: "1", event: .opened, at: 1)) }
        #expect(try store.update { $0.receipts.map(\.msgID) } == ["1"])
    }
}
