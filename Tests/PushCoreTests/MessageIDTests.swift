import Foundation
import RelayCore
import Testing
@testable import PushCore

@Suite struct MessageIDTests {
    @Test func parsingText() {
        #expect(MessageID("1")?.rawValue == 1)
        #expect(MessageID("9223372036854775807")?.rawValue == .max)
        #expect(MessageID("9223372036854775808") == nil)
        #expect(MessageID("0") == nil)
        #expect(MessageID("") == nil)
        #expect(MessageID("-1") == nil)
        #expect(MessageID("+1") == nil)
        #expect(MessageID(" 1") == nil)
        #expect(MessageID("00000000000000000001") == nil)
        #expect(MessageID(rawValue: 0) == nil)
        #expect(MessageID(rawValue: -5) == nil)
        #expect(MessageID(rawValue: 18_100_012_345_678_901)?.description == "18100012345678901")
    }

    @Test func parsingJSON() throws {
        #expect(try MessageID.parse(.string("18100012345678901"), field: "msg_id").rawValue == 18_100_012_345_678_901)
        #expect(try MessageID.parse(.int(5), field: "msg_id").rawValue == 5)
        #expect(throws: JPushError.illegalValue("msg_id must be a msg_id (a positive 64-bit integer, as a string or a number), got 1.5")) {
            try MessageID.parse(.double(1.5), field: "msg_id")
        }
    }

    @Test func replyRendersBothAsStrings() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let reply = PushReply(sendno: 12345, msgID: MessageID(rawValue: 9_223_372_036_854_775_807)!)
        #expect(String(decoding: try encoder.encode(reply), as: UTF8.self) == #"{"msg_id":"9223372036854775807","sendno":"12345"}"#)
        let ignoring = PushReply(sendno: 0, msgID: MessageID(rawValue: 5)!, ignored: ["callback", "notification.android"])
        #expect(String(decoding: try encoder.encode(ignoring), as: UTF8.self)
            == #"{"ignored":["callback","notification.android"],"msg_id":"5","sendno":"0"}"#)
    }
}

@Suite struct MessageIDGeneratorTests {
    let now: Int64 = 1_800_000_000_123

    @Test func layout() {
        var generator = MessageIDGenerator(node: 5)
        let id = generator.next(nowMilliseconds: now)
        #expect(id.rawValue == (now - MessageIDGenerator.epochMilliseconds) << 22 | 5 << 12)
        #expect(MessageIDGenerator.milliseconds(of: id) == now)
        #expect(generator.next(nowMilliseconds: now).rawValue == id.rawValue + 1)
        #expect(MessageIDGenerator(node: 1024 + 3).node == 3)
    }

    @Test func strictlyIncreasingEvenWhenTheClockStepsBack() {
        var generator = MessageIDGenerator(node: 1)
        var previous = generator.next(nowMilliseconds: now)
        for clock in [now, now + 5, now - 1000, now + 5, now + 6, 0] {
            let id = generator.next(nowMilliseconds: clock)
            #expect(id > previous)
            previous = id
        }
    }

    @Test func aFullMillisecondBorrowsTheNext() {
        var generator = MessageIDGenerator(node: 0)
        let ids = (0..<4097).map { _ in generator.next(nowMilliseconds: now) }
        #expect(Set(ids).count == 4097)
        #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 })
        #expect(MessageIDGenerator.milliseconds(of: ids[4095]) == now)
        #expect(MessageIDGenerator.milliseconds(of: ids[4096]) == now + 1)
        // The real next millisecond does not repeat the borrowed one's ids.
        let next = generator.next(nowMilliseconds: now + 1)
        #expect(next > ids[4096])
    }

    @Test func generatorsWithDifferentNodesNeverCollide() {
        var a = MessageIDGenerator(node: 1)
        var b = MessageIDGenerator(node: 2)
        var seen = Set<MessageID>()
        for step in 0..<2000 {
            let clock = now + Int64(step / 100)
            #expect(seen.insert(a.next(nowMilliseconds: clock)).inserted)
            #expect(seen.insert(b.next(nowMilliseconds: clock)).inserted)
        }
    }

    @Test func beforeTheEpochStillPositive() {
        var generator = MessageIDGenerator(node: 0)
        #expect(generator.next(nowMilliseconds: 0).rawValue > 0)
    }

    @Test func randomNodeIsInRange() {
        for _ in 0..<50 { #expect((0..<1024).contains(MessageIDGenerator().node)) }
    }
}

@Suite struct APNSNotificationIDTests {
    @Test func versionEightVariantTwoAndDeterministic() {
        let id = APNSNotificationID.make(msgID: MessageID(rawValue: 123_456_789)!, deviceID: 42)
        let text = id.uuidString.lowercased()
        #expect(Array(text)[14] == "8")
        #expect("89ab".contains(Array(text)[19]))
        #expect(id == APNSNotificationID.make(msgID: MessageID(rawValue: 123_456_789)!, deviceID: 42))
    }

    @Test func distinctPairsGiveDistinctIDs() {
        let messages: [Int64] = [1, 2, 3, 4096, 4097, 8191, 1 << 13, 1 << 15, 1 << 16, 1 << 40, .max, .max - 1, 7_549_747_156_631_552]
        let devices: [Int64] = [0, 1, 2, 3, 1 << 20, 1 << 58, (1 << 59) - 1, 12345]
        var seen = Set<UUID>()
        for message in messages {
            for device in devices {
                #expect(seen.insert(APNSNotificationID.make(msgID: MessageID(rawValue: message)!, deviceID: device)).inserted,
                        "\(message) \(device)")
            }
        }
        // Every bit of the msg_id and of the device id's low 59 bits changes the result.
        let base = APNSNotificationID.make(msgID: MessageID(rawValue: 1 << 62)!, deviceID: 0)
        for bit in 0..<62 {
            #expect(APNSNotificationID.make(msgID: MessageID(rawValue: 1 << 62 | 1 << bit)!, deviceID: 0) != base, "msg bit \(bit)")
        }
        for bit in 0..<59 {
            #expect(APNSNotificationID.make(msgID: MessageID(rawValue: 1 << 62)!, deviceID: 1 << bit) != base, "device bit \(bit)")
        }
    }
}
