import Foundation
import RelayStore

extension UsersQuery {
    /// The answer of `GET /v3/users` (and of `/v3/group/users`, summed over the group's
    /// apps): per bucket, the Android and the iOS devices new and active in it, as JPush
    /// answers it.
    struct Answer: Encodable {
        var query: UsersQuery
        var counts: [DeviceActivity.Counts]

        private struct Item: Encodable {
            /// One platform's figures: `online` is null, only a JPush client SDK's
            /// connection could tell.
            struct Platform: Encodable {
                var figures: DeviceActivity.Figures

                func encode(to encoder: any Encoder) throws {
                    var container = encoder.container(keyedBy: CodingKeys.self)
                    try container.encode(figures.new, forKey: .new)
                    try container.encode(figures.active, forKey: .active)
                    try container.encodeNil(forKey: .online)
                }

                enum CodingKeys: String, CodingKey { case new, active, online }
            }

            var time: String
            var android: Platform
            var ios: Platform
        }

        enum CodingKeys: String, CodingKey { case timeUnit = "time_unit", start, duration, items }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(query.unit.rawValue, forKey: .timeUnit)
            try container.encode(query.startText, forKey: .start)
            try container.encode(query.duration, forKey: .duration)
            try container.encode(zip(query.labels, counts).map { Item(time: $0, android: .init(figures: $1.android), ios: .init(figures: $1.ios)) }, forKey: .items)
        }
    }
}
