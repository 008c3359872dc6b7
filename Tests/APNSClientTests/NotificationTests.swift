import Foundation
import Testing
@testable import APNSClient

@Suite struct NotificationTests {
    static let token = String(repeating: "0f", count: 32)

    static func make(
        pushType: APNSPushType = .alert, priority: APNSPriority = .immediate, payloadSize: Int = 20,
        collapseID: String? = nil, token: String = token, topic: String = "com.example.app"
    ) -> APNSNotification {
        APNSNotification(deviceToken: token, topic: topic, pushType: pushType, priority: priority,
                         collapseID: collapseID, payload: Array(repeating: UInt8(ascii: " "), count: payloadSize))
    }

    @Test func headersCarryEveryField() {
        let id = UUID(uuidString: "123E4567-E89B-12D3-A456-426614174000")!
        let notification = APNSNotification(
            deviceToken: Self.token, topic: "com.example.app.voip", pushType: .voip, priority: .powerConsiderate,
            expiration: 1_700_000_000, collapseID: "score", apnsID: id, payload: Array("{}".utf8))
        #expect(notification.path == "/3/device/\(Self.token)")
        let headers = Dictionary(uniqueKeysWithValues: notification.headers.map { ($0.name, $0.value) })
        #expect(headers == [
            "apns-topic": "com.example.app.voip", "apns-push-type": "voip", "apns-priority": "5",
            "apns-id": "123e4567-e89b-12d3-a456-426614174000", "apns-expiration": "1700000000",
            "apns-collapse-id": "score",
        ])
    }

    @Test func optionalHeadersAreLeftOutWhenUnset() {
        let names = Self.make().headers.map(\.name)
        #expect(!names.contains("apns-expiration"))
        #expect(!names.contains("apns-collapse-id"))
    }

    @Test func priorityAndPushTypeRawValuesMatchTheWire() {
        #expect(APNSPriority.allCases.map(\.rawValue) == [10, 5, 1])
        #expect(APNSPushType.allCases.map(\.rawValue) == [
            "alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk",
        ])
    }

    @Test func payloadLimitIs4096ExceptVoip() {
        #expect(Self.make(payloadSize: 4096).validate() == nil)
        #expect(Self.make(payloadSize: 4097).validate() == .payloadTooLarge(size: 4097, limit: 4096))
        #expect(Self.make(pushType: .voip, payloadSize: 5120).validate() == nil)
        #expect(Self.make(pushType: .voip, payloadSize: 5121).validate() == .payloadTooLarge(size: 5121, limit: 5120))
        #expect(Self.make(payloadSize: 0).validate() == .payloadEmpty)
    }

    @Test func backgroundNeedsPriority5() {
        #expect(Self.make(pushType: .background, priority: .immediate).validate() == .backgroundNeedsPriority5)
        #expect(Self.make(pushType: .background, priority: .low).validate() == .backgroundNeedsPriority5)
        #expect(Self.make(pushType: .background, priority: .powerConsiderate).validate() == nil)
    }

    @Test func headerValuesNghttp2WouldRefuseAreInvalid() {
        for value in ["a\nb", "a\rb", "a\u{0}b", "\tb", "a\u{7F}", " a", "a "] {
            #expect(Self.make(collapseID: value).validate()?.description.hasPrefix("apns-collapse-id ") == true, "\(value.debugDescription)")
        }
        for topic in ["com.ex\nample", "com.example\r", "\u{0}com.example", " com.example", "com.example "] {
            #expect(Self.make(topic: topic).validate()?.description.hasPrefix("apns-topic ") == true, "\(topic.debugDescription)")
        }
        #expect(Self.make(collapseID: "a b-é").validate() == nil)
    }

    @Test func collapseIDIsAtMost64Bytes() {
        #expect(Self.make(collapseID: String(repeating: "c", count: 64)).validate() == nil)
        #expect(Self.make(collapseID: String(repeating: "c", count: 65)).validate() == .collapseIDTooLong)
        // 22 three-byte characters are 66 bytes though only 22 characters.
        #expect(Self.make(collapseID: String(repeating: "€", count: 22)).validate() == .collapseIDTooLong)
    }

    @Test(arguments: ["", "abc", "zz", "0f0f 0f"])
    func badDeviceTokensAreRefused(token: String) {
        #expect(Self.make(token: token).validate() == .badDeviceToken)
    }

    @Test func uppercaseHexTokenAndMissingTopic() {
        #expect(Self.make(token: "ABCDEF01").validate() == nil)
        #expect(Self.make(topic: "").validate() == .missingTopic)
    }
}

/// The header block the connection sends carries what `APNSNotification.headers` describes.
@Suite struct RequestHeaderBlockTests {
    @Test(arguments: [false, true])
    func carriesThePseudoHeadersAuthorizationAndEveryField(optionals: Bool) {
        let notification = APNSNotification(
            deviceToken: NotificationTests.token, topic: "com.example.app", pushType: .background,
            priority: .powerConsiderate, expiration: optionals ? 1_700_000_000 : nil, collapseID: optionals ? "score" : nil,
            payload: Array(repeating: UInt8(ascii: " "), count: 1234))
        var block = RequestHeaderBlock()
        block.build(notification, authority: Array("127.0.0.1:2197".utf8), authorization: Array("bearer abc.def.ghi".utf8))
        let expected = [
            (":method", "POST"), (":scheme", "https"), (":authority", "127.0.0.1:2197"), (":path", notification.path),
            ("authorization", "bearer abc.def.ghi"),
        ] + notification.headers.map { ($0.name, $0.value) } + [("content-length", "1234")]
        #expect(block.pairs.map(\.name) == expected.map(\.0))
        #expect(block.pairs.map(\.value) == expected.map(\.1))
        // Built again for another notification, nothing of the first is left.
        block.build(NotificationTests.make(), authority: Array("h".utf8), authorization: nil)
        #expect(block.pairs.count == 9)
        #expect(!block.pairs.contains { $0.name == "authorization" })
        let count = block.withNameValues { _, count in count }
        #expect(count == 9)
    }

    @Test func idsAreUniqueVersion4AndParseBack() {
        var seen = Set<UUID>()
        for _ in 0..<10_000 { seen.insert(APNSNotification.makeID()) }
        #expect(seen.count == 10_000)
        let id = APNSNotification.makeID()
        let text = id.uuidString.lowercased()
        #expect(Array(text)[14] == "4", "version 4")
        #expect("89ab".contains(Array(text)[19]), "RFC 4122 variant")
        var bytes: [UInt8] = []
        APNSID.append(id, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
        #expect(APNSID.parse(text.utf8) == id)
        #expect(APNSID.parse(id.uuidString.utf8) == id)
        #expect(APNSID.parse("not-a-uuid".utf8) == nil)
        #expect(APNSID.parse("123e4567-e89b-12d3-a456-42661417400g".utf8) == nil)
        #expect(APNSID.parse("123e4567-e89b-12d3-a456+426614174000".utf8) == nil)
    }
}
