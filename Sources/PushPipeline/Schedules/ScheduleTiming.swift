import Foundation
import Scheduling

/// Where a schedule's watermark and next fire time stand after a create or an update: the
/// API writes these, the scheduler moves them on as occurrences are handled.
public struct ScheduleTiming: Sendable, Equatable {
    /// Occurrences after this are due (see `CatchUpDecision`'s `since`).
    public let watermark: Date
    /// The first occurrence after the watermark; nil when disabled or run out.
    public let nextFireAt: Date?

    /// The timing of a schedule written at `now`.
    ///
    /// - Parameters:
    ///   - trigger: the schedule's trigger as written.
    ///   - enabled: a disabled schedule has no next fire time; when enabled again, what fell
    ///     in between is neither sent nor counted as missed.
    ///   - storedWatermark: the watermark before the change (nil on create), so an occurrence
    ///     fired under the old rule does not fire again.
    ///   - now: the moment of the change.
    public init(trigger: ScheduleTrigger, enabled: Bool, storedWatermark: Date?, now: Date) {
        let changed = now.addingTimeInterval(-ScheduleTrigger.pastTolerance)
        watermark = max(storedWatermark ?? changed, changed)
        nextFireAt = enabled ? trigger.nextFireTime(after: watermark) : nil
    }
}
