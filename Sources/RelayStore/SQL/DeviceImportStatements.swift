import PostgresStore

/// The statements of a device import's partition (`DeviceImportPartition`), in the order it
/// runs them inside its transaction: the staging tables (DDL, COPY and ANALYZE are not
/// statements one can prepare, so they are text), then the two merges, which read the
/// staging tables and so prepare only in a session that has them (`staging`).
enum DeviceImportStatements {
    /// The staging table's columns, in the order each COPY row gives them. `position` is
    /// the byte offset of the line in the body: it orders lines like their line numbers do.
    static let columns = "position, platform, token, environment, has_alias, alias, has_tags, tags, badge"

    static let createStaging = """
        CREATE TEMPORARY TABLE device_import (
            position bigint, platform text, token text, environment text, has_alias boolean, alias text,
            has_tags boolean, tags text[], badge integer
        ) ON COMMIT DROP
        """

    static let copyIn = "COPY device_import (\(columns)) FROM STDIN"

    /// The last line per token.
    static let createLatest = """
        CREATE TEMPORARY TABLE device_import_latest ON COMMIT DROP AS
        SELECT DISTINCT ON (token) * FROM device_import ORDER BY token, position DESC
        """

    static let analyzeLatest = "ANALYZE device_import_latest"

    /// The staging tables, created as the import creates them: what `update` and `create`
    /// need to exist before they prepare.
    static let staging = [createStaging, createLatest]

    /// Updates app $1's devices the import names, replacing their tags where the line gives
    /// tags. Each device's tags come from the statement that wrote the device (RETURNING),
    /// not from a second join of the staged rows with all of the app's devices.
    static let update = SQLStatement("pushrelay_device_import_update", """
        WITH updated AS (
            UPDATE devices d SET
                platform = l.platform,
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
        """)

    /// Creates app $1's devices the import names that it does not have, with their tags.
    /// A device created here is invisible to every other transaction until this one
    /// commits, so its tags (distinct, by the parser) cannot conflict: a plain insert.
    /// ON CONFLICT stays for the device itself: a registration of the same token that
    /// commits while this runs keeps its device, and the line counts as neither.
    static let create = SQLStatement("pushrelay_device_import_create", """
        WITH created AS (
            INSERT INTO devices (app_id, platform, token, environment, alias, badge)
            SELECT $1, platform, token, environment, NULLIF(alias, ''), coalesce(badge, 0) FROM device_import_latest
            ON CONFLICT (app_id, token) DO NOTHING
            RETURNING id, token
        ), added AS (
            INSERT INTO device_tags (app_id, tag, device_id)
            SELECT $1, tag, c.id FROM created c JOIN device_import_latest l USING (token), unnest(l.tags) AS tag
            WHERE l.has_tags
        )
        SELECT count(*) AS n FROM created
        """)

    static let all = [update, create]
}
