import PostgresStore

/// Every statement that selects an audience's devices, one text per variant: accepting a
/// push (nothing to deliver here, a broadcast, a targeted push, a targeted push handed to
/// the local worker) and cutting a resolving message into chunks (at once, or spread).
///
/// The device condition has one text per `AudienceShape` and `AudiencePlatforms`
/// (`condition`), so each variant is a statement per shape and platforms, prepared under a
/// name that says all three. Chunks hold the devices of one platform (`push_chunks.platform`).
enum AudienceStatements {
    // MARK: Accepting a push

    // Every accept statement binds the message row as $1 id, $2 app, $3 cid, $4 sendno, $5 body,
    // $6 environment, $7 lane, $8 accepted_at (Unix seconds), $9 expires_at (Unix seconds),
    // $10 big_push_duration in seconds, $11 accepted_at plus it (spread_until when positive),
    // $12 collapse_id; the audience's lists follow the variant's own parameters. The insert
    // does nothing on a cid seen before: `accepted_id` is NULL then. The environment is read
    // only for iOS devices; Android devices have none.

    /// Accepted with nothing to deliver on this relay (neither iOS nor Android in `platform`): done at once.
    static let acceptUndelivered = SQLStatement("pushrelay_accept_undelivered", """
        WITH message AS (
            INSERT INTO messages (id, app_id, cid, sendno, body, environment, lane, accepted_at, expires_at, spread_until, collapse_id, state, finished_at)
            VALUES ($1::bigint, $2::bigint, $3::text, $4::integer, $5::text, $6::text, $7::text, $8::bigint, to_timestamp($9::bigint),
                    CASE WHEN $10::integer > 0 THEN to_timestamp($11::bigint) END, $12::text, 'done', now())
            ON CONFLICT (app_id, cid) DO NOTHING
            RETURNING id
        )
        SELECT 1 AS devices, (SELECT id FROM message) AS accepted_id
        """)

    /// A broadcast or tag push: stored `resolving` if anyone of any of its platforms is in
    /// its audience (workers cut it into chunks, iOS first), and the workers woken. Lists from $13.
    static let acceptBroadcast = ByAudience(broadcastShapes, AudiencePlatforms.allCases) { shape, platforms in
        SQLStatement("pushrelay_accept_broadcast_\(shape.code)\(platforms.code)", """
            WITH audience AS (
                SELECT count(*) AS devices FROM (\(anyone(shape, platforms))) anyone
            ), message AS (
                INSERT INTO messages (id, app_id, cid, sendno, body, environment, lane, accepted_at, expires_at, spread_until, collapse_id, state,
                                      resolve_platform)
                SELECT $1::bigint, $2::bigint, $3::text, $4::integer, $5::text, $6::text, $7::text, $8::bigint, to_timestamp($9::bigint),
                       CASE WHEN $10::integer > 0 THEN to_timestamp($11::bigint) END, $12::text, 'resolving',
                       '\(platforms == .all ? AudiencePlatforms.ios.rawValue : platforms.rawValue)'
                FROM audience WHERE devices > 0
                ON CONFLICT (app_id, cid) DO NOTHING
                RETURNING id
            ), notified AS (
                SELECT pg_notify('\(PushChannel.name)', '') FROM message
            )
            SELECT (SELECT devices FROM audience) AS devices, (SELECT id FROM message) AS accepted_id, (SELECT count(*) FROM notified) AS notified
            """)
    }

    /// A push naming devices (alias, registration_id), cut into chunks now: at most $15
    /// devices (the resolvers take the rest, from the last one cut), in chunks of $13; $14 is
    /// the cursor (0). None made means nobody matched. A worker is woken to lease the chunks
    /// ("chunks"), or the resolvers to go on (""). Lists from $16.
    static let acceptTargeted = ByAudience(targetedVariants) { shape, platforms in
        SQLStatement("pushrelay_accept_targeted_\(shape.code)\(platforms.code)", """
            WITH \(targetedMessage(shape, platforms, firstList: 16, returning: "id, state")), made AS (
                INSERT INTO push_chunks (message_id, app_id, lane, device_ids, platform)
                SELECT m.id, $2::bigint, $7::text, g.ids, g.platform FROM message m, groups g
            ), notified AS (
                SELECT pg_notify('\(PushChannel.name)', CASE WHEN m.state = 'sending' THEN '\(PushChannel.chunksReady)' ELSE '' END)
                FROM message m
            )
            SELECT (SELECT devices FROM summary) AS devices, (SELECT id FROM message) AS accepted_id, (SELECT count(*) FROM notified) AS notified
            """)
    }

