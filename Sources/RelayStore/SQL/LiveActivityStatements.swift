import PostgresStore

/// The statements of Live Activities (migration 0048): the devices' tokens and activity
/// states, the pacing of an activity's updates, and an activity's report. Sending itself is
/// the pipeline's (`MessageStore`), in the transaction these run in.
enum LiveActivityStatements {
    // MARK: Tokens (each: $1 app, $2 registration id; no row when the app has no such iOS device)

    /// $3 attributes type, $4 push-to-start token: the device's token for the type, replacing
    /// the one it had (the phone rotates it).
    static let registerStartToken = SQLStatement("pushrelay_la_register_start_token", """
        INSERT INTO live_activity_start_tokens (app_id, device_id, attributes_type, token)
        SELECT d.app_id, d.id, $3::text, $4::text FROM devices d
        WHERE d.app_id = $1 AND d.registration_id = $2::uuid AND d.platform = 'ios'
        ON CONFLICT (app_id, device_id, attributes_type) DO UPDATE SET token = EXCLUDED.token, registered_at = now()
        RETURNING device_id
        """)

    /// $3 activity, $4 update token: the device's token for the activity, replacing the one
    /// it had (rotation); the activity's state there is kept (a first token makes it active).
    static let registerActivityToken = SQLStatement("pushrelay_la_register_activity_token", """
        INSERT INTO live_activity_tokens (app_id, activity_id, device_id, token)
        SELECT d.app_id, $3::text, d.id, $4::text FROM devices d
        WHERE d.app_id = $1 AND d.registration_id = $2::uuid AND d.platform = 'ios'
        ON CONFLICT (app_id, activity_id, device_id) DO UPDATE SET token = EXCLUDED.token, registered_at = now()
        RETURNING device_id
        """)

    /// $3 activity, $4 state (`LiveActivityState`): what the device says of the activity;
    /// ended and dismissed ones are not pushed. A state may come before the token.
    static let setState = SQLStatement("pushrelay_la_set_state", """
        INSERT INTO live_activity_tokens (app_id, activity_id, device_id, state)
        SELECT d.app_id, $3::text, d.id, $4::text FROM devices d
        WHERE d.app_id = $1 AND d.registration_id = $2::uuid AND d.platform = 'ios'
        ON CONFLICT (app_id, activity_id, device_id) DO UPDATE SET state = EXCLUDED.state, state_at = now()
        RETURNING device_id
        """)

    // MARK: Sending

    /// $1 app, $2 environment: how the app's APNs credential there authenticates
    /// (`token` or `certificate`); no row without one.
    static let credentialAuth = SQLStatement("pushrelay_la_credential_auth",
        "SELECT auth FROM apns_credentials WHERE app_id = $1 AND environment = $2")

    /// $1 app, $2 activity, $3 attributes type (a start's, else NULL): the activity's row,
    /// made if new and locked until the transaction ends, with its pacing state.
    static let lockActivity = SQLStatement("pushrelay_la_lock_activity", """
        INSERT INTO live_activities (app_id, activity_id, attributes_type) VALUES ($1, $2, $3::text)
        ON CONFLICT (app_id, activity_id) DO UPDATE SET attributes_type = coalesce(EXCLUDED.attributes_type, live_activities.attributes_type)
        RETURNING last_due_at, waiting_message_id
        """)

    /// $1 app, $2 activity, $3 message, $4 event, $5 when it may go out (Unix ms), $6 the
    /// pacing's latest due time, $7 the message waiting for it (NULL: none): the message is
    /// the activity's, and the pacing state is stored.
    static let recordMessage = SQLStatement("pushrelay_la_record_message", """
        WITH paced AS (
            UPDATE live_activities SET last_due_at = $6::bigint, waiting_message_id = $7::bigint
            WHERE app_id = $1 AND activity_id = $2
        )
        INSERT INTO live_activity_messages (app_id, activity_id, message_id, event, send_at)
        VALUES ($1, $2, $3, $4, to_timestamp($5::bigint / 1000.0))
        """)

    // MARK: Report

    /// $1 app, $2 activity: its devices' tokens by the activity's state there.
    static let tokenStates = SQLStatement("pushrelay_la_token_states", """
        SELECT state, count(*) AS devices FROM live_activity_tokens
        WHERE app_id = $1 AND activity_id = $2 AND token IS NOT NULL
        GROUP BY state
        """)

    /// $1 app, $2 activity: its latest 100 messages with their counters (a message the
    /// retention removed has none).
    static let messages = SQLStatement("pushrelay_la_messages", """
        SELECT lm.message_id, lm.event, to_char(lm.send_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS send_at,
               m.state, m.target_count, m.sent_count, m.failed_count + m.invalidated_count + m.expired_count AS failed_count
        FROM live_activity_messages lm LEFT JOIN messages m ON m.id = lm.message_id
        WHERE lm.app_id = $1 AND lm.activity_id = $2
        ORDER BY lm.message_id DESC LIMIT 100
        """)

    /// $1 an app key: the app's latest 20 activities with their messages' counts, for the dashboard.
    static let recentActivities = SQLStatement("pushrelay_la_recent", """
        SELECT la.activity_id, la.attributes_type, count(lm.message_id) AS messages,
               coalesce(sum(m.sent_count), 0)::bigint AS sent,
               coalesce(sum(m.failed_count + m.invalidated_count + m.expired_count), 0)::bigint AS failed,
               count(*) FILTER (WHERE m.state = 'withdrawn') AS coalesced
        FROM (SELECT * FROM live_activities WHERE app_id = (SELECT id FROM apps WHERE app_key = $1) ORDER BY created_at DESC LIMIT 20) la
        LEFT JOIN live_activity_messages lm ON lm.app_id = la.app_id AND lm.activity_id = la.activity_id
        LEFT JOIN messages m ON m.id = lm.message_id
        GROUP BY la.activity_id, la.attributes_type, la.created_at
        ORDER BY la.created_at DESC
        """)

    static let all = [registerStartToken, registerActivityToken, setState, credentialAuth, lockActivity, recordMessage,
                      tokenStates, messages, recentActivities]
}
