import APNSClient
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

    /// Whether a device that got a message twice showed it once: only when every copy, the
    /// first included, carried the same collapse id (the fault suite's table counts these).
    @Test func tellsWhetherEveryCopyCarriedOneCollapseID() {
        var log = DeliveryLog(capacity: 10)
        func send(_ token: String, _ collapseID: String?) {
            var delivery = delivery(token, "1")
            delivery.collapseID = collapseID
            log.record(delivery)
        }
        send("first-without", nil)
        send("first-without", "pushrelay-42")
        send("same", "pushrelay-42")
        send("same", "pushrelay-42")
        send("same", "pushrelay-42")
        send("changed", "pushrelay-42")
        send("changed", "other")
        send("changed", "pushrelay-42")
        send("once", "pushrelay-42")
        send("never", nil)
        #expect(log.delivery(forToken: "first-without")?.oneCollapseID == false)
        #expect(log.delivery(forToken: "same")?.oneCollapseID == true)
        #expect(log.delivery(forToken: "changed")?.oneCollapseID == false)
        #expect(log.delivery(forToken: "once")?.oneCollapseID == true)
        #expect(log.delivery(forToken: "never")?.oneCollapseID == false)
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
        recorder.rejected(APNSReason.badDeviceToken.description)
        recorder.rejected(APNSReason.badDeviceToken.description)
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