    /// `acceptTargeted` on a node whose worker reserved a slot: a push of one chunk (whose
    /// platform's credential is not broken, as a lease requires) is leased to that worker
    /// as $16 (owner) for $17 seconds instead of waking anyone, and read for it in the rows of
    /// `LeaseStatements.lease(.targeted)` (beside `devices`, `accepted_id`, `notified`).
    /// Lists from $18.
    static let acceptTargetedHandoff = ByAudience(targetedVariants) { shape, platforms in
        SQLStatement("pushrelay_accept_targeted_handoff_\(shape.code)\(platforms.code)", """
            WITH \(targetedMessage(shape, platforms, firstList: 18, returning: "id, state, body, environment, accepted_at, expires_at, collapse_id")), handed AS (
                SELECT m.id FROM message m
                WHERE m.state = 'sending' AND (SELECT count(*) FROM groups) = 1
                  AND NOT EXISTS (SELECT 1 FROM groups g WHERE \(LeaseStatements.brokenCredential(platform: "g.platform", app: "$2::bigint", environment: "$6::text")))
            ), made AS (
                INSERT INTO push_chunks (message_id, app_id, lane, device_ids, platform, state, lease_owner, lease_expires_at, leases)
                SELECT m.id, $2::bigint, $7::text, g.ids, g.platform, CASE WHEN h.id IS NULL THEN 'ready' ELSE 'leased' END,
                       CASE WHEN h.id IS NOT NULL THEN $16::text END,
                       CASE WHEN h.id IS NOT NULL THEN now() + make_interval(secs => $17::float8) END,
                       CASE WHEN h.id IS NULL THEN 0 ELSE 1 END
                FROM message m CROSS JOIN groups g LEFT JOIN handed h ON true
                RETURNING id, message_id, app_id, leases, device_ids, platform, state
            ), leased AS (
                SELECT id, message_id, app_id, leases, device_ids, platform FROM made WHERE state = 'leased'
            ), notified AS (
                SELECT pg_notify('\(PushChannel.name)', CASE WHEN m.state = 'sending' THEN '\(PushChannel.chunksReady)' ELSE '' END)
                FROM message m WHERE NOT EXISTS (SELECT 1 FROM handed)
            )
            SELECT s.*, r.* FROM (
                SELECT (SELECT devices FROM summary) AS devices, (SELECT id FROM message) AS accepted_id, (SELECT count(*) FROM notified) AS notified
            ) s
            LEFT JOIN (\(LeaseStatements.leasedRows(messages: "message"))) r ON true
            """)
    }

    /// The CTEs `picked`, `sliced`, `groups` (`slice`), then `summary` (the devices cut, the
    /// Android ones among them, and the last one) and `message`: the row inserted `sending`
    /// when every device fit under $15, else `resolving` from the last one (the same
    /// platforms), RETURNING `returning`.
    private static func targetedMessage(_ shape: AudienceShape, _ platforms: AudiencePlatforms, firstList: Int, returning: String) -> String {
        let android = switch platforms {
        case .android: "count(*)"
        case .all: "count(*) FILTER (WHERE platform = 'android')"
        default: "0::bigint"
        }
        return """
        \(slice(shape, platforms, environment: 6, firstList: firstList, size: 13, cursor: 14, limit: 15, liveActivity: acceptedLiveActivity)), summary AS (
            SELECT count(*) AS devices, \(android) AS android, max(id) AS last FROM picked
        ), message AS (
            INSERT INTO messages (id, app_id, cid, sendno, body, environment, lane, accepted_at, expires_at, spread_until, collapse_id,
                                  state, target_count, android_target_count, resolve_cursor, chunks_pending, resolve_platform)
            SELECT $1::bigint, $2::bigint, $3::text, $4::integer, $5::text, $6::text, $7::text, $8::bigint, to_timestamp($9::bigint),
                   CASE WHEN $10::integer > 0 THEN to_timestamp($11::bigint) END, $12::text,
                   CASE WHEN s.devices < $15::bigint THEN 'sending' ELSE 'resolving' END, s.devices, s.android, s.last, (SELECT count(*) FROM groups),
                   '\(platforms.rawValue)'
            FROM summary s WHERE s.devices > 0
            ON CONFLICT (app_id, cid) DO NOTHING
            RETURNING \(returning)
        )
        """
    }

