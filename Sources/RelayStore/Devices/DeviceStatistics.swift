import PostgresStore

/// Keeps the planner's statistics of the device tables in step with bulk imports.
///
/// Right after an import, before autovacuum's next analyze (a minute or more away), the
/// planner still takes the app's devices for a handful: it then checks a tag push's devices
/// against every tagged device instead of probing each one, quadratic work (a `tag` push to
/// 10,000 just-imported devices took 6 s to start, against 0.1 s for `all`). So an import
/// that changed at least a tenth of a table, or one never analyzed, analyzes it at once:
/// a few imports when a table is filled in many, none once it is large.
public enum DeviceStatistics {
    static let tables = ["devices", "device_tags"]

    /// Analyzes the device tables that `changed` rows (created or updated) are a tenth of.
    public static func refresh(afterChanging changed: Int, pool: PostgresPool) async throws {
        guard changed > 0 else { return }
        let stale = try await pool.preparedQuery(DeviceFigureStatements.stale, [changed, SQLArray.text(tables)]).map { try $0.string("relname") }
        for table in tables where stale.contains(table) {
            try await pool.query("ANALYZE \(table)", priority: .bulk)
        }
    }
}
