import PostgresStore
import RelayCore

/// Records receipts (`ReceiptStatements`): one statement per batch.
public struct ReceiptRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Records `receipts` of `device`, counting each new one in its message's counters.
    ///
    /// - Parameter retentionDays: receipts for messages accepted longer ago are dropped
    ///   (`PUSHRELAY_RETENTION_DAYS`, as the worker drops their day's partitions).
    public func record(_ receipts: [Receipt], of device: DeviceSecretCredential, retentionDays: Int) async throws -> ReceiptTally {
        let rows = try await pool.preparedQuery(ReceiptStatements.record, [
            device.appID, device.deviceID, device.platform == .android,
            SQLArray.bigint(receipts.map(\.msgID.rawValue)), SQLArray.text(receipts.map(\.event.rawValue)),
            SQLArray.text(receipts.map { $0.at.map { String($0) } }), retentionDays,
        ])
        guard let row = rows.first else { throw PostgresError.protocolViolation("the receipts statement answered no row") }
        let known = try row.int("known"), recorded = try row.int("recorded")
        return ReceiptTally(recorded: recorded, duplicates: known - recorded, dropped: receipts.count - known)
    }
}
