/// The answer of `GET /admin/v1/stats`: outcomes per bucket and app in the window (sparse:
/// empty buckets are left out), each app's totals and failures by reason, and the same over
/// every app.
struct DeliveryStatsReport: Sendable, Encodable {
    /// Outcomes counted in a bucket, an app's window or the whole window.
    struct Counts: Sendable, Encodable {
        var sent = 0, failed = 0, invalidated = 0, expired = 0, withdrawn = 0, retries = 0

        static func += (total: inout Counts, more: Counts) {
            total.sent += more.sent
            total.failed += more.failed
            total.invalidated += more.invalidated
            total.expired += more.expired
            total.withdrawn += more.withdrawn
            total.retries += more.retries
        }
    }

    /// One bucket of an app: its start and its counts, side by side.
    struct Point: Sendable, Encodable {
        var time: String
        var counts: Counts

        func encode(to encoder: any Encoder) throws {
            try counts.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(time, forKey: .time)
        }

        private enum CodingKeys: String, CodingKey { case time }
    }

    struct App: Sendable, Encodable {
        var appKey: String
        var name: String
        var points: [Point] = []
        var totals = Counts()
        var failedByReason: [String: Int] = [:]

        private enum CodingKeys: String, CodingKey {
            case appKey = "app_key", name, points, totals, failedByReason = "failed_by_reason"
        }
    }

    var since: String
    var until: String
    var bucket: String
    var apps: [App]
    var totals: Counts
    var failedByReason: [String: Int]

    private enum CodingKeys: String, CodingKey {
        case since, until, bucket, apps, totals, failedByReason = "failed_by_reason"
    }
}
