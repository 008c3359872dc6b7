import APNSClient
import FCMClient
import RelayCore

/// The labels of `pushrelay_apns_responses_total` and `pushrelay_fcm_responses_total` for one
/// send: the service's status and reason (APNs' reason, FCM's error code), or status `error`
/// with the kind of failure when no answer came.
enum ResponseLabels {
    /// One kind of answer, to count a round's answers before touching the registry.
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
        case let .failed(failure): answer(failure)
        }
    }

    static func answer(_ result: FCMResult, metrics: MetricsRegistry) -> Answer {
        switch result {
        case .accepted: accepted
        // Error codes FCM adds later are kept as their text: bounded like app keys.
        case let .rejected(status, error, _, _, _): Answer(status: String(status), reason: metrics.bounded("reason", error.description))
        case .failed(.invalid): Answer(status: "error", reason: "Invalid")
        case .failed(.accessToken): Answer(status: "error", reason: "AccessToken")
        case let .failed(.transport(failure)): answer(failure)
        }
    }

    /// No answer from the connection machinery both services share.
    private static func answer(_ failure: APNSFailure) -> Answer {
        switch failure {
        case .invalid: Answer(status: "error", reason: "Invalid")
        case .refused: Answer(status: "error", reason: "Refused")
        case .connectionFailed: Answer(status: "error", reason: "ConnectionFailed")
        case .timedOut: Answer(status: "error", reason: "TimedOut")
        case .expired: Answer(status: "error", reason: "Expired")
        case .shutdown: Answer(status: "error", reason: "Shutdown")
        }
    }
}