    /// $1 the app, $2 the cid: the message a repeated cid names.
    static let acceptedByCID = SQLStatement("pushrelay_accepted_by_cid", "SELECT id, sendno FROM messages WHERE app_id = $1 AND cid = $2")

    /// $1 the overridden msg_id, $2 the app: never another app's message.
    static let overridden = SQLStatement("pushrelay_overridden_message", "SELECT collapse_id, body FROM messages WHERE id = $1 AND app_id = $2")

    // MARK: Cutting a resolving message into chunks

    /// $1 the app, $2 the environment (not for Android): the range of the platforms' active
    /// devices' ids, that spreading scales over.
    /// A Live Activity start's is the environment's iOS devices' range.
    static func deviceRange(_ platforms: AudiencePlatforms) -> SQLStatement {
        deviceRanges[rangedPlatforms.firstIndex(of: platforms.isLiveActivity ? .ios : platforms) ?? 0]
    }

    private static let rangedPlatforms = AudiencePlatforms.allCases.filter { !$0.isLiveActivity }
    private static let deviceRanges = rangedPlatforms.map { platforms in
        SQLStatement("pushrelay_device_range\(platforms.code)", """
            SELECT min(id) AS lo, max(id) AS hi FROM devices d WHERE d.app_id = $1 AND \(platformCondition(platforms, environment: 2, liveActivity: "NULL")) AND d.active
            """)
    }

    // Cutting binds $1 the message, $2 the app, $3 the lane, $4 the chunk size, $5 the cursor,
    // $6 the most devices to take, then the variant's own parameters and the environment (not
    // for Android, whose condition has none); the audience's lists follow.

    /// Makes chunks of $4 devices of message $1 (app $2, lane $3) from the devices after $5,
    /// at most $6, available at once, and says how many devices and chunks it made and the
    /// last device id. Then the environment; lists after it.
    static let makeChunks = ByAudience(cutVariants) { shape, platforms in
        SQLStatement("pushrelay_make_chunks_\(shape.code)\(platforms.code)", """
            WITH \(slice(shape, platforms, environment: 7, firstList: platforms.usesEnvironment ? 8 : 7, size: 4, cursor: 5, limit: 6,
                         liveActivity: resolvingLiveActivity)), made AS (
                INSERT INTO push_chunks (message_id, app_id, lane, device_ids, platform, available_at)
                SELECT $1::bigint, $2::bigint, $3, g.ids, g.platform, now()
                FROM groups g
                RETURNING cardinality(device_ids) AS n, device_ids[cardinality(device_ids)] AS last, platform
            )
            SELECT \(madeSummary)
            """)
    }

    /// `makeChunks` for a message spread over `big_push_duration`: a chunk becomes available
    /// at $7 (accepted_at) plus $8 seconds scaled by where its first device id lies between
    /// $9 and $10 (`deviceRange`), so no count of the audience is needed. Then the
    /// environment; lists after it.
    static let makeSpreadChunks = ByAudience(cutVariants) { shape, platforms in
        SQLStatement("pushrelay_make_chunks_spread_\(shape.code)\(platforms.code)", """
            WITH \(slice(shape, platforms, environment: 11, firstList: platforms.usesEnvironment ? 12 : 11, size: 4, cursor: 5, limit: 6,
                         liveActivity: resolvingLiveActivity)), made AS (
                INSERT INTO push_chunks (message_id, app_id, lane, device_ids, platform, available_at)
                SELECT $1::bigint, $2::bigint, $3, g.ids, g.platform,
                       greatest(now(), to_timestamp($7::bigint + $8::float8
                           * (g.ids[1] - $9::bigint)::float8 / greatest($10::bigint - $9::bigint, 1)::float8))
                FROM groups g
                RETURNING cardinality(device_ids) AS n, device_ids[cardinality(device_ids)] AS last, platform
            )
            SELECT \(madeSummary)
            """)
    }

