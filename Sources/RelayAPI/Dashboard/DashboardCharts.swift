import Foundation
import RelayStore

/// The dashboard's charts, read from the same rollups as the admin reports.
struct DashboardCharts: Sendable {
    let reports: AdminReportRepository

    /// Sent and not delivered per minute over the last hour (every app, or one), oldest first.
    func lastHour(appKey: String?, now: Date) async throws -> [SVGChart.Bar] {
        let window = try ReportWindow(query: ["bucket": "minute"], now: now)
        let stats = try await reports.deliveryStats(window, appKey: appKey)
        var byStart: [Date: (sent: Int, notDelivered: Int)] = [:]
        for point in stats.stats.apps.flatMap(\.points) {
            let counts = point.counts
            let old = byStart[point.start] ?? (0, 0)
            byStart[point.start] = (old.sent + counts.sent, old.notDelivered + counts.failed + counts.invalidated + counts.expired)
        }
        return window.bucketStarts.map { start -> SVGChart.Bar in
            let counts = byStart[start] ?? (0, 0)
            return SVGChart.Bar(label: String(ReportTime.format(start).dropFirst(11).prefix(5)), sent: counts.sent, failed: counts.notDelivered)
        }
    }

    /// Outcomes other than sent, by reason, over the last 24 hours.
    func failuresLastDay(appKey: String?, now: Date) async throws -> [String: Int] {
        let window = try ReportWindow(query: ["bucket": "hour", "since": ReportTime.format(now.addingTimeInterval(-86400))], now: now)
        return try await reports.deliveryStats(window, appKey: appKey).stats.failedByReason
    }
}
