import Testing
@testable import APNSSimulator

@Suite struct DeliveryLogTests {
    func delivery(_ token: String, _ payload: String) -> APNSDelivery {
        APNSDelivery(token: token, apnsID: "id", topic: "t", pushType: nil, payload: Array(payload.utf8), receivedAt: 0)
    }

    @Test func keepsTheLastPayloadPerToken() {
        var log = DeliveryLog(capacity: 10)
        log.record(delivery("a", "1"))
        log.record(delivery("a", "2"))
        #expect(log.count == 1)
        #expect(log.delivery(forToken: "a")?.payload == Array("2".utf8))
    }

    @Test func countsEveryDeliveryPerTokenAndKeepsTheLastCollapseID() {
        var log = DeliveryLog(capacity: 10)
        log.record(delivery("a", "1"))
        var resend = delivery("a", "1")
        resend.collapseID = "pushrelay-42"
        log.record(resend)
        log.record(delivery("b", "1"))
        #expect(log.delivery(forToken: "a")?.count == 2)
        #expect(log.delivery(forToken: "a")?.collapseID == "pushrelay-42")
        #expect(log.delivery(forToken: "b")?.count == 1)
    }

    @Test func forgetsTheOldestTokenBeyondCapacity() {
        var log = DeliveryLog(capacity: 3)
        for token in ["a", "b", "c", "d", "e"] { log.record(delivery(token, token)) }
        #expect(log.count == 3)
        #expect(log.delivery(forToken: "a") == nil)
        #expect(log.delivery(forToken: "b") == nil)
        #expect(log.all.map(\.token) == ["c", "d", "e"])
    }

    @Test func zeroCapacityRecordsNothing() {
        var log = DeliveryLog(capacity: 0)
        log.record(delivery("a", "1"))
        #expect(log.count == 0)
    }

    @Test func recorderCountsAndResets() {
        let recorder = SimulatorRecorder(maxRecordedTokens: 5)
        #expect(recorder.connectionOpened(limit: 1))
        #expect(!recorder.connectionOpened(limit: 1))
        recorder.streamBegan()
        recorder.accepted(delivery("a", #"{"aps":{}}"#))
        recorder.rejected(.badDeviceToken)
        recorder.rejected(.badDeviceToken)
        var stats = recorder.stats
        #expect(stats.accepted == 1 && stats.rejected == ["BadDeviceToken": 2] && stats.connections == 1 && stats.streams == 1)
        #expect(stats.refusedConnections == 1)
        #expect(recorder.deliveries(token: "a").count == 1)
        recorder.reset()
        stats = recorder.stats
        #expect(stats.accepted == 0 && stats.rejectedTotal == 0 && stats.openConnections == 1)
        #expect(recorder.deliveries().isEmpty)
    }
}
