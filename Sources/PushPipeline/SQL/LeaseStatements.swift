import PostgresStore

/// Every statement that leases a chunk and reads what sending it needs, one text per
/// variant.
///
/// A lease skips the chunks whose credential is broken (the app's APNs credential for the
/// message's environment, or its FCM credential for an Android chunk), in a form that stays a
/// filter of the lane's index scan: the message is only read for an app that has a broken
/// credential (a NOT EXISTS on the message's environment became a hash anti-join that read
/// every ready chunk's message, and sorted them).
enum LeaseStatements {
    /// Leases the lane's next ready chunk: $1 the owner, $2 the lease in seconds, $3
    /// (broadcast) the app served last; the chunk's row has `chunk_id, message_id, app_id,
    /// leases`. The lane is written into the text, not bound: a prepared statement's generic
    /// plan cannot match a bound lane to the partial index of the broadcast lane, and sorted
    /// every ready chunk instead (~1,800 buffers a lease in the middle of a 1,000,000-device
    /// broadcast).
    static func lease(_ lane: Lane) -> SQLStatement {
        switch lane {
        case .targeted: leaseTargeted
        case .broadcast: leaseBroadcast
        }
    }

    /// Broadcast chunks go round-robin over apps: the first ready chunk of an app after $3,
    /// else from the first app, in (app, message, chunk) order; each is the first unlocked
    /// entry of `push_chunks_ready_broadcast` (migration 0024), not a sort.
    private static let leaseBroadcast = SQLStatement("pushrelay_lease_broadcast", """
        UPDATE push_chunks c SET state = 'leased', lease_owner = $1,
               lease_expires_at = now() + make_interval(secs => $2), leases = c.leases + 1
        WHERE c.id = coalesce(
            (SELECT p.id FROM push_chunks p
             WHERE p.state = 'ready' AND p.lane = 'broadcast' AND p.available_at <= now() AND p.app_id > $3::bigint
               AND \(credentialUsable)
             ORDER BY p.app_id, p.message_id, p.id LIMIT 1 FOR UPDATE SKIP LOCKED),
            (SELECT p.id FROM push_chunks p
             WHERE p.state = 'ready' AND p.lane = 'broadcast' AND p.available_at <= now()
               AND \(credentialUsable)
             ORDER BY p.app_id, p.message_id, p.id LIMIT 1 FOR UPDATE SKIP LOCKED))
        RETURNING c.id AS chunk_id, c.message_id, c.app_id, c.leases, c.platform
        """)

    /// The ready chunk `p` whose platform's credential is not broken (`brokenCredential`, with
    /// the message's environment read only for an app with a broken APNs credential).
    private static let credentialUsable = """
        NOT (p.platform <> 'android' AND EXISTS (SELECT 1 FROM apns_credentials k WHERE k.app_id = p.app_id AND k.broken_at IS NOT NULL)
                 AND EXISTS (SELECT 1 FROM apns_credentials k WHERE k.app_id = p.app_id
                             AND k.environment = (SELECT km.environment FROM messages km WHERE km.id = p.message_id) AND k.broken_at IS NOT NULL))
                 AND NOT (p.platform = 'android' AND EXISTS (SELECT 1 FROM fcm_credentials f WHERE f.app_id = p.app_id AND f.broken_at IS NOT NULL))
        """

    /// Whether a chunk of `platform` (an expression) of app `app` to environment
    /// `environment` would wait for a new credential: its platform's is broken.
    static func brokenCredential(platform: String, app: String, environment: String) -> String {
        """
        ((\(platform) <> 'android' AND EXISTS (SELECT 1 FROM apns_credentials k WHERE k.app_id = \(app) AND k.environment = \(environment) AND k.broken_at IS NOT NULL))
         OR (\(platform) = 'android' AND EXISTS (SELECT 1 FROM fcm_credentials f WHERE f.app_id = \(app) AND f.broken_at IS NOT NULL)))
        """
    }