    /// What a slice made (`made`: a row per chunk): its devices, the Android ones among them,
    /// its chunks and the last device.
    private static let madeSummary = """
        coalesce(sum(n), 0) AS devices, coalesce(sum(n) FILTER (WHERE platform = 'android'), 0) AS android,
                   count(*) AS chunks, max(last) AS last FROM made
        """

    /// The first of the oldest 16 `resolving` messages no other resolver holds, now held by
    /// this transaction's advisory lock (the limit bounds the locks tried).
    static let claimResolving = SQLStatement("pushrelay_resolve_claim", """
        SELECT id FROM (SELECT id FROM messages WHERE state = 'resolving' ORDER BY id LIMIT 16) waiting
        WHERE pg_try_advisory_xact_lock(hashtext('pushrelay_resolve'), hashtext(waiting.id::text))
        LIMIT 1
        """)

    /// Whether any message waits to be cut (held by other resolvers when none was claimed).
    static let anyResolving = SQLStatement("pushrelay_resolve_waiting", """
        SELECT EXISTS (SELECT 1 FROM messages WHERE state = 'resolving') AS waiting
        """)

    /// $1 a claimed message, if it is still `resolving`: what cutting its next slice needs.
    static let resolvingMessage = SQLStatement("pushrelay_resolve_message", """
        SELECT id, app_id, body, environment, lane, resolve_cursor, resolve_platform, accepted_at,
               coalesce(extract(epoch FROM spread_until)::bigint - accepted_at, 0) AS spread
        FROM messages WHERE id = $1 AND state = 'resolving'
        """)

    /// Closes resolving message $1 whose body no longer parses.
    static let closeUnparsable = SQLStatement("pushrelay_resolve_close", """
        UPDATE messages SET state = 'done', finished_at = now() WHERE id = $1 AND state = 'resolving'
        """)

    /// Records a slice of resolving message $1: $2 devices ($7 of them Android) and $5 chunks
    /// made, $3 the last device (the next cursor), $4 whether the audience is complete; then the message is
    /// `sending`, or `done` when every chunk is already sent (or none was made). $6, when not
    /// NULL, is the platforms to cut next, from the first device (a broadcast's Android pass
    /// after its iOS one). No row when the message was withdrawn meanwhile.
    static let advanceResolving = SQLStatement("pushrelay_resolve_advance", """
        UPDATE messages SET target_count = target_count + $2, android_target_count = android_target_count + $7,
               resolve_cursor = CASE WHEN $6::text IS NULL THEN coalesce($3, resolve_cursor) ELSE 0 END,
               resolve_platform = coalesce($6::text, resolve_platform),
               chunks_pending = chunks_pending + $5,
               state = CASE WHEN NOT $4::boolean THEN 'resolving'
                            WHEN chunks_pending + $5 = 0 THEN 'done' ELSE 'sending' END,
               finished_at = CASE WHEN $4::boolean AND chunks_pending + $5 = 0 THEN now() ELSE finished_at END
        WHERE id = $1 AND state = 'resolving'
        RETURNING id
        """)

    // MARK: Shared by the variants

    /// The CTEs `picked` (the next $`limit` device ids of the audience after $`cursor`, by
    /// keyset) and `groups` (a row per chunk of $`size`: `ids`, ascending, and their
    /// `platform`) of `condition`. The chunks are slices of one array of the ids per platform:
    /// half the time of numbering the rows and grouping them (a window function and an
    /// aggregate per chunk; 230 against 500 ms per 1,000,000 ids, measured alone). One
    /// platform's pass reads no device's platform (the ids alone, from the index).
    ///
    /// A list of aliases or registration ids names its few devices: they are found through the
    /// list's index, then sorted (`OFFSET 0` plans them apart). Planned as one, the generic
    /// plan the pool settles on walked a small app's devices in id order for `ORDER BY id
    /// LIMIT` and tested each for the alias: 1,000 rows filtered for an app of 1,000 devices,
    /// 1.8 ms of a lone targeted accept (with 2,000 devices it took the index).
    private static func slice(_ shape: AudienceShape, _ platforms: AudiencePlatforms, environment: Int, firstList: Int, size: Int,
                              cursor: Int, limit: Int, liveActivity: String) -> String {
        let (read, sliced) = platforms == .all
            ? (", d.platform", "SELECT platform, array_agg(id ORDER BY id) AS ids FROM picked GROUP BY platform")
            : ("", "SELECT '\(platforms.rawValue)'::text AS platform, array_agg(id ORDER BY id) AS ids FROM picked")
        let devices = """
            SELECT d.id\(read) FROM devices d
            WHERE \(condition(shape, platforms, environment: environment, firstList: firstList, liveActivity: liveActivity)) AND d.id > $\(cursor)::bigint
            """
        let picked = shape.isTargeted
            ? "SELECT f.* FROM (\(devices) OFFSET 0) f ORDER BY f.id LIMIT $\(limit)::integer"
            : "\(devices) ORDER BY d.id LIMIT $\(limit)::integer"
        return """
        picked AS (
            \(picked)
        ), sliced AS (
            \(sliced)
        ), groups AS (
            SELECT s.platform, s.ids[g * $\(size)::integer + 1 : (g + 1) * $\(size)::integer] AS ids
            FROM sliced s, generate_series(0, (cardinality(s.ids) - 1) / $\(size)::integer) AS g
        )
        """
    }

