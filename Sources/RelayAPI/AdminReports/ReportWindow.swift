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
        let query = QueryParameters(query)
        bucket = try query.choice("bucket", Bucket.self) ?? .minute
        let until = try query.instant("until") ?? now
        let since = try query.instant("since") ?? until.addingTimeInterval(-TimeInterval(bucket.seconds * 60))
        let size = bucket.seconds
        // since rounds down and until up to whole buckets: a bucket is never half counted.
        // Both are inside ReportTime.window, so their seconds convert.
        guard let sinceSeconds = Int64(rounding: since.timeIntervalSince1970, .down),
              let untilSeconds = Int64(rounding: until.timeIntervalSince1970, .up) else {
            throw JPushError.illegalValue("since and until must be \(ReportTime.windowText)")
        }
        let start = sinceSeconds.floorDivided(by: size) * size
        let end = (untilSeconds + size - 1).floorDivided(by: size) * size
        guard end > start else { throw JPushError.illegalValue("since must be before until") }
        guard (end - start) / size <= Self.maxBuckets else {
            throw JPushError.illegalValue("at most \(Self.maxBuckets) \(bucket.rawValue) buckets per call; ask for a coarser bucket")
        }
        self.since = Date(timeIntervalSince1970: TimeInterval(start))
        self.until = Date(timeIntervalSince1970: TimeInterval(end))
    }

    /// The start of every bucket in the window, in order.
    var bucketStarts: [Date] {
        // Whole seconds by construction (init), and inside ReportTime.window.
        let start = Int64(saturating: since.timeIntervalSince1970), end = Int64(saturating: until.timeIntervalSince1970)
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
