@testable import RelayStore
import Testing
import PushCore
import RelayCore
@testable import RelayAPI

/// The report calls' decisions, without a database: msg_ids parsing, derived figures,
/// per-device status and the status body.
@Suite struct ReportsUnitTests {
    @Test func msgIDsAreTrimmedDeduplicatedAndBounded() throws {
        #expect(try MessageIDList.parse(" 12, 7,12,,") == [MessageID(rawValue: 12)!, MessageID(rawValue: 7)!])
        let hundred = (1...100).map(String.init).joined(separator: ",")
        #expect(try MessageIDList.parse(hundred).count == 100)
        #expect(throws: ReportFamily.tooMany("msg_ids has 101 msg_ids; at most 100 are allowed")) {
            try MessageIDList.parse(hundred + ",101")
        }
        for bad in [nil, "", " , ", "abc", "0", "-5", "1.5", "12a", "99999999999999999999"] as [String?] {
            #expect(throws: JPushError.self) { try MessageIDList.parse(bad) }
            do { _ = try MessageIDList.parse(bad) } catch { #expect(error.code == 3002 && error.status == 400) }
        }
    }

    static func counters(state: MessageState, target: Int, sent: Int, failed: Int = 0, invalidated: Int = 0,
                         expired: Int = 0, duration: Double? = nil) -> MessageCounters {
        MessageCounters(id: MessageID(rawValue: 1)!, state: state, target: target, sent: sent, failed: failed,
                        invalidated: invalidated, expired: expired, retries: 0, createdAt: "2026-11-30T09:00:00Z",
                        firstSentAt: nil, lastSentAt: nil, finishedAt: nil, durationSeconds: duration)
    }

    @Test func pendingIsWhatHasNoOutcomeAndWithdrawnTakesItOver() {
        let sending = Self.counters(state: .sending, target: 100, sent: 60, failed: 5, invalidated: 3, expired: 2)
        #expect(sending.pending == 30 && sending.withdrawn == 0)
        let withdrawn = Self.counters(state: .withdrawn, target: 100, sent: 60, failed: 5, invalidated: 3, expired: 2)
        #expect(withdrawn.pending == 0 && withdrawn.withdrawn == 30)
        // Counters never make pending negative, even if outcomes outran the target count.
        #expect(Self.counters(state: .resolving, target: 10, sent: 12).pending == 0)
    }

    @Test func throughputOnlyForFinishedMessages() {
        #expect(Self.counters(state: .sending, target: 10, sent: 10).throughputPerSecond == nil)
        #expect(Self.counters(state: .done, target: 1000, sent: 1000, duration: 4).throughputPerSecond == 250)
        #expect(Self.counters(state: .done, target: 3, sent: 1, duration: 3).throughputPerSecond == 0.3)
        #expect(Self.counters(state: .done, target: 1, sent: 1, duration: 0).throughputPerSecond == nil)
    }

    @Test func deviceStatus() {
        #expect(DeliveryStatus.of(isDevice: false, outcome: nil, messageState: .sending) == .notInApp)
        #expect(DeliveryStatus.of(isDevice: true, outcome: "sent", messageState: .done) == .delivered)
        for outcome in ["failed", "invalidated", "expired", "withdrawn"] {
            #expect(DeliveryStatus.of(isDevice: true, outcome: outcome, messageState: .done) == .notDelivered)
        }
        // Without an outcome: waiting while in flight, not a target once done, not delivered once withdrawn.
        #expect(DeliveryStatus.of(isDevice: true, outcome: nil, messageState: .resolving) == .notDelivered)
        #expect(DeliveryStatus.of(isDevice: true, outcome: nil, messageState: .sending) == .notDelivered)
        #expect(DeliveryStatus.of(isDevice: true, outcome: nil, messageState: .done) == .notTargeted)
        #expect(DeliveryStatus.of(isDevice: true, outcome: nil, messageState: .withdrawn) == .notDelivered)
        #expect([DeliveryStatus.delivered, .notDelivered, .notInApp, .notTargeted, .error].map(\.rawValue) == [0, 1, 2, 3, 4])
    }

    static func statusBody(_ json: String) throws(JPushError) -> StatusRequest {
        try StatusRequest(try JSONObjectReader(Array(json.utf8)))
    }

    @Test func statusBodyTakesMsgIDAsStringOrNumber() throws {
        let number = try Self.statusBody(#"{"msg_id":123,"registration_ids":["a","b","a"]}"#)
        let text = try Self.statusBody(#"{"msg_id":"123","registration_ids":["a","b"],"date":"2026-11-30"}"#)
        #expect(number.messageID.rawValue == 123 && number.registrationIDs == ["a", "b"])
        #expect(text == number)
    }

    @Test func statusBodyErrors() {
        let thousand = (0..<1000).map { "\"r\($0)\"" }.joined(separator: ",")
        #expect((try? Self.statusBody(#"{"msg_id":1,"registration_ids":[\#(thousand)]}"#))?.registrationIDs.count == 1000)
        let cases: [(String, Int)] = [
            (#"{"msg_id":1,"registration_ids":[\#(thousand),"x"]}"#, 3005),
            (#"{"registration_ids":["a"]}"#, 3002),
            (#"{"msg_id":"x1","registration_ids":["a"]}"#, 3002),
            (#"{"msg_id":0,"registration_ids":["a"]}"#, 3002),
            (#"{"msg_id":1.5,"registration_ids":["a"]}"#, 3002),
            (#"{"msg_id":1}"#, 3002),
            (#"{"msg_id":1,"registration_ids":[]}"#, 3002),
            (#"{"msg_id":1,"registration_ids":[7]}"#, 3002),
            (#"{"msg_id":1,"registration_ids":"a"}"#, 3002),
            (#"{"msg_id":1,"registration_ids":["a"],"date":"30/11/2026"}"#, 3002),
            (#"{"msg_id":1,"registration_ids":["a"],"date":"2026-13-01"}"#, 3002),
        ]
        for (body, code) in cases {
            do {
                _ = try Self.statusBody(body)
                Issue.record("accepted \(body.prefix(80))")
            } catch {
                #expect(error.code == code, "\(body.prefix(80))")
            }
        }
        // Unknown keys and non-JSON are refused too; the route answers them as 3002.
        #expect(throws: JPushError.self) { try Self.statusBody(#"{"msg_id":1,"registration_ids":["a"],"extra":1}"#) }
        #expect(ReportFamily.translate(JPushError.illegalValue("x"), logger: Logger(label: "t", level: .error)).code == 3002)
    }
}
