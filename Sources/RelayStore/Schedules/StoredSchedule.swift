import Foundation
import RelayCore
import Scheduling

/// A schedule as stored: the JPush object plus where its timing stands.
public struct StoredSchedule: Sendable {
    public var id: String
    public var schedule: ScheduleRequest
    public var watermark: Date?

    /// JPush's schedule object: `{schedule_id, name, enabled, trigger, push}` (and `cid` when set).
    /// A JSONValue, so the push's numbers are answered as the client wrote them.
    public var jpushObject: [String: JSONValue] {
        var object: [String: JSONValue] = [
            "schedule_id": .string(id), "name": .string(schedule.name), "enabled": .bool(schedule.enabled),
            "trigger": schedule.trigger.json, "push": schedule.push,
        ]
        if let cid = schedule.cid { object["cid"] = .string(cid) }
        return object
    }

    /// The extension on `GET /v3/schedules/{id}`: the next `count` fire times after `now`,
    /// as wall-clock readings in the trigger's zone; none while disabled.
    public func nextFireTimes(after now: Date, count: Int = 5) -> [String] {
        guard schedule.enabled else { return [] }
        let trigger = schedule.trigger
        return trigger.nextFireTimes(after: max(now, watermark ?? now), count: count)
            .map { trigger.timeZone.localDateTime(at: $0).description }
    }
}
