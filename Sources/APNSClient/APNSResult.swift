import Foundation
import RelayCore

/// What became of one `send`.
public enum APNSResult: Sendable, Hashable {
    /// APNs took the notification (200); the id it answered with, or ours when it sent none.
    case accepted(apnsID: UUID)
    /// APNs answered with an error status and reason.
    case rejected(status: Int, reason: APNSReason, timestamp: Date?)
    /// No answer from APNs: the notification may or may not have been delivered only when
    /// the failure says so (`timedOut`); the others never reached APNs.
    case failed(APNSFailure)
}

/// Why a `send` got no answer from APNs.
public enum APNSFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The notification broke a rule checked before sending.
    case invalid(APNSValidationError)
    /// The server refused the request for its own content below APNs' answers (its HTTP/2
    /// layer reset the stream with PROTOCOL_ERROR): sending it again would fail again.
    case refused(String)
    /// No connection could be made, or connections kept dying, until the retries ran out.
    case connectionFailed(String)
    /// APNs did not answer in time after the request was sent.
    case timedOut
    /// The notification's expiration passed before it could be sent.
    case expired
    /// The client is shutting down; the notification was never sent.
    case shutdown

    public var description: String {
        switch self {
        case let .invalid(error): "invalid notification: \(error)"
        case let .refused(detail): "refused: \(detail)"
        case let .connectionFailed(detail): "connection failed: \(detail)"
        case .timedOut: "timed out waiting for APNs"
        case .expired: "expired before it could be sent"
        case .shutdown: "client shut down"
        }
    }
}

extension APNSResult {
    /// Reads an APNs response into a result.
    ///
    /// - Parameters:
    ///   - status: the `:status` of the response.
    ///   - apnsID: the `apns-id` header, if any.
    ///   - body: the response body; errors carry `{"reason": …, "timestamp": ms}`.
    ///   - sentID: the id we sent, reported when a 200 carries none.
    public init(status: Int, apnsID: String?, body: [UInt8], sentID: UUID) {
        if status == 200 {
            self = .accepted(apnsID: apnsID.flatMap { APNSID.parse($0.utf8) } ?? sentID)
            return
        }
        var reason = APNSReason.unknown("")
        var timestamp: Date?
        if let answer = try? JSONDecoder().decode(ErrorBody.self, from: Data(body)) {
            if let text = answer.reason { reason = APNSReason(text) }
            if let ms = answer.timestamp { timestamp = Date(timeIntervalSince1970: ms / 1000) }
        }
        self = .rejected(status: status, reason: reason, timestamp: timestamp)
    }

    /// APNs' error body.
    private struct ErrorBody: Decodable {
        @Lenient var reason: String?
        /// Milliseconds since 1970.
        @Lenient var timestamp: Double?
    }
}
