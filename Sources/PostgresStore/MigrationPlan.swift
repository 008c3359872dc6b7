/// Which migrations to apply, given the versions already recorded: pure, tested without a server.
struct MigrationPlan: Equatable {
    /// The migrations not yet applied, in version order.
    let pending: [Migration]

    /// - Throws: `PostgresError.protocolViolation` when two migrations share a version.
    init(migrations: [Migration], applied: Set<Int>) throws {
        let sorted = migrations.sorted { $0.version < $1.version }
        for (previous, next) in zip(sorted, sorted.dropFirst()) where previous.version == next.version {
            throw PostgresError.protocolViolation(
                "migrations \(previous.name) and \(next.name) share version \(next.version)")
        }
        pending = sorted.filter { !applied.contains($0.version) }
    }
}
