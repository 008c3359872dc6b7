import Foundation
import RelayCore
@testable import Scheduling

/// An instant written as UTC, `YYYY-MM-DD HH:MM:SS`, parsed by Foundation (not by the code under test).
func utc(_ text: String) -> Date {
    let formatter = ISO8601DateFormatter()
    guard let date = formatter.date(from: text.replacingOccurrences(of: " ", with: "T") + "Z") else {
        fatalError("bad test instant \(text)")
    }
    return date
}

func zone(_ name: String) -> TimeZone {
    guard let zone = TimeZone(identifier: name) else { fatalError("no time zone \(name) in this system's tzdata") }
    return zone
}