    /// Targeted chunks go oldest first, leased and read for sending (`leasedRows`) in one
    /// statement: a single-user push costs one round trip between its NOTIFY and its send.
    private static let leaseTargeted = SQLStatement("pushrelay_lease_targeted_loaded", """
        WITH leased AS (
            UPDATE push_chunks c SET state = 'leased', lease_owner = $1,
                   lease_expires_at = now() + make_interval(secs => $2), leases = c.leases + 1
            FROM (SELECT p.id FROM push_chunks p
                  WHERE p.state = 'ready' AND p.lane = 'targeted' AND p.available_at <= now()
                    AND \(credentialUsable)
                  ORDER BY p.available_at, p.id LIMIT 1 FOR UPDATE SKIP LOCKED) pick
            WHERE c.id = pick.id
            RETURNING c.id, c.message_id, c.app_id, c.leases, c.device_ids, c.platform
        )
        \(leasedRows(messages: "messages"))
        """)

    /// Rows that read what a targeted chunk leased by the same statement (`leased`: id,
    /// message_id, app_id, leases, device_ids, platform) needs: one for the chunk with its
    /// message, its platform's credential (`credentialColumns`) and the ids to send
    /// (`chunk_id` set), one per device found (`chunk_id` NULL), so the message body is not
    /// repeated on every device's row. `messages` is where
    /// the message is read: the table, or the rows `AudienceStatements.acceptTargetedHandoff`
    /// inserted it with; `LoadedChunk.leased(from:)` reads both. The ids are all the chunk's:
    /// `unrecorded` takes out, on a re-lease, those that have an outcome.
    ///
    /// The devices are found by a probe of the primary key per id: with `d.id = ANY (l.device_ids)`
    /// PostgreSQL hashed a small app's devices by app and tested each against every chunk's ids
    /// (45,000 tests, 11 ms of a 25 ms batch of 45 chunks in an app of 1,000 devices).
    static func leasedRows(messages: String) -> String {
        """
        SELECT l.id AS chunk_id, l.message_id, l.app_id, l.leases, l.platform,
               m.state, m.body, m.environment, m.accepted_at, m.expires_at, m.collapse_id, a.app_key, \(credentialColumns),
               l.device_ids AS ids, NULL::bigint AS id, NULL::text AS token, NULL::integer AS badge, NULL::text AS device_environment, NULL::boolean AS active
        FROM leased l JOIN \(messages) m ON m.id = l.message_id JOIN apps a ON a.id = l.app_id
        \(credentialJoins(platform: "l.platform", app: "l.app_id"))
        UNION ALL
        SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
               d.id, tk.token, d.badge, d.environment, d.active AND tk.token IS NOT NULL AS active
        FROM leased l JOIN \(messages) lm ON lm.id = l.message_id
        CROSS JOIN LATERAL (SELECT \(liveActivity(platform: "l.platform", body: "lm.body")) AS la) k
        CROSS JOIN LATERAL unnest(l.device_ids) AS u(id)
        JOIN devices d ON d.app_id = l.app_id AND d.id = u.id
        CROSS JOIN LATERAL (SELECT \(token(platform: "l.platform", liveActivity: "k.la")) AS token) tk
        """
    }

    /// The `live_activity` object of the message whose stored `body` a chunk of `platform`
    /// sends, read once per chunk; NULL for the other platforms.
    static func liveActivity(platform: String, body: String) -> String {
        "CASE WHEN \(platform) IN ('la_start', 'la_update') THEN \(body)::jsonb -> 'live_activity' END"
    }

