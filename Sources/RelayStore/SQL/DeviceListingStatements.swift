import PostgresStore

/// A page of `GET /admin/v1/apps/{app_key}/devices` (`DeviceListing`), one text per set of
/// filters given: `$1` app, `$2` cursor (only larger device ids), `$3` limit + 1, then one
/// parameter per filter given, in the order environment, active, alias, tag, platform. Each
/// device's tokens of other kinds (VoIP, location, …) come as a JSON array.
enum DeviceListingStatements {
    static let page = ListingVariants("pushrelay_device_listing", filters: ["environment", "active", "alias", "tag", "platform"]) { given in
        var conditions = ["d.app_id = $1", "d.id > $2"]
        let comparisons = ["d.environment = $?", "d.active = $?", "d.alias = $?",
                           "d.id IN (SELECT t.device_id FROM device_tags t WHERE t.app_id = $1 AND t.tag = $? AND t.device_id > $2)",
                           "d.platform = $?"]
        for (comparison, isGiven) in zip(comparisons, given) where isGiven {
            conditions.append(comparison.replacingOccurrences(of: "$?", with: "$\(conditions.count + 2)"))
        }
        return """
            SELECT d.id, \(RegistrationID.sql("d.registration_id")) AS registration_id, d.platform, d.token, d.environment, d.alias, d.mobile,
                   d.badge, d.active, d.invalidation_reason,
                   \(isoTimestampSQL("d.created_at")) AS created_at, \(isoTimestampSQL("d.registered_at")) AS registered_at,
                   \(isoTimestampSQL("d.last_seen_at")) AS last_seen_at, \(isoTimestampSQL("d.invalidated_at")) AS invalidated_at,
                   \(isoTimestampSQL("d.apns_invalidated_at")) AS apns_invalidated_at,
                   \(isoTimestampSQL("d.reactivated_at")) AS reactivated_at,
                   array_to_json(ARRAY(SELECT t.tag FROM device_tags t WHERE t.device_id = d.id ORDER BY t.tag))::text AS tags,
                   (SELECT coalesce(json_agg(json_build_object('kind', p.kind, 'token', p.token, 'registered_at', \(isoTimestampSQL("p.at")))
                                             ORDER BY p.kind), '[]')
                    FROM (SELECT 'voip' AS kind, d.voip_token AS token, d.voip_registered_at AS at WHERE d.voip_token IS NOT NULL
                          UNION ALL
                          SELECT k.kind, k.token, k.registered_at FROM device_push_tokens k WHERE k.app_id = d.app_id AND k.device_id = d.id) p
                   )::text AS push_tokens
            FROM devices d
            WHERE \(conditions.joined(separator: " AND "))
            ORDER BY d.id
            LIMIT $3
            """
    }

    static var all: [SQLStatement] { page.all }
}
