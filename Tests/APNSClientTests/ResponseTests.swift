import Foundation
import Testing
@testable import APNSClient

@Suite struct ResponseTests {
    /// Every reason string in the APNs contract.
    static let reasons = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
        "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken", "BadPath",
        "MethodNotAllowed", "ExpiredToken", "Unregistered", "PayloadTooLarge", "TooManyProviderTokenUpdates",
        "TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown",
        // Broadcast channels ("Handling error responses from Apple Push Notification service").
        "FeatureNotEnabled", "MissingChannelId", "BadChannelId", "ChannelNotRegistered", "BadRequestParams", "BadRequestPayload",
        "MissingPushType", "CannotCreateChannelConfig", "TopicMismatch",
    ]

    @Test(arguments: reasons)
    func knownReasonsRoundTrip(reason: String) {
        let parsed = APNSReason(reason)
        #expect(parsed != .unknown(reason))
        #expect(parsed.description == reason)
    }

    /// The status APNs documents for each reason (the simulator answers with it).
    @Test func everyKnownReasonHasItsDocumentedStatus() {
        let statuses: [Int: [String]] = [
            403: ["BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden",
                  "InvalidProviderToken", "MissingProviderToken", "TopicMismatch"],
            404: ["BadPath"], 405: ["MethodNotAllowed"], 410: ["ExpiredToken", "Unregistered"], 413: ["PayloadTooLarge"],
            429: ["TooManyProviderTokenUpdates", "TooManyRequests"], 500: ["InternalServerError"],
            503: ["ServiceUnavailable", "Shutdown"],
        ]
        #expect(APNSReason.known.map(\.description) == Self.reasons)
        for reason in APNSReason.known {
            let status = statuses.first { $0.value.contains(reason.description) }?.key ?? 400
            #expect(reason.status == status, "\(reason)")
        }
        #expect(APNSReason("SomethingNew").status == 400)
    }

    @Test func unknownReasonsAreKept() {
        #expect(APNSReason("SomethingNew") == .unknown("SomethingNew"))
        #expect(APNSReason("SomethingNew").description == "SomethingNew")
        #expect(APNSReason("baddevicetoken") == .unknown("baddevicetoken"))
    }

    @Test func acceptedUsesTheAnsweredIDOrOurs() {
        let sent = UUID()
        let answered = UUID()
        #expect(APNSResult(status: 200, apnsID: answered.uuidString, body: [], sentID: sent) == .accepted(apnsID: answered))
        #expect(APNSResult(status: 200, apnsID: nil, body: [], sentID: sent) == .accepted(apnsID: sent))
        #expect(APNSResult(status: 200, apnsID: "garbage", body: [], sentID: sent) == .accepted(apnsID: sent))
    }

    @Test func errorBodiesGiveReasonAndTimestamp() {
        let bad = APNSResult(status: 400, apnsID: nil, body: Array(#"{"reason":"BadDeviceToken"}"#.utf8), sentID: UUID())
        #expect(bad == .rejected(status: 400, reason: .badDeviceToken, timestamp: nil))
        let gone = APNSResult(status: 410, apnsID: nil, body: Array(#"{"reason":"Unregistered","timestamp":1700000000123}"#.utf8), sentID: UUID())
        #expect(gone == .rejected(status: 410, reason: .unregistered, timestamp: Date(timeIntervalSince1970: 1_700_000_000.123)))
        let html = APNSResult(status: 502, apnsID: nil, body: Array("<html>bad gateway</html>".utf8), sentID: UUID())
        #expect(html == .rejected(status: 502, reason: .unknown(""), timestamp: nil))
    }
}

/// The response table of the APNs contract, row by row.
@Suite struct ActionTests {
    static func rejected(_ status: Int, _ reason: String, timestamp: Date? = nil) -> APNSResult {
        .rejected(status: status, reason: APNSReason(reason), timestamp: timestamp)
    }

    @Test func acceptedIsSent() {
        #expect(action(for: .accepted(apnsID: UUID())) == .sent)
    }

    @Test(arguments: ["BadDeviceToken", "DeviceTokenNotForTopic"])
    func deadTokensAreInvalidated(reason: String) {
        #expect(action(for: Self.rejected(400, reason)) == .invalidateToken(since: nil))
    }

    @Test(arguments: [
        "BadCollapseId", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic", "DuplicateHeaders",
        "InvalidPushType", "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadPath", "MissingDeviceToken",
    ])
    func badRequestsFailPermanently(reason: String) {
        #expect(action(for: Self.rejected(400, reason)) == .failPermanently(APNSReason(reason)))
    }

    @Test func expiredProviderTokenRefreshes() {
        #expect(action(for: Self.rejected(403, "ExpiredProviderToken")) == .refreshTokenAndRetry)
    }

    @Test(arguments: ["InvalidProviderToken", "MissingProviderToken", "BadCertificate", "BadCertificateEnvironment", "Forbidden"])
    func brokenCredentials(reason: String) {
        #expect(action(for: Self.rejected(403, reason)) == .credentialsBroken(APNSReason(reason)))
    }

    @Test func wrongPathOrMethodFailPermanently() {
        #expect(action(for: Self.rejected(404, "BadPath")) == .failPermanently(.badPath))
        #expect(action(for: Self.rejected(405, "MethodNotAllowed")) == .failPermanently(.methodNotAllowed))
    }

    @Test(arguments: ["Unregistered", "ExpiredToken"])
    func goneTokensAreInvalidatedSinceTheirTimestamp(reason: String) {
        let since = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(action(for: Self.rejected(410, reason, timestamp: since)) == .invalidateToken(since: since))
    }

    @Test func tooLargeFailsTheMessage() {
        #expect(action(for: Self.rejected(413, "PayloadTooLarge")) == .failMessage("PayloadTooLarge"))
    }

    @Test func throttling() {
        #expect(action(for: Self.rejected(429, "TooManyRequests")) == .retryWithBackoff)
        #expect(action(for: Self.rejected(429, "TooManyProviderTokenUpdates")) == .keepTokenRetryLater)
    }

    @Test func serverErrors() {
        #expect(action(for: Self.rejected(500, "InternalServerError")) == .retryWithBackoff)
        #expect(action(for: Self.rejected(503, "ServiceUnavailable")) == .retryWithBackoff)
        #expect(action(for: Self.rejected(503, "Shutdown")) == .retryOnNewConnection)
    }

    @Test func unknownReasonsFollowTheirStatus() {
        #expect(action(for: Self.rejected(400, "Novel")) == .failPermanently(.unknown("Novel")))
        #expect(action(for: Self.rejected(403, "Novel")) == .credentialsBroken(.unknown("Novel")))
        #expect(action(for: Self.rejected(502, "")) == .retryWithBackoff)
    }

    @Test func failuresWithoutAnAnswer() {
        #expect(action(for: .failed(.connectionFailed("refused"))) == .retryWithBackoff)
        #expect(action(for: .failed(.timedOut)) == .retryWithBackoff)
        #expect(action(for: .failed(.shutdown)) == .retryWithBackoff)
        #expect(action(for: .failed(.expired)) == .failMessage("expired before it could be sent"))
        #expect(action(for: .failed(.invalid(.backgroundNeedsPriority5))) == .failMessage("background notifications need priority 5"))
    }
}
