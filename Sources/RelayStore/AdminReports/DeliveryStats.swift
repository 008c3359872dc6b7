import Foundation

/// The outcomes of a window, from the per-minute rollups: per bucket and app (sparse: empty
/// buckets are left out), each app's totals and failures by reason, and the same over every
/// app.
public struct DeliveryStats: Sendable, Equatable {
    /// Outcomes counted in a bucket, an app's window or the whole window.
    public struct Counts: Sendable, Equatable {
        public var sent = 0, failed = 0, invalidated = 0, expired = 0, withdrawn = 0, retries = 0

        public static func += (total: inout Counts, more: Counts) {
            total.sent += more.sent
            total.failed += more.failed
            total.invalidated += more.invalidated
            total.expired += more.expired
            total.withdrawn += more.withdrawn
            total.retries += more.retries
        }
    }

    /// One bucket of an app: its start and its counts.
    public struct Point: Sendable, Equatable {
        public var start: Date
        public var counts: Counts
    }

    public struct App: Sendable, Equatable {
        public var appKey: String
        public var name: String
        public var points: [Point] = []
        public var totals = Counts()
        public var failedByReason: [String: Int] = [:]
    }

    public var apps: [App]
    public var totals: Counts
    public var failedByReason: [String: Int]
}
