import PostgresStore
import RelayStore
import Synchronization

/// Imports a body of device registrations (`POST /v3/devices/import`) using several cores:
/// the body is cut into ranges parsed at once, each valid line goes to the partition of its
/// token, and each partition is merged into the app's devices on a connection and in a
/// transaction of its own (`DeviceImportPartition`), all partitions at once.
///
/// Within one import the last line for a token wins: all lines for a token are in one
/// partition, ordered by their place in the body. Partitions commit independently; one that
/// fails makes the others roll back unless they already committed, and the answer then says
/// what was stored (`DeviceImportFailure`). Importing the same body again is always safe.
struct DeviceImporter: Sendable {
    let appID: Int64
    let format: DeviceImportFormat
    /// Parsing ranges and partitions (the pool's `bulkLimit`).
    let partitions: Int

    /// - Parameters:
    ///   - parsers: threads for parsing (CPU-bound; never the Swift concurrency pool).
    /// - Throws: `DeviceImportFailure` when a partition failed.
    func run(_ body: [UInt8], pool: PostgresPool, parsers: SlowWork) async throws -> DeviceImportSummary {
        let parses = await parse(body, parsers: parsers)
        var parsed = DeviceImportSummary()
        var lines = 0
        for parse in parses {
            parsed.append(parse.summary, lineOffset: lines)
            lines += parse.lines
        }
        guard parsed.accepted > 0 else { return parsed }

        let merge = DeviceImportPartition(appID: appID)
        let stop = StopFlag()
        let results = await withTaskGroup(of: (Int, DeviceImportPartitionResult).self) { group in
            for partition in 0..<partitions {
                let rows = parses.reduce(0) { $0 + $1.rowsPerPartition[partition] }
                guard rows > 0 else { continue }
                let chunks = parses.flatMap { $0.chunks[partition] }
                group.addTask {
                    do {
                        let (created, updated) = try await pool.withConnection(priority: .bulk) { connection in
                            try merge.merge(chunks, on: connection, stop: { stop.isSet })
                        }
                        return (partition, .committed(rows: rows, created: created, updated: updated))
                    } catch is DeviceImportPartition.SiblingFailed {
                        return (partition, .rolledBack(rows: rows))
                    } catch {
                        stop.set()
                        return (partition, .failed(rows: rows, error: error))
                    }
                }
            }
            var results: [(Int, DeviceImportPartitionResult)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let summary = try DeviceImportOutcome.decide(parsed: parsed, results: results).get()
        // The devices are stored whatever becomes of this; autovacuum analyzes them later.
        try? await DeviceStatistics.refresh(afterChanging: summary.created + summary.updated, pool: pool)
        return summary
    }

    /// The body's ranges, parsed at once on `parsers`, in body order.
    private func parse(_ body: [UInt8], parsers: SlowWork) async -> [DeviceImportParse] {
        let parser = DeviceImportParser(format: format, partitions: partitions)
        let ranges = DeviceImportPartitioning.ranges(of: body, count: partitions)
        return await withTaskGroup(of: (Int, DeviceImportParse).self) { group in
            for (index, range) in ranges.enumerated() {
                group.addTask { (index, await parsers.run { parser.parse(body, range: range) }) }
            }
            var parses: [(Int, DeviceImportParse)] = []
            for await parse in group { parses.append(parse) }
            return parses.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}

/// Set once a partition of an import failed; read by the others before they commit.
private final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
