import PostgresStore

/// Streams an import body into PostgreSQL: each valid line goes through COPY into a
/// temporary table as it is parsed, then a few set-based statements merge them into the
/// app's devices, all in one transaction.
///
/// Within one import the last line for a token wins. What a line does to an existing device
/// is what `POST /v3/devices` does: same registration id, environment refreshed, a dead
/// token revived, alias and tags replaced when given and kept when absent.
struct DeviceImporter {
    static let copyChunkBytes = 256 * 1024

    let appID: Int64
    let format: DeviceImportFormat

    /// Runs on a pool thread (it blocks while parsing and copying).
    func run(_ body: [UInt8], on connection: PostgresConnection) throws -> DeviceImportSummary {
        try connection.transaction { connection in
            try connection.query("""
                CREATE TEMPORARY TABLE device_import (
                    line integer, token text, environment text, has_alias boolean, alias text,
                    has_tags boolean, tags text[], badge integer
                ) ON COMMIT DROP
                """)
            var summary = DeviceImportSummary()
            try connection.copyIn("COPY device_import FROM STDIN") { send in
                summary = try copy(body, send: send)
            }
            guard summary.accepted > 0 else { return summary }
            try connection.query("""
                CREATE TEMPORARY TABLE device_import_latest ON COMMIT DROP AS
                SELECT DISTINCT ON (token) * FROM device_import ORDER BY token, line DESC
                """)
            try connection.query("ANALYZE device_import_latest")
            // Each device's tags come from the statement that wrote the device (RETURNING),
            // not from a second join of the staged rows with all of the app's devices.
            summary.updated = try connection.query("""
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
            summary.created = try connection.query("""
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
            return summary
        }
    }

    /// Parses `body` line by line, sending valid lines as COPY rows in chunks.
    func copy(_ body: [UInt8], send: ([UInt8]) throws -> Void) throws -> DeviceImportSummary {
        var summary = DeviceImportSummary()
        var row = CopyTextRow()
        var lineNumber = 0
        var start = body.startIndex
        while start < body.endIndex {
            let end = body[start...].firstIndex(of: 0x0A) ?? body.endIndex
            var line = body[start..<end]
            start = end + 1
            lineNumber += 1
            if line.last == 0x0D { line = line.dropLast() }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            if lineNumber == 1, format == .csv,
               String(decoding: line, as: UTF8.self).lowercased().replacingOccurrences(of: " ", with: "") == DeviceImportFormat.csvHeader {
                continue
            }
            switch format.parse(line) {
            case .success(let registration):
                summary.accepted += 1
                row.field(String(lineNumber))
                row.field(registration.token.hex)
                row.field(registration.environment.rawValue)
                row.field(registration.alias != nil ? "t" : "f")
                row.field(registration.alias)
                row.field(registration.tags != nil ? "t" : "f")
                row.field(registration.tags.map(PostgresArrayLiteral.text))
                row.field(registration.badge.map(String.init))
                row.endRow()
                if row.bytes.count >= Self.copyChunkBytes {
                    try send(row.bytes)
                    row.removeAll()
                }
            case .failure(let error):
                summary.reject(line: lineNumber, reason: error.message)
            }
        }
        try send(row.bytes)
        return summary
    }
}
