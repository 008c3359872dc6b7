import PostgresStore

/// Merges one partition of an import into the app's devices, in a transaction of its own on
/// its own connection: COPY into a temporary table, the last line per token, then a few
/// set-based statements.
///
/// Partitions hold disjoint sets of tokens, so two partitions of one import never write the
/// same device or tag row and never wait for each other's locks (the only row they share is
/// the app's, which both lock FOR KEY SHARE through the devices' foreign key; those locks do
/// not conflict). What a line does to an existing device is what `POST /v3/devices` does: same
/// registration id, environment refreshed, a dead token revived, alias and tags replaced when
/// given and kept when absent.
struct DeviceImportPartition {
    let appID: Int64

    /// Why a partition rolled back although nothing was wrong with it.
    struct SiblingFailed: Error {}

    /// Runs on a pool thread (it blocks while copying and merging).
    ///
    /// - Parameters:
    ///   - chunks: the partition's staging rows in COPY text.
    ///   - stop: true once another partition of the import failed; checked before the work
    ///     and again just before COMMIT, so a failure elsewhere usually rolls this one back.
    /// - Returns: devices created and updated, once committed.
    /// - Throws: `SiblingFailed` when it rolled back because of `stop`, or what PostgreSQL said.
    func merge(_ chunks: [[UInt8]], on connection: PostgresConnection,
               stop: () -> Bool) throws -> (created: Int, updated: Int) {
        guard !stop() else { throw SiblingFailed() }
        return try connection.transaction { connection in
            try connection.query("""
                CREATE TEMPORARY TABLE device_import (
                    position bigint, token text, environment text, has_alias boolean, alias text,
                    has_tags boolean, tags text[], badge integer
                ) ON COMMIT DROP
                """)
            try connection.copyIn("COPY device_import (\(DeviceImportParser.columns)) FROM STDIN") { send in
                for chunk in chunks { try send(chunk) }
            }
            try connection.query("""
                CREATE TEMPORARY TABLE device_import_latest ON COMMIT DROP AS
                SELECT DISTINCT ON (token) * FROM device_import ORDER BY token, position DESC
                """)
            try connection.query("ANALYZE device_import_latest")
            // Each device's tags come from the statement that wrote the device (RETURNING),
            // not from a second join of the staged rows with all of the app's devices.
            let updated = try connection.query("""
                WITH updated AS (
                    UPDATE devices d SET
                        environment = l.environment,
                        alias = CASE WHEN l.has_alias THEN NULLIF(l.alias, '') ELSE d.alias END,
                        badge = coalesce(l.badge, d.badge),
                        registered_at = now(), last_seen_at = now(),
                        reactivated_at = CASE WHEN d.active THEN d.reactivated_at ELSE now() END,
                        active = true
                    FROM device_import_latest l
                    WHERE d.app_id = $1 AND d.token = l.token
                    RETURNING d.id, l.has_tags, l.tags
                ), dropped AS (
                    DELETE FROM device_tags t USING updated u
                    WHERE u.has_tags AND t.app_id = $1 AND t.device_id = u.id AND NOT (t.tag = ANY (u.tags))
                ), added AS (
                    INSERT INTO device_tags (app_id, tag, device_id)
                    SELECT $1, tag, u.id FROM updated u, unnest(u.tags) AS tag WHERE u.has_tags
                    ON CONFLICT DO NOTHING
                )
                SELECT count(*) AS n FROM updated
                """, [appID]).first?.int("n") ?? 0
            // A device created here is invisible to every other transaction until this one
            // commits, so its tags (distinct, by the parser) cannot conflict: a plain insert.
            // ON CONFLICT stays for the device itself: a registration of the same token that
            // commits while this runs keeps its device, and the line counts as neither.
            let created = try connection.query("""
                WITH created AS (
                    INSERT INTO devices (app_id, token, environment, alias, badge)
                    SELECT $1, token, environment, NULLIF(alias, ''), coalesce(badge, 0) FROM device_import_latest
                    ON CONFLICT (app_id, token) DO NOTHING
                    RETURNING id, token
                ), added AS (
                    INSERT INTO device_tags (app_id, tag, device_id)
                    SELECT $1, tag, c.id FROM created c JOIN device_import_latest l USING (token), unnest(l.tags) AS tag
                    WHERE l.has_tags
                )
                SELECT count(*) AS n FROM created
                """, [appID]).first?.int("n") ?? 0
            guard !stop() else { throw SiblingFailed() }
            return (created, updated)
        }
    }
}
