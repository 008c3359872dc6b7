import RelayCore

/// One message's funnel: its summary, each step from target to pending, the failures by
/// reason, its alert text and the parts of the push that were not delivered.
public struct MessageFunnel: Sendable, Equatable {
    public var summary: MessageSummary
    public var failures: [String: Int]
    public var alert: String?

    public init(summary: MessageSummary, failures: [String: Int], alert: String?) {
        self.summary = summary
        self.failures = failures
        self.alert = alert
    }

    /// The funnel's steps, top to bottom: received and opened (what the devices reported)
    /// follow sent.
    public enum Step: String, CaseIterable, Sendable {
        case target, sent, received, opened, failed, invalidated, expired, withdrawn, pending

        /// Targets APNs did not accept.
        public var isFailure: Bool { self == .failed || self == .invalidated || self == .expired }
    }

    public func count(_ step: Step) -> Int {
        let counters = summary.counters
        return switch step {
        case .target: counters.target
        case .sent: counters.sent
        case .received: counters.received
        case .opened: counters.opened
        case .failed: counters.failed
        case .invalidated: counters.invalidated
        case .expired: counters.expired
        case .withdrawn: counters.withdrawn
        case .pending: counters.pending
        }
    }

    /// The notification's alert text, for people looking at a message: `notification.ios.alert`
    /// or `notification.alert` (a dictionary alert shows its body).
    static func alert(ofBody body: String) -> String? {
        guard case .object(let json)? = try? JSONValue.parse(Array(body.utf8)),
              case .object(let notification)? = json["notification"] else { return nil }
        var alert = notification["alert"]
        if case .object(let ios)? = notification["ios"], let iosAlert = ios["alert"] { alert = iosAlert }
        switch alert {
        case .string(let text)?: return text
        case .object(let dictionary)?:
            guard case .string(let text)? = dictionary["body"] ?? dictionary["title"] else { return nil }
            return text
        default: return nil
        }
    }
}
