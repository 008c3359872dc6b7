import Foundation

/// A schedule to create or replace: a push sent once or periodically.
public struct Schedule: Sendable, Encodable, Equatable {
    public var cid: String?
    public var name: String
    public var enabled: Bool
    public var trigger: ScheduleTrigger
    public var push: Push

    public init(cid: String? = nil, name: String, enabled: Bool = true, trigger: ScheduleTrigger, push: Push) {
        self.cid = cid
        self.name = name
        self.enabled = enabled
        self.trigger = trigger
        self.push = push
    }
}

/// When a schedule fires. Times are wall-clock readings `YYYY-MM-DD HH:MM:SS` in
/// `timeZone` (an IANA name; the relay's zone when nil).
public enum ScheduleTrigger: Sendable, Codable, Equatable {
    case single(time: String, timeZone: String?)
    case periodical(Periodical)

    /// A single trigger at `date`, written in `timeZone`.
    public static func single(at date: Date, timeZone: TimeZone = TimeZone(identifier: "UTC")!) -> ScheduleTrigger {
        .single(time: ScheduleTrigger.format(date, in: timeZone), timeZone: timeZone.identifier)
    }

    /// `YYYY-MM-DD HH:MM:SS` in `zone`.
    public static func format(_ date: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d", c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
    }

    public struct Periodical: Sendable, Codable, Equatable {
        public var start: String
        public var end: String
        /// `HH:MM:SS`.
        public var time: String
        /// `day`, `week` or `month`.
        public var timeUnit: String
        public var frequency: Int
        /// `MON`…`SUN` for weeks, `01`…`31` for months.
        public var point: [String]?
        public var timeZone: String?

        public init(start: String, end: String, time: String, timeUnit: String, frequency: Int = 1, point: [String]? = nil, timeZone: String? = nil) {
            self.start = start
            self.end = end
            self.time = time
            self.timeUnit = timeUnit
            self.frequency = frequency
            self.point = point
            self.timeZone = timeZone
        }

        private enum CodingKeys: String, CodingKey {
            case start, end, time, timeUnit = "time_unit", frequency, point, timeZone = "time_zone"
        }
    }

    private enum Keys: String, CodingKey { case single, periodical }
    private struct Single: Codable {
        var time: String
        var time_zone: String?
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        if let single = try container.decodeIfPresent(Single.self, forKey: .single) {
            self = .single(time: single.time, timeZone: single.time_zone)
        } else {
            self = .periodical(try container.decode(Periodical.self, forKey: .periodical))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        switch self {
        case .single(let time, let zone): try container.encode(Single(time: time, time_zone: zone), forKey: .single)
        case .periodical(let periodical): try container.encode(periodical, forKey: .periodical)
        }
    }
}

/// A schedule as the relay keeps it.
public struct StoredSchedule: Sendable, Decodable, Equatable {
    public var scheduleID: String
    public var cid: String?
    public var name: String
    public var enabled: Bool
    public var trigger: ScheduleTrigger
    /// The push body as stored (JSON: the relay normalises it).
    public var push: JSONValue
    /// Extension on `GET /v3/schedules/{id}`: the next fire times.
    public var nextFireTimes: [String]?

    private enum CodingKeys: String, CodingKey {
        case scheduleID = "schedule_id", cid, name, enabled, trigger, push, nextFireTimes = "next_fire_times"
    }
}

/// `POST /v3/schedules`' answer.
public struct ScheduleCreated: Sendable, Decodable, Equatable {
    public var scheduleID: String
    public var name: String

    private enum CodingKeys: String, CodingKey { case scheduleID = "schedule_id", name }
}

/// One page of `GET /v3/schedules`.
public struct SchedulePage: Sendable, Decodable, Equatable {
    public var totalCount: Int
    public var totalPages: Int
    public var page: Int
    public var schedules: [StoredSchedule]

    private enum CodingKeys: String, CodingKey {
        case totalCount = "total_count", totalPages = "total_pages", page, schedules
    }
}
