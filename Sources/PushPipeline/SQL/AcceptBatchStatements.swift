import PostgresStore

/// The statement that accepts many targeted pushes at once (`TargetedBatch`): what
/// `AudienceStatements.acceptTargeted` and `acceptTargetedHandoff` do for one push, for
/// every iOS push of a group commit's batch whose audience is one list of aliases or of
/// registration ids (iOS devices: those of the push's environment; chunks, messages' resolving
/// platform and Android counts keep their iOS defaults). A statement per list kind
/// (`AudienceShape.aliases`, `.registrationIDs`).
enum AcceptBatchStatements {
    /// The text for pushes whose audience is `shape`'s list alone. A row per push from $1…$13: msg_id, app, cid, sendno, body, environment, accepted_at
    /// and expires_at (Unix seconds), spread_until (Unix seconds, NULL without
    /// big_push_duration), collapse_id, the list (an array literal), and the owner and lease
    /// seconds of the local worker's slot reserved for it (NULL: none); $14 the chunk size,
    /// $15 the most devices cut now (the resolvers take the rest, from the last one cut).
    ///
    /// Each push is stored, in the order given, when it matches a device (else none is
    /// made: 1011), unless its cid was seen before (or earlier in the batch); then it is
    /// cut into chunks. A push of one chunk with a reserved slot, whose environment's
    /// credential is not broken, has its chunk leased to that slot; one NOTIFY wakes the
    /// workers for the rest. Rows: one per push (`push_id`, `devices` matched, `accepted_id`,
    /// NULL when not stored), then the rows of `LeaseStatements.leasedRows` (`chunk_id`…), one
    /// per leased chunk and one per device of them.
    private static func acceptTargeted(_ shape: AudienceShape) -> SQLStatement {
        SQLStatement("pushrelay_accept_targeted_batch_\(shape.code)", """
            WITH push AS (
                SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::integer[], $5::text[], $6::text[], $7::bigint[],
                                     $8::bigint[], $9::bigint[], $10::text[], $11::text[], $12::text[], $13::float8[])
                    WITH ORDINALITY AS p(id, app_id, cid, sendno, body, environment, accepted_at, expires_at, spread_until, collapse_id,
                                         list, owner, lease_seconds, n)
            ), picked AS (
                -- The devices found through the list's index, then sorted: OFFSET 0 plans them apart, so the
                -- first ones by id are not looked for by walking the app's devices in id order.
                SELECT p.id, x.ids FROM push p CROSS JOIN LATERAL (
                    SELECT array_agg(f.id ORDER BY f.id) AS ids FROM (
                        SELECT f.id FROM (
                            SELECT d.id FROM devices d
                            WHERE d.app_id = p.app_id AND d.environment = p.environment AND d.active
                              AND \(shape == .aliases ? "d.alias = ANY (p.list::text[])" : "d.registration_id = ANY (p.list::uuid[])")
                            OFFSET 0
                        ) f
                        ORDER BY f.id LIMIT $15::integer
                    ) f
                ) x
                WHERE x.ids IS NOT NULL
            ), message AS (
                INSERT INTO messages (id, app_id, cid, sendno, body, environment, lane, accepted_at, expires_at, spread_until, collapse_id,
                                      state, target_count, resolve_cursor, chunks_pending)
                SELECT p.id, p.app_id, p.cid, p.sendno, p.body, p.environment, 'targeted', p.accepted_at, to_timestamp(p.expires_at),
                       to_timestamp(p.spread_until), p.collapse_id,
                       CASE WHEN cardinality(k.ids) < $15::integer THEN 'sending' ELSE 'resolving' END, cardinality(k.ids),
                       k.ids[cardinality(k.ids)], (cardinality(k.ids) + $14::integer - 1) / $14::integer
                FROM push p JOIN picked k ON k.id = p.id
                ORDER BY p.n
                ON CONFLICT (app_id, cid) DO NOTHING
                RETURNING id, app_id, state, body, environment, accepted_at, expires_at, collapse_id
            ), groups AS (
                SELECT m.id AS message_id, m.app_id, m.state, k.ids[g * $14::integer + 1 : (g + 1) * $14::integer] AS ids,
                       (cardinality(k.ids) + $14::integer - 1) / $14::integer AS chunks
                FROM message m JOIN picked k ON k.id = m.id, generate_series(0, (cardinality(k.ids) - 1) / $14::integer) AS g
            ), handed AS (
                SELECT g.message_id, p.owner, p.lease_seconds FROM groups g JOIN push p ON p.id = g.message_id
                WHERE p.owner IS NOT NULL AND g.state = 'sending' AND g.chunks = 1
                  AND NOT \(LeaseStatements.brokenCredential(platform: "'ios'", app: "g.app_id", environment: "p.environment"))
            ), made AS (
                INSERT INTO push_chunks (message_id, app_id, lane, device_ids, state, lease_owner, lease_expires_at, leases)
                SELECT g.message_id, g.app_id, 'targeted', g.ids, CASE WHEN h.message_id IS NULL THEN 'ready' ELSE 'leased' END,
                       h.owner, now() + make_interval(secs => h.lease_seconds), CASE WHEN h.message_id IS NULL THEN 0 ELSE 1 END
                FROM groups g LEFT JOIN handed h ON h.message_id = g.message_id
                RETURNING id, message_id, app_id, leases, device_ids, platform, state
            ), leased AS (
                SELECT id, message_id, app_id, leases, device_ids, platform FROM made WHERE state = 'leased'
            ), notified AS (
                SELECT pg_notify('\(PushChannel.name)', w.payload) FROM (
                    SELECT DISTINCT CASE WHEN m.state = 'sending' THEN '\(PushChannel.chunksReady)' ELSE '' END AS payload
                    FROM message m WHERE NOT EXISTS (SELECT 1 FROM handed h WHERE h.message_id = m.id)
                ) w
            ), answers AS (
                SELECT p.id AS push_id, coalesce(cardinality(k.ids), 0) AS devices, m.id AS accepted_id, (SELECT count(*) FROM notified) AS notified
                FROM push p LEFT JOIN picked k ON k.id = p.id LEFT JOIN message m ON m.id = p.id
            )
            -- The answers (the leased rows' columns NULL, without naming them), then the leased rows.
            SELECT a.*, r.* FROM answers a LEFT JOIN (\(LeaseStatements.leasedRows(messages: "message"))) r ON false
            UNION ALL
            SELECT NULL, NULL, NULL, NULL, r.* FROM (\(LeaseStatements.leasedRows(messages: "message"))) r
            """)
    }

    /// `acceptTargeted` for pushes to aliases.
    static let aliases = acceptTargeted(.aliases)

    /// `acceptTargeted` for pushes to registration ids.
    static let registrationIDs = acceptTargeted(.registrationIDs)

    /// Every variant, for the test that prepares and explains each.
    static let all = [aliases, registrationIDs]
}
