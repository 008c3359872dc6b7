import APNSClient
import RelayCore

/// The labels of `pushrelay_apns_responses_total` for one send: APNs' status and reason,
/// or status `error` with the kind of failure when APNs gave no answer.
enum APNSResponseLabels {
    static func of(_ result: APNSResult, appKey: String, metrics: MetricsRegistry) -> MetricLabels {
        let (status, reason): (String, String) = switch result {
        case .accepted: ("200", "")
        // Reasons APNs invents later arrive as `.unknown(text)`: bounded like app keys.
        case let .rejected(status, reason, _): (String(status), metrics.bounded("reason", reason.description))
        case .failed(.invalid): ("error", "Invalid")
        case .failed(.connectionFailed): ("error", "ConnectionFailed")
        case .failed(.timedOut): ("error", "TimedOut")
        case .failed(.expired): ("error", "Expired")
        case .failed(.shutdown): ("error", "Shutdown")
        }
        return ["app_key": appKey, "status": status, "reason": reason]
    }
}
