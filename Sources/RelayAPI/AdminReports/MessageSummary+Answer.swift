import RelayCore
import RelayStore

/// A message in the admin listing's answer: counters (target, sent, received and opened per
/// platform too),
/// state, progress and timing, with its app.
extension MessageSummary: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnswerKey.self)
        for (key, text) in [("msg_id", counters.id.description), ("app_key", appKey), ("app_name", appName),
                            ("state", counters.state.rawValue), ("lane", lane), ("environment", environment)] {
            try container.encode(text, forKey: AnswerKey(key))
        }
        for (key, count) in [("target", counters.target), ("sent", counters.sent), ("received", counters.received), ("opened", counters.opened),
                             ("failed", counters.failed),
                             ("invalidated", counters.invalidated), ("expired", counters.expired),
                             ("withdrawn", counters.withdrawn), ("pending", counters.pending), ("retries", counters.retries)] {
            try container.encode(count, forKey: AnswerKey(key))
        }
        var platforms = container.nestedContainer(keyedBy: AnswerKey.self, forKey: "platforms")
        for (platform, target, sent, received, opened) in [
            ("ios", counters.iosTarget, counters.iosSent, counters.iosReceived, counters.iosOpened),
            ("android", counters.androidTarget, counters.androidSent, counters.androidReceived, counters.androidOpened),
        ] {
            var counts = platforms.nestedContainer(keyedBy: AnswerKey.self, forKey: AnswerKey(platform))
            for (key, count) in [("target", target), ("sent", sent), ("received", received), ("opened", opened)] {
                try counts.encode(count, forKey: AnswerKey(key))
            }
        }
        try container.encode(progress, forKey: "progress")
        try counters.encodeTiming(into: &container)
        try container.encode(ageSeconds, forKey: "age_seconds")
    }
}

/// A message's funnel in the answer: the summary, each step's count, the failures by
/// reason, the alert and the parts not delivered.
extension MessageFunnel: Encodable {
    public func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: AnswerKey.self)
        var funnel = container.nestedContainer(keyedBy: AnswerKey.self, forKey: "funnel")
        for step in Step.allCases { try funnel.encode(count(step), forKey: AnswerKey(step.rawValue)) }
        try funnel.encode(failures, forKey: "failed_by_reason")
        try container.encode(alert, forKey: "alert")
        try container.encode(summary.counters.ignored, forKey: "ignored")
    }
}
