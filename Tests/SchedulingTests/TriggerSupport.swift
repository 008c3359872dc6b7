import Foundation
import RelayCore
@testable import Scheduling

func json(_ text: String) throws -> JSONValue {
    try JSONValue.parse(Array(text.utf8))
}

/// A trigger read from JSON text without the clock checks, in `defaultZone` unless it names one.
func trigger(_ text: String, defaultZone: String = "UTC") throws -> ScheduleTrigger {
    try ScheduleTrigger(json: json(text), defaultTimeZone: zone(defaultZone))
}

/// A periodical trigger's JSON text.
func periodical(start: String, end: String, time: String, unit: String, frequency: Int = 1,
                point: [String]? = nil, zone: String = "UTC") -> String {
    let points = point.map { ", \"point\": [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
    return """
    {"periodical": {"start": "\(start)", "end": "\(end)", "time": "\(time)", "time_unit": "\(unit)", \
    "frequency": \(frequency)\(points), "time_zone": "\(zone)"}}
    """
}
