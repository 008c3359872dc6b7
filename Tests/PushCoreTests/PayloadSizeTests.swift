import RelayCore
import Testing
@testable import PushCore

/// The 4096-byte limit, checked at validation with the longest msg_id and badge.
@Suite struct PayloadSizeTests {
    /// `{"_j_msgid":<19 digits>,"aps":{"alert":"<n bytes>"}}` is 51 + n bytes.
    static let overhead = 51

    func alertBody(_ length: Int, badge: String? = nil) -> String {
        let badgeField = badge.map { ",\"badge\":\($0)" } ?? ""
        return iosBody("{\"alert\":\"\(String(repeating: "a", count: length))\"\(badgeField)}")
    }

    @Test func exactlyAtTheLimitPassesOnePastFails() throws {
        let fits = try push(alertBody(4096 - Self.overhead))
        let prepared = try APNSPayloadBuilder.prepare(fits, msgID: MessageID(rawValue: .max)!, topic: "t", acceptedAt: 0)
        #expect(prepared.maxPayloadSize == 4096)
        #expect(prepared.notification(deviceID: 1, storedBadge: 0).payload.count == 4096)
        #expect(rejection(alertBody(4097 - Self.overhead)) == JPushError(
            status: 400, code: 1005,
            message: "the APNs payload would be 4097 bytes; at most 4096 are allowed for alert pushes — shorten the alert or extras"))
    }

    @Test func validationAssumesTheLongestMsgID() throws {
        // Fits with a short msg_id, not with a 19-digit one: refused before accepting.
        let length = 4096 - Self.overhead + 1
        let request = PushRequest(platform: .all, audience: .all, notification: PushNotification(alert: String(repeating: "a", count: length)))
        #expect(throws: Never.self) {
            try APNSPayloadBuilder.prepare(request, msgID: MessageID(rawValue: 1)!, topic: "t", acceptedAt: 0)
        }
        #expect(rejection(alertBody(length))?.code == 1005)
    }

    @Test func relativeBadgeReservesSevenDigits() throws {
        // ,"badge": is 9 bytes, plus up to 7 digits.
        let length = 4096 - Self.overhead - 9 - 7
        let request = try push(alertBody(length, badge: #""+1""#))
        let prepared = try APNSPayloadBuilder.prepare(request, msgID: MessageID(rawValue: .max)!, topic: "t", acceptedAt: 0)
        #expect(prepared.maxPayloadSize == 4096)
        #expect(prepared.notification(deviceID: 1, storedBadge: PushLimits.maxBadge - 1).payload.count == 4096)
        #expect(prepared.notification(deviceID: 1, storedBadge: 0).payload.count == 4090)
        #expect(rejection(alertBody(length + 1, badge: #""+1""#))?.code == 1005)
        // A fixed badge costs only its own digits.
        #expect(try push(alertBody(length + 6, badge: "1")).notification != nil)
        #expect(rejection(alertBody(length + 7, badge: "1"))?.code == 1005)
    }

    @Test func multibyteTextCountsInBytes() {
        // 1348 ideographs are 4044 bytes: 51 + 4044 = 4095 fits, one more does not.
        #expect(rejection(iosBody("{\"alert\":\"\(String(repeating: "中", count: 1348))\"}")) == nil)
        #expect(rejection(iosBody("{\"alert\":\"\(String(repeating: "中", count: 1349))\"}"))?.code == 1005)
    }

    @Test func messageAndExtrasCount() {
        let big = String(repeating: "m", count: 4096)
        #expect(rejection(body("\"message\":{\"msg_content\":\"\(big)\"}", notification: nil))?.code == 1005)
        #expect(rejection(iosBody("{\"alert\":\"a\",\"extras\":{\"k\":\"\(big)\"}}"))?.code == 1005)
    }

    @Test func notCheckedWhenIOSIsNotTargeted() {
        // Within FCM's limit but past APNs': fine for Android alone.
        let big = String(repeating: "m", count: 3800)
        #expect(rejection(body(platform: #"["android"]"#, notification: "{\"android\":{\"alert\":\"\(big)\"},\"ios\":{\"alert\":\"\(big)\",\"badge\":1}}")) == nil)
        #expect(rejection(body(platform: #"["winphone"]"#, notification: "{\"alert\":\"\(big)\(big)\"}")) == nil)
    }
}
