/// Coalesces an activity's updates that come faster than one per `interval`: what the user
/// sees is the newest content state, so an update that would go out too soon after the last
/// one waits for its turn, and a newer update withdraws the one still waiting and takes its
/// turn (docs/live-activities.md, "Coalescing"; `PUSHRELAY_LIVE_ACTIVITY_MIN_INTERVAL_MS`).
///
/// The state is one activity's, stored with it between requests; `event` decides, the caller
/// withdraws and delays messages as the action says.
public struct LiveActivityPacer: Sendable, Equatable {
    /// Unix milliseconds the activity's latest update or end went (or goes) out.
    public private(set) var lastDueAt: Int64?
    /// The message waiting until `lastDueAt`, not yet due.
    public private(set) var waiting: Int64?

    public init(lastDueAt: Int64? = nil, waiting: Int64? = nil) {
        self.lastDueAt = lastDueAt
        self.waiting = waiting
    }

    /// What to do with a new message of the activity.
    public struct Action: Sendable, Equatable {
        /// Unix milliseconds from which the message may go out; `now` for at once.
        public var sendAt: Int64
        /// A waiting message the new one replaces, to withdraw.
        public var withdraw: Int64?

        public init(sendAt: Int64, withdraw: Int64? = nil) {
            self.sendAt = sendAt
            self.withdraw = withdraw
        }
    }

    /// A new update or end, `message`, accepted at `now` (Unix ms).
    ///
    /// - An end goes at once and withdraws a waiting update: it carries the final state.
    /// - An update replaces a waiting one (withdrawn) and keeps its turn.
    /// - Otherwise it goes at once if the last one went at least `interval` ms ago, else at
    ///   that time plus `interval`.
    /// - `interval` 0 turns coalescing off: everything goes at once.
    public mutating func event(_ event: LiveActivityEvent, message: Int64, now: Int64, interval: Int64) -> Action {
        let pending = lastDueAt.map { $0 > now } == true ? waiting : nil
        let action: Action
        if interval <= 0 || event != .update {
            action = Action(sendAt: now, withdraw: pending)
        } else if let pending, let due = lastDueAt {
            action = Action(sendAt: due, withdraw: pending)
        } else if let last = lastDueAt, last + interval > now {
            action = Action(sendAt: last + interval)
        } else {
            action = Action(sendAt: now)
        }
        lastDueAt = max(action.sendAt, lastDueAt ?? action.sendAt)
        waiting = action.sendAt > now ? message : nil
        return action
    }
}