    /// Whether anyone of `platforms` is in the audience: a row when so (two for both
    /// platforms), each platform probed by its own index. Lists from $13.
    private static func anyone(_ shape: AudienceShape, _ platforms: AudiencePlatforms) -> String {
        let probed: [AudiencePlatforms] = platforms == .all ? [.ios, .android] : [platforms]
        return probed.map { "(SELECT 1 FROM devices d WHERE \(condition(shape, $0, environment: 6, firstList: 13, liveActivity: acceptedLiveActivity)) LIMIT 1)" }
            .joined(separator: " UNION ALL ")
    }

    /// The devices of `platforms`: iOS ones of the environment $`environment` (an Android
    /// device has none), Android ones, either, iOS ones holding a token of a kind: VoIP
    /// (index devices_fanout_voip), another in `device_push_tokens` (its primary key (app_id,
    /// kind, device_id) serves the probe per device and the walk in id order alike); or holding
    /// a Live Activity token: a push-to-start token of the start's attributes type, an update
    /// token of the activity where it is active or stale (the activity's few devices found from
    /// its tokens, not by a walk of the app's). `liveActivity` is the message's `live_activity`
    /// object; the app is $2.
    private static func platformCondition(_ platforms: AudiencePlatforms, environment: Int, liveActivity: String) -> String {
        switch platforms {
        case .ios: "d.environment = $\(environment)"
        case .voip: "d.environment = $\(environment) AND d.voip_token IS NOT NULL"
        case .android: "d.platform = 'android'"
        case .all: "(d.environment = $\(environment) OR d.platform = 'android')"
        case .location, .complication, .fileprovider, .pushtotalk:
            """
            d.environment = $\(environment) AND EXISTS (SELECT 1 FROM device_push_tokens k \
            WHERE k.app_id = d.app_id AND k.kind = '\(platforms.rawValue)' AND k.device_id = d.id)
            """
        case .liveActivityStart: """
            d.environment = $\(environment) AND EXISTS (SELECT 1 FROM live_activity_start_tokens s
                WHERE s.app_id = d.app_id AND s.device_id = d.id AND s.attributes_type = \(liveActivity) ->> 'attributes_type')
            """
        case .liveActivity: """
            d.environment = $\(environment) AND d.id = ANY (ARRAY(SELECT t.device_id FROM live_activity_tokens t
                WHERE t.app_id = $2 AND t.activity_id = \(liveActivity) ->> 'activity_id' AND t.token IS NOT NULL
                  AND t.state IN ('active', 'stale')))
            """
        }
    }

    /// The `live_activity` object of the push being accepted (its body is $5).
    private static let acceptedLiveActivity = "($5::text::jsonb -> 'live_activity')"
    /// The `live_activity` object of the message being cut ($1).
    private static let resolvingLiveActivity = "(SELECT m.body::jsonb -> 'live_activity' FROM messages m WHERE m.id = $1::bigint)"

