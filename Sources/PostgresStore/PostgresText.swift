import Foundation
import RelayCore

/// PostgreSQL's text formats for the types we exchange: pure functions, tested without a server.
enum PostgresText {
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `bytea` hex format: `\x` followed by two lowercase hex digits per byte.
    static func byteaHex(_ bytes: [UInt8]) -> String {
        var utf8: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        utf8.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            utf8.append(hexDigits[Int(byte >> 4)])
            utf8.append(hexDigits[Int(byte & 0x0f)])
        }
        return String(decoding: utf8, as: UTF8.self)
    }

    /// Decodes `bytea` output in hex format (the server default since 9.0); nil when malformed.
    static func bytes(fromByteaHex text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x"), utf8.count % 2 == 0 else {
            return nil
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index < utf8.count {
            guard let high = hexValue(utf8[index]), let low = hexValue(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `bigint[]` output of one dimension (`{1,-2,3}`, `{}`); nil when malformed or when an
    /// element is NULL. Read byte by byte: a chunk's array holds thousands of ids.
    static func bigints(fromArray text: String) -> [Int64]? {
        var text = text
        return text.withUTF8 { bytes -> [Int64]? in
            guard bytes.count >= 2, bytes.first == UInt8(ascii: "{"), bytes.last == UInt8(ascii: "}") else { return nil }
            var values: [Int64] = []
            guard bytes.count > 2 else { return values }
            values.reserveCapacity(bytes.count / 4)
            var index = 1
            while true {
                let negative = bytes[index] == UInt8(ascii: "-")
                if negative { index += 1 }
                var magnitude: UInt64 = 0
                let digitsStart = index
                while index < bytes.count - 1, case let digit = bytes[index] &- UInt8(ascii: "0"), digit < 10 {
                    let (times10, overflowA) = magnitude.multipliedReportingOverflow(by: 10)
                    let (sum, overflowB) = times10.addingReportingOverflow(UInt64(digit))
                    guard !overflowA, !overflowB else { return nil }
                    magnitude = sum
                    index += 1
                }
                guard index > digitsStart, magnitude <= (negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)) else { return nil }
                values.append(negative ? Int64(truncatingIfNeeded: 0 &- magnitude) : Int64(magnitude))
                if index == bytes.count - 1 { return values }
                guard bytes[index] == UInt8(ascii: ",") else { return nil }
                index += 1
            }
        }
    }

    /// PostgreSQL's boolean output (`t`/`f`); nil for anything else.
    static func bool(_ text: String) -> Bool? {
        switch text {
        case "t", "true": true
        case "f", "false": false
        default: nil
        }
    }

    /// The Unix seconds `timestamp(_:)` writes as dates: years 1 to 99999 (PostgreSQL's
    /// timestamptz reaches 294276).
    static let writtenSeconds = -62_135_596_800.0..<3_093_527_980_800.0

    /// `2026-11-30T09:10:27.123456Z`: ISO 8601, UTC, microseconds, for years 1–99999;
    /// `-infinity` before them (and for NaN) and `infinity` after, which PostgreSQL orders
    /// the same way. Total: no date, however it was made, traps here or is refused by the server.
    static func timestamp(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        guard interval >= writtenSeconds.lowerBound else { return "-infinity" }
        guard interval < writtenSeconds.upperBound else { return "infinity" }
        // Inside writtenSeconds, so the seconds convert.
        var seconds = Int64(saturating: interval, rounding: .down)
        var micros = Int64(saturating: (interval - Double(seconds)) * 1_000_000, rounding: .toNearestOrAwayFromZero)
        if micros >= 1_000_000 { seconds += 1; micros -= 1_000_000 }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T"
            + "\(pad(secondOfDay / 3600, 2)):\(pad(secondOfDay / 60 % 60, 2)):\(pad(secondOfDay % 60, 2))"
            + ".\(pad(micros, 6))Z"
    }

    /// Parses `timestamptz` output in the ISO DateStyle, whatever the session's time zone:
    /// `2026-11-30 09:10:27.123456+00`, `…+05:30`, `…-03:00:10`, `infinity`. Nil when malformed
    /// or BC.
    static func date(fromTimestamp text: String) -> Date? {
        if text == "infinity" { return .distantFuture }
        if text == "-infinity" { return .distantPast }
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let dateFields = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard dateFields.count == 3,
              let year = Int64(dateFields[0]), let month = Int64(dateFields[1]), let day = Int64(dateFields[2]),
              (1...12).contains(month), (1...31).contains(day) else { return nil }

        // The time, then the zone offset that starts at the first sign after it.
        let time = parts[1]
        guard let signIndex = time.firstIndex(where: { $0 == "+" || $0 == "-" }) else { return nil }
        let clock = time[..<signIndex].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, let hour = Int64(clock[0]), let minute = Int64(clock[1]) else { return nil }
        let secondParts = clock[2].split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(secondParts.count), let second = Int64(secondParts[0]) else { return nil }
        var fraction = 0.0
        if secondParts.count == 2 {
            guard !secondParts[1].isEmpty, secondParts[1].allSatisfy(\.isASCII),
                  let value = Double("0." + secondParts[1]) else { return nil }
            fraction = value
        }
        let offsetSign: Int64 = time[signIndex] == "-" ? -1 : 1
        let offsetFields = time[time.index(after: signIndex)...].split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(offsetFields.count) else { return nil }
        var offset: Int64 = 0
        for (index, field) in offsetFields.enumerated() {
            guard field.count == 2, let value = Int64(field) else { return nil }
            offset += value * [3600, 60, 1][index]
        }
        let days = days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSign * offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// A value for a libpq `key=value` connection string: single-quoted, `'` and `\` escaped.
    static func conninfoValue(_ value: String) -> String {
        var quoted = "'"
        for character in value {
            if character == "'" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "'"
    }

    /// A double-quoted SQL identifier, for the rare statements that cannot take a parameter
    /// (`CREATE DATABASE`, `CREATE SCHEMA`).
    static func identifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
