/// How one partition of an import ended.
enum DeviceImportPartitionResult: Sendable {
    /// Its transaction committed: its lines are stored.
    case committed(rows: Int, created: Int, updated: Int)
    /// It rolled back, unharmed, because another partition failed.
    case rolledBack(rows: Int)
    /// It failed (no connection, an error from PostgreSQL, a commit not confirmed): its
    /// lines are not known to be stored.
    case failed(rows: Int, error: any Error)
}

/// An import that did not complete: the first error, and what other partitions stored anyway.
struct DeviceImportFailure: Error {
    /// What made the first partition fail.
    let cause: any Error
    let partitions: Int
    /// Partitions whose transaction committed, with their accepted lines and devices.
    let committed: Int
    let storedRows: Int
    /// Accepted lines of the partitions that did not commit.
    let unstoredRows: Int
    let created: Int
    let updated: Int

    /// What to add to the error's message when part of the import was stored; nil when
    /// nothing was (then the error is the cause's, as for any failed call).
    var partialStorage: String? {
        guard committed > 0 else { return nil }
        return "the import was stored only in part: \(partitions - committed) of its \(partitions) partitions (lines split by token) "
            + "(\(unstoredRows) lines) were not stored, the other \(committed) committed \(storedRows) lines (\(created) devices created, \(updated) updated). "
            + "Importing the same body again is safe and completes it: devices are keyed by app and token, "
            + "and each line sets the same values however often it is applied"
    }
}

enum DeviceImportOutcome {
    /// The import's answer: the parsed summary with the devices created and updated when
    /// every partition committed, otherwise the failure, counting only committed partitions.
    static func decide(parsed: DeviceImportSummary,
                       results: [DeviceImportPartitionResult]) -> Result<DeviceImportSummary, DeviceImportFailure> {
        var summary = parsed
        var cause: (any Error)?
        var committed = 0, storedRows = 0, unstoredRows = 0
        for result in results {
            switch result {
            case .committed(let rows, let created, let updated):
                committed += 1
                storedRows += rows
                summary.created += created
                summary.updated += updated
            case .rolledBack(let rows):
                unstoredRows += rows
            case .failed(let rows, let error):
                unstoredRows += rows
                if cause == nil { cause = error }
            }
        }
        guard let cause else { return .success(summary) }
        return .failure(DeviceImportFailure(cause: cause, partitions: results.count, committed: committed,
                                            storedRows: storedRows, unstoredRows: unstoredRows, created: summary.created - parsed.created,
                                            updated: summary.updated - parsed.updated))
    }
}
