import Foundation

/// What the scheduler does with a schedule's due occurrences at `now`: fire the ones that
/// are late by at most the grace period, record older ones as missed (never sent late).
///
/// Pure: the scheduler persists `watermark` with the schedule (in the same transaction
/// that enqueues the pushes, which is what makes firing exactly-once across nodes) and
/// sleeps until `next`.
public struct CatchUpDecision: Sendable, Equatable {
    /// The default grace period: 10 minutes.
    public static let defaultGrace: TimeInterval = 600

    /// Due occurrences to fire now, oldest first.
    public let fire: [Date]
    /// Due occurrences older than the grace period, oldest first: record, do not send.
    public let missed: [Date]
    /// The latest occurrence handled (fired or missed), to pass back as `since` next
    /// time; the `since` passed in when nothing was due.
    public let watermark: Date?
    /// The first occurrence after `now`; nil when the trigger has run out.
    public let next: Date?

    /// Decides which occurrences in (`since`, `now`] to fire and which were missed.
    ///
    /// - Parameters:
    ///   - trigger: the schedule's trigger.
    ///   - since: the previous decision's `watermark`. After a create or an update, pass
    ///     the later of that watermark and the moment of the change minus
    ///     `ScheduleTrigger.pastTolerance`, so occurrences from before the rule existed
    ///     are neither sent nor counted as missed, and one fired under the old rule is not
    ///     fired again; nil means from the trigger's beginning.
    ///   - now: the clock's reading.
    ///   - grace: how late an occurrence may still be sent. Late by exactly `grace`
    ///     still fires; later is missed.
    public init(trigger: ScheduleTrigger, since: Date?, now: Date, grace: TimeInterval = CatchUpDecision.defaultGrace) {
        // A periodical rule spans at most a year, so the due list is bounded (≤ 367).
        let from = since ?? Date.distantPast
        var fire: [Date] = []
        var missed: [Date] = []
        var next: Date?
        var cursor = from
        while let occurrence = trigger.nextFireTime(after: cursor) {
            guard occurrence <= now else {
                next = occurrence
                break
            }
            if now.timeIntervalSince(occurrence) <= grace { fire.append(occurrence) } else { missed.append(occurrence) }
            cursor = occurrence
        }
        self.fire = fire
        self.missed = missed
        // Missed occurrences are all older than fired ones, so the last fired is the latest.
        self.watermark = fire.last ?? missed.last ?? since
        self.next = next
    }
}