    /// The token device `d` gets in a chunk of `platform`: its notification token in an `ios`
    /// or `android` chunk, its VoIP token in a `voip` one, its push-to-start token of the Live
    /// Activity's (`liveActivity`) attributes type, its update token of the activity while the
    /// activity is active or stale there, else its token of the chunk's kind
    /// (`device_push_tokens`, whose key (app_id, kind, device_id) finds it). NULL when it holds
    /// none any more (APNs refused it, or the activity ended since the chunk was cut): the
    /// device is then not sent to.
    private static func token(platform: String, liveActivity la: String) -> String {
        """
        CASE WHEN \(platform) IN ('ios', 'android') THEN d.token WHEN \(platform) = 'voip' THEN d.voip_token
             WHEN \(platform) = 'la_start' THEN (SELECT s.token FROM live_activity_start_tokens s
                  WHERE s.app_id = d.app_id AND s.device_id = d.id AND s.attributes_type = \(la) ->> 'attributes_type')
             WHEN \(platform) = 'la_update' THEN (SELECT t.token FROM live_activity_tokens t
                  WHERE t.app_id = d.app_id AND t.activity_id = \(la) ->> 'activity_id' AND t.device_id = d.id AND t.state IN ('active', 'stale'))
             ELSE (SELECT pt.token FROM device_push_tokens pt WHERE pt.app_id = d.app_id AND pt.kind = \(platform) AND pt.device_id = d.id) END
        """
    }

    /// A chunk's credential, from `credentialJoins`: whether the app has one for the chunk's
    /// platform, its version and sealed secret and whether it is broken (APNs' or FCM's, one
    /// of the two joins matches), and an APNs credential's own fields.
    private static let credentialColumns = """
        coalesce(k.app_id, f.app_id) IS NOT NULL AS has_credential, k.auth, k.topic, k.key_id, k.team_id,
               coalesce(k.sealed_secret, f.sealed_secret) AS sealed_secret, coalesce(k.updated_at, f.updated_at)::text AS version,
               coalesce(k.broken_at, f.broken_at) IS NOT NULL AS broken
        """

    /// The credential of a chunk of `platform` of app `app` to the message `m`'s environment.
    private static func credentialJoins(platform: String, app: String) -> String {
        """
        LEFT JOIN apns_credentials k ON \(platform) <> 'android' AND k.app_id = \(app) AND k.environment = m.environment
        LEFT JOIN fcm_credentials f ON \(platform) = 'android' AND f.app_id = \(app)
        """
    }

    /// $1 the message, $2 the chunk's platform: the message, its app's key and the credential
    /// the chunk is sent with.
    static let chunkContext = SQLStatement("pushrelay_chunk_context", """
        SELECT m.state, m.body, m.environment, m.accepted_at, m.expires_at, m.collapse_id, a.app_key, \(credentialColumns)
        FROM messages m JOIN apps a ON a.id = m.app_id
        \(credentialJoins(platform: "$2::text", app: "m.app_id"))
        WHERE m.id = $1
        """)

    /// $1 the chunk: a row with its ids still to send (`ids`), then a row per device of the
    /// app among them or beside them (`id, token, badge, device_environment, active`).
    ///
    /// A chunk's ids are sorted. A dense one (a broadcast's, cut by keyset: its ids span less
    /// than twice their number) is read as one range of the app's primary key, ~0.7 µs a
    /// device less than a probe per id; a sparse one (scattered registration ids) probes.
    static let chunkDevices = SQLStatement("pushrelay_chunk_devices", """
        WITH c AS MATERIALIZED (
            SELECT message_id, app_id, leases, platform, device_ids, device_ids[1] AS lo, device_ids[cardinality(device_ids)] AS hi,
                   device_ids[cardinality(device_ids)] - device_ids[1] < 2 * cardinality(device_ids) AS dense,
                   \(liveActivity(platform: "platform", body: "(SELECT m.body FROM messages m WHERE m.id = message_id)")) AS la
            FROM push_chunks WHERE id = $1
        )
        SELECT c.device_ids AS ids, NULL::bigint AS id, NULL::text AS token, NULL::integer AS badge,
               NULL::text AS device_environment, NULL::boolean AS active
        FROM c
        UNION ALL
        SELECT NULL, d.id, tk.token, d.badge, d.environment, d.active AND tk.token IS NOT NULL
        FROM c JOIN devices d ON d.app_id = c.app_id AND d.id BETWEEN c.lo AND c.hi
        CROSS JOIN LATERAL (SELECT \(token(platform: "c.platform", liveActivity: "c.la")) AS token) tk
        WHERE c.dense
        UNION ALL
        SELECT NULL, d.id, tk.token, d.badge, d.environment, d.active AND tk.token IS NOT NULL
        FROM c JOIN devices d ON d.app_id = c.app_id AND d.id = ANY (c.device_ids)
        CROSS JOIN LATERAL (SELECT \(token(platform: "c.platform", liveActivity: "c.la")) AS token) tk
        WHERE NOT c.dense
        """)

