import Foundation
import RelayCore

/// A JPush schedule object, `{cid?, name, enabled, trigger, push}`, as `POST /v3/schedules`
/// sends it. The `push` section is kept as JSON: the push validator checks it.
public struct ScheduleRequest: Sendable, Equatable {
    public var cid: String?
    public var name: String
    public var enabled: Bool
    public var trigger: ScheduleTrigger
    public var push: JSONValue

    public static let maxNameBytes = 255

    public init(cid: String?, name: String, enabled: Bool, trigger: ScheduleTrigger, push: JSONValue) {
        self.cid = cid
        self.name = name
        self.enabled = enabled
        self.trigger = trigger
        self.push = push
    }

    /// Reads a create request; every field is required except `cid`.
    ///
    /// - Parameters:
    ///   - json: the request body.
    ///   - defaultTimeZone: the relay's configured zone, for a trigger without `time_zone`.
    ///   - now: the clock's reading, for the trigger's time limits.
    public init(json: JSONValue, defaultTimeZone: TimeZone, now: Date) throws(JPushError) {
        let body = try scheduleField { () throws(JPushError) in try JSONObjectReader(json, path: "") }
        try scheduleField { () throws(JPushError) in
            try body.rejectUnknownKeys(allowed: ["cid", "name", "enabled", "trigger", "push"])
        }
        for key in ["name", "enabled", "trigger", "push"] where !body.has(key) {
            throw .invalidSchedule("\(key) is required")
        }
        let update = try ScheduleUpdate(body, defaultTimeZone: defaultTimeZone, now: now)
        self.init(cid: try scheduleField { () throws(JPushError) in try body.optionalString("cid") },
                  name: update.name!, enabled: update.enabled!, trigger: update.trigger!, push: update.push!)
    }
}

/// A `PUT /v3/schedules/{id}` body: JPush replaces each section present and keeps the rest.
public struct ScheduleUpdate: Sendable, Equatable {
    public var name: String?
    public var enabled: Bool?
    public var trigger: ScheduleTrigger?
    public var push: JSONValue?

    /// Reads an update; at least one of `name`, `enabled`, `trigger`, `push` is required.
    public init(json: JSONValue, defaultTimeZone: TimeZone, now: Date) throws(JPushError) {
        let body = try scheduleField { () throws(JPushError) in try JSONObjectReader(json, path: "") }
        try scheduleField { () throws(JPushError) in
            try body.rejectUnknownKeys(allowed: ["name", "enabled", "trigger", "push"])
        }
        try self.init(body, defaultTimeZone: defaultTimeZone, now: now)
        guard name != nil || enabled != nil || trigger != nil || push != nil else {
            throw .invalidSchedule("an update must hold at least one of name, enabled, trigger, push")
        }
    }

    /// Reads the sections present in `body`, checking each.
    init(_ body: JSONObjectReader, defaultTimeZone: TimeZone, now: Date) throws(JPushError) {
        if let name = try scheduleField({ () throws(JPushError) in try body.optionalString("name") }) {
            guard !name.isEmpty, name.utf8.count <= ScheduleRequest.maxNameBytes else {
                throw .invalidSchedule("name must be 1 to \(ScheduleRequest.maxNameBytes) bytes, got \(name.utf8.count)")
            }
            guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw .invalidSchedule("name must not contain control characters (U+0000 to U+001F, U+007F to U+009F)")
            }
            self.name = name
        }
        enabled = try scheduleField { () throws(JPushError) in try body.optionalBool("enabled") }
        if let trigger = body.fields["trigger"], trigger != .null {
            self.trigger = try ScheduleTrigger.parse(trigger, defaultTimeZone: defaultTimeZone, now: now)
        }
        if let push = body.fields["push"], push != .null {
            guard case .object = push else { throw .invalidSchedule("push must be a JSON object, got \(push.typeName)") }
            self.push = push
        }
    }

    /// `current` with the sections of this update replaced.
    public func applied(to current: ScheduleRequest) -> ScheduleRequest {
        ScheduleRequest(cid: current.cid, name: name ?? current.name, enabled: enabled ?? current.enabled,
                        trigger: trigger ?? current.trigger, push: push ?? current.push)
    }
}
