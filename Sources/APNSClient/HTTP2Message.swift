import Foundation

/// One request the connection pools send: an HTTP/2 request (a POST unless it says otherwise)
/// whose fields and body the client that made it lays out (an APNs notification, an FCM
/// message, a channel-management request). The pools, connections, window and lanes know
/// nothing else about it.
package protocol HTTP2Message: Sendable {
    /// The `:method`.
    var method: StaticString { get }
    /// Lays out `:path`, `authorization` (the pool's provider token, or the message's own)
    /// and the other headers, in sending order; `RequestHeaderBlock.build` adds the rest.
    func layOutFields(_ block: inout RequestHeaderBlock, authorization: [UInt8]?)
    var body: [UInt8] { get }
    /// Unix seconds after which it is not sent; nil or 0: no limit.
    var expiration: Int? { get }
}

extension HTTP2Message {
    package var method: StaticString { "POST" }
}

/// What the pools report for one message.
package enum HTTP2Answer: Sendable {
    case response(HTTP2Response)
    /// No answer (the failure names why); `.invalid` is never produced by the pools.
    case failed(APNSFailure)
}

/// A server's answer: what the clients read of it.
package struct HTTP2Response: Sendable {
    package var status: Int
    /// The `apns-id` header, when one came.
    package var apnsID: UUID?
    /// The `retry-after` header, when one came.
    package var retryAfter: String?
    /// The `apns-channel-id` header, when one came (a created broadcast channel).
    package var channelID: String?
    /// The body, at most 16 KiB of it.
    package var body: [UInt8]

    package init(status: Int, apnsID: UUID? = nil, retryAfter: String? = nil, channelID: String? = nil, body: [UInt8] = []) {
        self.status = status
        self.apnsID = apnsID
        self.retryAfter = retryAfter
        self.channelID = channelID
        self.body = body
    }
}
