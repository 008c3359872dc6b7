import RelayCore
import RelayStore

/// A message as the admin listing and the dashboard show it: counters, state, progress and
/// timing, with its app.
struct MessageSummary: Sendable, Equatable, Encodable {
    var counters: MessageCounters
    var appKey, appName, lane, environment: String
    /// Seconds since the message was accepted, as the database saw it when read.
    var ageSeconds: Double?

    /// Share of the audience with an outcome: what a progress bar shows.
    var progress: Double {
        guard counters.target > 0 else { return counters.state == .done ? 1 : 0 }
        return Double(counters.target - counters.pending) / Double(counters.target)
    }

    /// Failed, invalidated and expired: what APNs did not accept.
    var notDelivered: Int {
        counters.failed + counters.invalidated + counters.expired
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        for (key, text) in [("msg_id", counters.id.description), ("app_key", appKey), ("app_name", appName),
                            ("state", counters.state.rawValue), ("lane", lane), ("environment", environment)] {
            try container.encode(text, forKey: AnswerKey(key))
        }
        for (key, count) in [("target", counters.target), ("sent", counters.sent), ("failed", counters.failed),
                             ("invalidated", counters.invalidated), ("expired", counters.expired),
                             ("withdrawn", counters.withdrawn), ("pending", counters.pending), ("retries", counters.retries)] {
            try container.encode(count, forKey: AnswerKey(key))
        }
        try container.encode(progress, forKey: "progress")
        try counters.encodeTiming(into: &container)
        try container.encode(ageSeconds, forKey: "age_seconds")
    }
}

/// One message's funnel: its summary, each step from target to pending, the failures by
/// reason, its alert text and the parts of the push that were not delivered.
struct MessageFunnel: Sendable, Equatable, Encodable {
    var summary: MessageSummary
    var failures: [String: Int]
    var alert: String?

    /// The funnel's steps, top to bottom.
    enum Step: String, CaseIterable, Sendable {
        case target, sent, failed, invalidated, expired, withdrawn, pending

        /// Targets APNs did not accept.
        var isFailure: Bool { self == .failed || self == .invalidated || self == .expired }
    }

    func count(_ step: Step) -> Int {
        let counters = summary.counters
        return switch step {
        case .target: counters.target
        case .sent: counters.sent
        case .failed: counters.failed
        case .invalidated: counters.invalidated
        case .expired: counters.expired
        case .withdrawn: counters.withdrawn
        case .pending: counters.pending
        }
    }

    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: AnswerKey.self)
        var funnel = container.nestedContainer(keyedBy: AnswerKey.self, forKey: "funnel")
        for step in Step.allCases { try funnel.encode(count(step), forKey: AnswerKey(step.rawValue)) }
        try funnel.encode(failures, forKey: "failed_by_reason")
        try container.encode(alert, forKey: "alert")
        try container.encode(summary.counters.ignored, forKey: "ignored")
    }
}
