import Foundation
import PostgresStore
import PushCore

/// New and active devices of one app per bucket and platform, for `GET /v3/users`.
///
/// `new`: registered for the first time in the bucket (`devices.created_at`, indexed per
/// app). `active`: registered or delivered to in the bucket, each device once per bucket.
/// Registrations come from `devices.last_seen_at` (only the latest one is kept), deliveries
/// from the spans of the app's messages that can have been sent in the window (accepted at
/// most the longest time-to-live before it). It reads rows of the window, not a rollup.
public enum DeviceActivity {
    /// One platform's devices in a bucket.
    public struct Figures: Sendable, Equatable {
        public var new = 0
        public var active = 0

        public init(new: Int = 0, active: Int = 0) {
            self.new = new
            self.active = active
        }
    }

    /// A bucket's devices per platform.
    public struct Counts: Sendable, Equatable {
        public var ios = Figures()
        public var android = Figures()

        public init(ios: Figures = Figures(), android: Figures = Figures()) {
            self.ios = ios
            self.android = android
        }

        /// Adds another app's bucket (`/v3/group/users`).
        public mutating func add(_ other: Counts) {
            ios.new += other.ios.new
            ios.active += other.ios.active
            android.new += other.android.new
            android.active += other.android.active
        }
    }

    /// One `Counts` per bucket between consecutive `boundaries`.
    public static func counts(appID: Int64, boundaries: [Date], pool: PostgresPool) async throws -> [Counts] {
        guard let first = boundaries.first, let last = boundaries.last, boundaries.count > 1 else { return [] }
        let edges = "{" + boundaries.map { ISO8601DateFormatter().string(from: $0) }.joined(separator: ",") + "}"
        let rows = try await pool.preparedQuery(DeviceFigureStatements.activity, [appID, first, last, edges, Double(PushLimits.timeToLive)])
        var counts = Array(repeating: Counts(), count: boundaries.count - 1)
        for row in rows {
            // width_bucket over the edges: 1 for the first bucket.
            let index = try row.int("bucket") - 1
            guard counts.indices.contains(index) else { continue }
            let n = try row.int("n")
            let isNew = try row.string("kind") == "new"
            if try row.string("platform") == DevicePlatform.android.rawValue {
                if isNew { counts[index].android.new = n } else { counts[index].android.active = n }
            } else {
                if isNew { counts[index].ios.new = n } else { counts[index].ios.active = n }
            }
        }
        return counts
    }
}
