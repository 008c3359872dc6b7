import Foundation
import RelayCore
import Scheduling

/// A schedule as stored: the JPush object plus where its timing stands.
struct StoredSchedule: Sendable {
    var id: String
    var schedule: ScheduleRequest
    var watermark: Date?

    /// JPush's schedule object: `{schedule_id, name, enabled, trigger, push}` (and `cid` when set).
    var jpushObject: [String: Any] {
        var object: [String: Any] = [
            "schedule_id": id, "name": schedule.name, "enabled": schedule.enabled,
            "trigger": schedule.trigger.json.foundationObject, "push": schedule.push.foundationObject,
        ]
        if let cid = schedule.cid { object["cid"] = cid }
        return object
    }

    /// The extension on `GET /v3/schedules/{id}`: the next `count` fire times after `now`,
    /// as wall-clock readings in the trigger's zone; none while disabled.
    func nextFireTimes(after now: Date, count: Int = 5) -> [String] {
        guard schedule.enabled else { return [] }
        let trigger = schedule.trigger
        return trigger.nextFireTimes(after: max(now, watermark ?? now), count: count)
            .map { trigger.timeZone.localDateTime(at: $0).description }
    }
}
