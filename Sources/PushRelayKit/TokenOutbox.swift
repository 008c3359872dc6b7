/// The token reports not yet taken by the relay, in the order they happened: bounded, a newer
/// report replacing the one it supersedes, nothing sent twice.
///
/// Pure: `PushTokenReporter` sends what `next()` gives and hands the answer back to
/// `settle(_:_:)`, which says what to do next (the same outcomes as `ReceiptQueue`'s). The rules:
/// - A token or state the relay already took is not queued again (ActivityKit and PushKit hand
///   out the current token at every launch and subscription).
/// - A newer token (rotation) or state replaces the queued one of the same key in its place,
///   so an activity's token still goes before its state.
/// - Once an activity is final (ended, dismissed), its queued token is dropped and new ones are
///   ignored: the relay pushes nothing more to it.
/// - Past `capacity` the oldest reports are dropped; a report the relay refuses (400, 404) is
///   dropped, never retried.
public struct TokenOutbox: Sendable, Equatable {
    public typealias Outcome = ReceiptQueue.Outcome
    public typealias Next = ReceiptQueue.Next

    public let capacity: Int
    public private(set) var pending: [TokenReport] = []
    /// What the relay took last, by key.
    private var taken: [TokenReport.Key: TokenReport] = [:]
    /// Activities that reached a final state, newest last (at most `capacity * 4` kept).
    private var finished: [String] = []

    public init(capacity: Int = 64) {
        self.capacity = max(1, capacity)
    }

    /// Queues a report.
    ///
    /// - Returns: false when there is nothing to send for it (the relay has it, or its
    ///   activity is over).
    @discardableResult
    public mutating func add(_ report: TokenReport) -> Bool {
        if case .activityToken(let id, _) = report, finished.contains(id) { return false }
        let key = report.key
        let queued = pending.firstIndex { $0.key == key }
        if taken[key] == report {
            // Back to what the relay holds: a queued change of it is moot.
            if let queued { pending.remove(at: queued) }
            return false
        }
        if let queued {
            pending[queued] = report
        } else {
            pending.append(report)
            if pending.count > capacity { pending.removeFirst(pending.count - capacity) }
        }
        if case .activityState(let id, let state) = report, state.isFinal {
            pending.removeAll { $0.key == .activityToken(id) }
            taken[.activityToken(id)] = nil
            if !finished.contains(id) { finished.append(id) }
            if finished.count > capacity * 4 { finished.removeFirst(finished.count - capacity * 4) }
        }
        return true
    }

    /// The report to send next, oldest first; nil when there is none.
    public func next() -> TokenReport? { pending.first }

    /// Takes the relay's answer to `report`. A report replaced meanwhile stays queued in
    /// its newer form.
    public mutating func settle(_ report: TokenReport, _ outcome: Outcome) -> Next {
        switch outcome {
        case .accepted:
            pending.removeAll { $0 == report }
            // A final activity's token is no longer worth remembering: none will be sent.
            if case .activityToken(let id, _) = report, finished.contains(id) { return .send }
            taken[report.key] = report
            return .send
        case .refused:
            pending.removeAll { $0 == report }
            return .send
        case .unauthorized:
            return .renewSecret
        case .failed:
            return .retryLater
        }
    }
}
