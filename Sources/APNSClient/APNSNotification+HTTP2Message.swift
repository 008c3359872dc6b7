import Foundation

/// An APNs notification as the pools send it: `/3/device/<token>`, the provider token, then
/// `APNSNotification.headers`' fields, in that order.
extension APNSNotification: HTTP2Message {
    package func layOutFields(_ block: inout RequestHeaderBlock, authorization: [UInt8]?) {
        block.add(":path") { storage in
            storage.append(contentsOf: "/3/device/".utf8)
            RequestHeaderBlock.append(deviceToken, to: &storage)
        }
        block.neverIndexLast()
        if let authorization { block.add("authorization", bytes: authorization) }
        block.add("apns-topic") { RequestHeaderBlock.append(topic, to: &$0) }
        block.add("apns-push-type") { RequestHeaderBlock.append(pushType.rawValue, to: &$0) }
        block.add("apns-priority") { RequestHeaderBlock.appendDecimal(priority.rawValue, to: &$0) }
        block.add("apns-id") { APNSID.append(apnsID, to: &$0) }
        block.neverIndexLast()
        if let expiration {
            block.add("apns-expiration") { RequestHeaderBlock.appendDecimal(expiration, to: &$0) }
        }
        if let collapseID {
            block.add("apns-collapse-id") { RequestHeaderBlock.append(collapseID, to: &$0) }
        }
    }

    package var body: [UInt8] { payload }
}

extension APNSResult {
    /// Reads what the pools answered for `notification`.
    init(_ answer: HTTP2Answer, sentID: UUID) {
        switch answer {
        case let .response(response) where response.status == 200:
            self = .accepted(apnsID: response.apnsID ?? sentID)
        case let .response(response):
            self = APNSResult(status: response.status, apnsID: nil, body: response.body, sentID: sentID)
        case let .failed(failure):
            self = .failed(failure)
        }
    }
}

extension HTTP2Response {
    /// Whether APNs refused the provider token as expired (403 `ExpiredProviderToken`).
    var isExpiredProviderToken: Bool { status == 403 && rejectionReason == .expiredProviderToken }

    /// Whether the server behind this connection is shutting down (503 `Shutdown`).
    var isShutdown: Bool { status == 503 && rejectionReason == .shutdown }

    private var rejectionReason: APNSReason? {
        guard case let .rejected(_, reason, _) = APNSResult(status: status, apnsID: nil, body: body, sentID: UUID()) else { return nil }
        return reason
    }
}
