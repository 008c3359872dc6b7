import PostgresStore

/// Merges one partition of an import into the app's devices, in a transaction of its own on
/// its own connection: COPY into a temporary table, the last line per token, then a few
/// set-based statements (`DeviceImportStatements`).
///
/// Partitions hold disjoint sets of tokens, so two partitions of one import never write the
/// same device or tag row and never wait for each other's locks (the only row they share is
/// the app's, which both lock FOR KEY SHARE through the devices' foreign key; those locks do
/// not conflict). What a line does to an existing device is what `POST /v3/devices` does: same
/// registration id, environment refreshed, a dead token revived, alias and tags replaced when
/// given and kept when absent.
public struct DeviceImportPartition: Sendable {
    public let appID: Int64

    public init(appID: Int64) {
        self.appID = appID
    }

    /// Why a partition rolled back although nothing was wrong with it.
    public struct SiblingFailed: Error {}

    /// Runs on a pool thread (it blocks while copying and merging).
    ///
    /// - Parameters:
    ///   - chunks: the partition's staging rows in COPY text.
    ///   - stop: true once another partition of the import failed; checked before the work
    ///     and again just before COMMIT, so a failure elsewhere usually rolls this one back.
    /// - Returns: devices created and updated, once committed.
    /// - Throws: `SiblingFailed` when it rolled back because of `stop`, or what PostgreSQL said.
    public func merge(_ chunks: [[UInt8]], on connection: PostgresConnection,
                      stop: () -> Bool) throws -> (created: Int, updated: Int) {
        guard !stop() else { throw SiblingFailed() }
        return try connection.transaction { connection in
            try connection.query(DeviceImportStatements.createStaging)
            try connection.copyIn(DeviceImportStatements.copyIn) { send in
                for chunk in chunks { try send(chunk) }
            }
            try connection.query(DeviceImportStatements.createLatest)
            try connection.query(DeviceImportStatements.analyzeLatest)
            // Unprepared: the staging tables they read are new in every import's transaction.
            let updated = try connection.query(DeviceImportStatements.update.text, [appID]).first?.int("n") ?? 0
            let created = try connection.query(DeviceImportStatements.create.text, [appID]).first?.int("n") ?? 0
            guard !stop() else { throw SiblingFailed() }
            return (created, updated)
        }
    }
}
