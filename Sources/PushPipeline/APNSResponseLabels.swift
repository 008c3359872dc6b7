import APNSClient
import RelayCore

/// The labels of `pushrelay_apns_responses_total` for one send: APNs' status and reason,
/// or status `error` with the kind of failure when APNs gave no answer.
enum APNSResponseLabels {
    /// One kind of answer, to count a batch's answers before touching the registry.
    struct Answer: Hashable {
        var status: String
        var reason: String

        func labels(appKey: String) -> MetricLabels {
            ["app_key": appKey, "status": status, "reason": reason]
        }
    }

    static let accepted = Answer(status: "200", reason: "")

    static func answer(_ result: APNSResult, metrics: MetricsRegistry) -> Answer {
        switch result {
        case .accepted: accepted
        // Reasons APNs invents later arrive as `.unknown(text)`: bounded like app keys.
        case let .rejected(status, reason, _): Answer(status: String(status), reason: metrics.bounded("reason", reason.description))
        case .failed(.invalid): Answer(status: "error", reason: "Invalid")
        case .failed(.refused): Answer(status: "error", reason: "Refused")
        case .failed(.connectionFailed): Answer(status: "error", reason: "ConnectionFailed")
        case .failed(.timedOut): Answer(status: "error", reason: "TimedOut")
        case .failed(.expired): Answer(status: "error", reason: "Expired")
        case .failed(.shutdown): Answer(status: "error", reason: "Shutdown")
        }
    }
}