    /// $1 the message, $2 a re-leased chunk's ids: those without an outcome (a `deliveries`
    /// row, or a span of `delivery_spans` holding them), in their order. With the message as
    /// a parameter PostgreSQL prunes the day partitions: inside the lease or the accepting
    /// statement the look-up was planned and started against every partition on every lease
    /// (0.55 ms of the accepting statement's 1.26 in a new database, ~1 ms with a month of
    /// partitions).
    static let chunkUnrecorded = SQLStatement("pushrelay_chunk_unrecorded", """
        SELECT i.id FROM unnest($2::bigint[]) WITH ORDINALITY AS i(id, n)
        WHERE NOT (EXISTS (SELECT 1 FROM deliveries x WHERE x.message_id = $1::bigint AND x.device_id = i.id)
                   OR \(DeliverySpans.sentSQL(message: "$1::bigint", device: "i.id")))
        ORDER BY i.n
        """)

    /// Marks an app's credential for an environment broken: $1 the app, $2 the environment,
    /// $3 the version refused (a newer upload stays good), $4 APNs' reason.
    static let markCredentialBroken = SQLStatement("pushrelay_credential_broken", """
        UPDATE apns_credentials SET broken_at = now(), broken_reason = $4
        WHERE app_id = $1 AND environment = $2 AND updated_at::text = $3 AND broken_at IS NULL
        """)

    /// Marks an app's FCM credential broken: $1 the app, $2 the version refused (a newer upload
    /// stays good), $3 the reason (FCM's, or the token endpoint's).
    static let markFCMCredentialBroken = SQLStatement("pushrelay_fcm_credential_broken", """
        UPDATE fcm_credentials SET broken_at = now(), broken_reason = $3
        WHERE app_id = $1 AND updated_at::text = $2 AND broken_at IS NULL
        """)

    /// Gives chunk $1 back from owner $2, to be leased again after $3 seconds (retries, a
    /// paused app).
    static let release = SQLStatement("pushrelay_chunk_release", """
        UPDATE push_chunks SET state = 'ready', lease_owner = NULL, lease_expires_at = NULL,
               available_at = now() + make_interval(secs => $3)
        WHERE id = $1 AND lease_owner = $2 AND state = 'leased'
        """)

    /// Pushes the leases of chunks $1 (bigint[]) by owner $2 out to $3 seconds from now,
    /// while they are still being worked on: a worker's every chunk in one statement.
    static let extend = SQLStatement("pushrelay_chunk_extend", """
        UPDATE push_chunks SET lease_expires_at = now() + make_interval(secs => $3)
        WHERE id = ANY ($1::bigint[]) AND lease_owner = $2 AND state = 'leased'
        """)

    /// Makes the chunks whose lease ran out ready again (their worker died or hung).
    static let reclaimExpired = SQLStatement("pushrelay_chunk_reclaim", """
        UPDATE push_chunks SET state = 'ready', lease_owner = NULL, lease_expires_at = NULL
        WHERE state = 'leased' AND lease_expires_at < now()
        """)

    /// Every variant, for the test that prepares and explains each.
    static let all = [leaseTargeted, leaseBroadcast, chunkContext, chunkDevices, chunkUnrecorded, markCredentialBroken, markFCMCredentialBroken,
                      release, extend, reclaimExpired]
}
