import PostgresStore
import RelayStore

/// A page of `GET /admin/v1/apps/{app_key}/devices` (`DeviceListing`), one text per set of
/// filters given: `$1` app, `$2` cursor (only larger device ids), `$3` limit + 1, then one
/// parameter per filter given, in the order environment, active, alias, tag.
enum DeviceListingStatements {
    /// Which filters a page gives.
    struct Filters: Hashable, Sendable {
        var environment = false, active = false, alias = false, tag = false

        static let every = [false, true].flatMap { environment in
            [false, true].flatMap { active in
                [false, true].flatMap { alias in
                    [false, true].map { tag in Filters(environment: environment, active: active, alias: alias, tag: tag) }
                }
            }
        }

        /// The filters in a statement's name: `all`, or those given (`environment_tag`).
        var code: String {
            let given = [(environment, "environment"), (active, "active"), (alias, "alias"), (tag, "tag")].filter(\.0).map(\.1)
            return given.isEmpty ? "all" : given.joined(separator: "_")
        }
    }

    static func page(_ filters: Filters) -> SQLStatement {
        guard let statement = pages[filters] else { preconditionFailure("no variant for the device filters \(filters.code)") }
        return statement
    }

    private static let pages = Dictionary(uniqueKeysWithValues: Filters.every.map { ($0, statement($0)) })

    private static func statement(_ filters: Filters) -> SQLStatement {
        var conditions = ["d.app_id = $1", "d.id > $2"]
        var parameter = 3
        func next() -> String {
            parameter += 1
            return "$\(parameter)"
        }
        if filters.environment { conditions.append("d.environment = \(next())") }
        if filters.active { conditions.append("d.active = \(next())") }
        if filters.alias { conditions.append("d.alias = \(next())") }
        if filters.tag {
            conditions.append("d.id IN (SELECT t.device_id FROM device_tags t WHERE t.app_id = $1 AND t.tag = \(next()) AND t.device_id > $2)")
        }
        return SQLStatement("pushrelay_device_listing_\(filters.code)", """
            SELECT d.id, \(RegistrationID.sql("d.registration_id")) AS registration_id, d.token, d.environment, d.alias, d.mobile,
                   d.badge, d.active, d.invalidation_reason,
                   \(isoTimestampSQL("d.created_at")) AS created_at, \(isoTimestampSQL("d.registered_at")) AS registered_at,
                   \(isoTimestampSQL("d.last_seen_at")) AS last_seen_at, \(isoTimestampSQL("d.invalidated_at")) AS invalidated_at,
                   \(isoTimestampSQL("d.apns_invalidated_at")) AS apns_invalidated_at,
                   \(isoTimestampSQL("d.reactivated_at")) AS reactivated_at,
                   array_to_json(ARRAY(SELECT t.tag FROM device_tags t WHERE t.device_id = d.id ORDER BY t.tag))::text AS tags
            FROM devices d
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY d.id
            LIMIT $3
            """)
    }

    static var all: [SQLStatement] { Filters.every.map(page) }
}
