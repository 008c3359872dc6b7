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