    /// The devices of an audience of `shape` (`devices d`): active, of the app ($2) and the
    /// platforms (`platformCondition`), with each given list ANDed, as JPush defines
    /// it, bound from `firstList` on in the order tag, tag_and, tag_not, alias,
    /// registration_id (`AudienceCondition.lists`). Each part is one index range:
    /// `devices_fanout` (iOS) or `devices_fanout_android` for the app, `device_tags`' primary
    /// key (app_id, tag, device_id) for tag tests, `devices_alias` for aliases. A device has a tag at most once and `tag_and`
    /// has no repeats, so "all of them" is as many rows as the list has.
    private static func condition(_ shape: AudienceShape, _ platforms: AudiencePlatforms, environment: Int, firstList: Int,
                                  liveActivity: String) -> String {
        var next = firstList
        func list() -> String {
            defer { next += 1 }
            return "$\(next)"
        }
        var parts = ["d.app_id = $2", platformCondition(platforms, environment: environment, liveActivity: liveActivity), "d.active"]
        if shape.contains(.tags) {
            parts.append("EXISTS (SELECT 1 FROM device_tags t WHERE t.app_id = d.app_id AND t.tag = ANY (\(list())::text[]) AND t.device_id = d.id)")
        }
        if shape.contains(.tagsAnd) {
            let tags = list()
            parts.append("""
                (SELECT count(*) FROM device_tags t WHERE t.app_id = d.app_id AND t.tag = ANY (\(tags)::text[]) AND t.device_id = d.id) \
                = cardinality(\(tags)::text[])
                """)
        }
        if shape.contains(.tagsNot) {
            parts.append("NOT EXISTS (SELECT 1 FROM device_tags t WHERE t.app_id = d.app_id AND t.tag = ANY (\(list())::text[]) AND t.device_id = d.id)")
        }
        if shape.contains(.aliases) { parts.append("d.alias = ANY (\(list())::text[])") }
        if shape.contains(.registrationIDs) { parts.append("d.registration_id = ANY (\(list())::uuid[])") }
        return parts.joined(separator: " AND ")
    }

    private static let broadcastShapes = AudienceShape.every.filter { !$0.isTargeted }
    private static let targetedShapes = AudienceShape.every.filter(\.isTargeted)
    /// What a resolver cuts: one platform (or one kind of token) of any audience, both only of a targeted one.
    private static let cutVariants = AudienceShape.every.flatMap { shape in
        AudiencePlatforms.allCases.filter { shape.isTargeted || $0 != .all }.map { (shape, $0) }
    }
    /// What is cut as it is accepted: any platforms of a push naming devices, and a Live
    /// Activity update or end of any audience (its devices are the activity's few).
    static let targetedVariants = AudienceShape.every.flatMap { shape in
        (shape.isTargeted ? AudiencePlatforms.allCases : [.liveActivity]).map { (shape, $0) }
    }

    /// A variant's statement for each audience shape and platforms it serves.
    struct ByAudience: Sendable {
        private struct Key: Hashable {
            var shape: AudienceShape
            var platforms: AudiencePlatforms
        }

        private let statements: [Key: SQLStatement]

        init(_ shapes: [AudienceShape], _ platforms: [AudiencePlatforms], _ statement: (AudienceShape, AudiencePlatforms) -> SQLStatement) {
            self.init(shapes.flatMap { shape in platforms.map { (shape, $0) } }, statement)
        }

        init(_ variants: [(AudienceShape, AudiencePlatforms)], _ statement: (AudienceShape, AudiencePlatforms) -> SQLStatement) {
            statements = Dictionary(uniqueKeysWithValues: variants.map { (Key(shape: $0.0, platforms: $0.1), statement($0.0, $0.1)) })
        }

        subscript(shape: AudienceShape, platforms: AudiencePlatforms) -> SQLStatement {
            guard let statement = statements[Key(shape: shape, platforms: platforms)] else {
                preconditionFailure("no variant for the audience shape \(shape.code) and platforms \(platforms)")
            }
            return statement
        }

        var all: [SQLStatement] { statements.values.sorted { $0.name < $1.name } }
    }

    /// Every variant, for the test that prepares and explains each.
    static var all: [SQLStatement] {
        [acceptUndelivered, acceptedByCID, overridden, claimResolving, anyResolving, resolvingMessage, closeUnparsable, advanceResolving]
            + deviceRanges
            + [acceptBroadcast, acceptTargeted, acceptTargetedHandoff, makeChunks, makeSpreadChunks].flatMap(\.all)
    }
}
