import Foundation
import RelayCore

/// The window and bucket size of `GET /admin/v1/stats`: `since` (inclusive) and `until`
/// (exclusive) aligned to whole buckets in UTC, so the rollup's minutes fall into buckets
/// without being split.
struct ReportWindow: Sendable, Equatable {
    enum Bucket: String, Sendable, CaseIterable {
        case minute, hour, day

        var seconds: Int64 {
            switch self {
            case .minute: 60
            case .hour: 3600
            case .day: 86400
            }
        }
    }

    /// More buckets than this in one answer is refused: ask for a coarser bucket.
    static let maxBuckets = 1500

    var since: Date
    var until: Date
    var bucket: Bucket

    /// Reads `since`, `until` and `bucket` (defaults: the last hour, by minute).
    ///
    /// - Parameters:
    ///   - now: the default `until`.
    /// - Throws: `JPushError.illegalValue` naming the bad parameter.
    init(query: [String: String], now: Date) throws(JPushError) {
        func value(_ name: String) -> String? { query[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let raw = value("bucket") {
            guard let bucket = Bucket(rawValue: raw) else {
                throw JPushError.illegalValue("bucket must be minute, hour or day, got \"\(raw)\"")
            }
            self.bucket = bucket
        } else {
            bucket = .minute
        }
        var until = now
        if let raw = value("until") {
            guard let date = ReportTime.parse(raw) else { throw JPushError.illegalValue("until must be Unix seconds or ISO 8601, got \"\(raw)\"") }
            until = date
        }
        var since = until.addingTimeInterval(-TimeInterval(bucket.seconds * 60))
        if let raw = value("since") {
            guard let date = ReportTime.parse(raw) else { throw JPushError.illegalValue("since must be Unix seconds or ISO 8601, got \"\(raw)\"") }
            since = date
        }
        let size = bucket.seconds
        // since rounds down and until up to whole buckets: a bucket is never half counted.
        let start = Int64(since.timeIntervalSince1970.rounded(.down)).floorDivided(by: size) * size
        let end = (Int64(until.timeIntervalSince1970.rounded(.up)) + size - 1).floorDivided(by: size) * size
        guard end > start else { throw JPushError.illegalValue("since must be before until") }
        guard (end - start) / size <= Self.maxBuckets else {
            throw JPushError.illegalValue("at most \(Self.maxBuckets) \(bucket.rawValue) buckets per call; ask for a coarser bucket")
        }
        self.since = Date(timeIntervalSince1970: TimeInterval(start))
        self.until = Date(timeIntervalSince1970: TimeInterval(end))
    }

    /// The start of every bucket in the window, in order.
    var bucketStarts: [Date] {
        let start = Int64(since.timeIntervalSince1970), end = Int64(until.timeIntervalSince1970)
        return stride(from: start, to: end, by: Int(bucket.seconds)).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }
}

extension Int64 {
    /// Division rounding toward negative infinity (instants before 1970 stay aligned).
    func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
