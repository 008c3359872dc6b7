import RelayCore
import RelayStore

/// The answer of `GET /admin/v1/stats`: the window as asked for (aligned to whole buckets),
/// and its `DeliveryStats`, each bucket named by its start.
struct DeliveryStatsReport: Sendable, Encodable {
    var window: ReportWindow
    var stats: DeliveryStats

    private enum CodingKeys: String, CodingKey {
        case since, until, bucket, apps, totals, failedByReason = "failed_by_reason"
    }

    private enum AppKeys: String, CodingKey {
        case appKey = "app_key", name, points, totals, failedByReason = "failed_by_reason"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ReportTime.format(window.since), forKey: .since)
        try container.encode(ReportTime.format(window.until), forKey: .until)
        try container.encode(window.bucket.rawValue, forKey: .bucket)
        var apps = container.nestedUnkeyedContainer(forKey: .apps)
        for app in stats.apps {
            var fields = apps.nestedContainer(keyedBy: AppKeys.self)
            try fields.encode(app.appKey, forKey: .appKey)
            try fields.encode(app.name, forKey: .name)
            var points = fields.nestedUnkeyedContainer(forKey: .points)
            for point in app.points {
                var counts = points.nestedContainer(keyedBy: AnswerKey.self)
                try counts.encode(ReportTime.format(point.start), forKey: "time")
                try Self.encode(point.counts, into: &counts)
            }
            var totals = fields.nestedContainer(keyedBy: AnswerKey.self, forKey: .totals)
            try Self.encode(app.totals, into: &totals)
            try fields.encode(app.failedByReason, forKey: .failedByReason)
        }
        var totals = container.nestedContainer(keyedBy: AnswerKey.self, forKey: .totals)
        try Self.encode(stats.totals, into: &totals)
        try container.encode(stats.failedByReason, forKey: .failedByReason)
    }

    private static func encode(_ counts: DeliveryStats.Counts, into container: inout KeyedEncodingContainer<AnswerKey>) throws {
        for (key, count) in [("sent", counts.sent), ("failed", counts.failed), ("invalidated", counts.invalidated),
                             ("expired", counts.expired), ("withdrawn", counts.withdrawn), ("retries", counts.retries)] {
            try container.encode(count, forKey: AnswerKey(key))
        }
    }
}

extension AdminReportRepository {
    /// The outcomes of `window`, over every app or the one with `appKey`.
    func deliveryStats(_ window: ReportWindow, appKey: String?) async throws -> DeliveryStatsReport {
        DeliveryStatsReport(window: window, stats: try await deliveryStats(
            since: window.since, until: window.until, bucketSeconds: window.bucket.seconds, appKey: appKey))
    }
}
