import PostgresStore
import RelayStore

/// What parsing one range of an import body gave: COPY rows per partition and the range's
/// share of the summary, its line numbers counted from the range's first line.
struct DeviceImportParse: Sendable {
    /// For each partition, its rows in `COPY … FROM STDIN` text, in chunks of about
    /// `DeviceImportParser.chunkBytes`.
    var chunks: [[[UInt8]]]
    /// Accepted rows per partition.
    var rowsPerPartition: [Int]
    /// Accepted and rejected lines; rejected line numbers count from 1 at the range's start.
    var summary = DeviceImportSummary()
    /// Lines in the range (the first line of the next range is `lines + 1` after this one's).
    var lines = 0
}

/// Parses lines of an import body into COPY rows for the staging table, and deals each row
/// to its token's partition. Pure: no I/O, so ranges of one body can be parsed at once on
/// several threads.
struct DeviceImportParser: Sendable {
    static let chunkBytes = 256 * 1024

    let format: DeviceImportFormat
    let partitions: Int

    /// Parses the lines of `body[range]`; `range` starts at a line's first byte (or the body's).
    func parse(_ body: [UInt8], range: Range<Int>) -> DeviceImportParse {
        var result = DeviceImportParse(chunks: Array(repeating: [], count: partitions),
                                       rowsPerPartition: Array(repeating: 0, count: partitions))
        var rows = Array(repeating: CopyTextRow(), count: partitions)
        var start = range.lowerBound
        while start < range.upperBound {
            let lineStart = start
            let end = body[start..<range.upperBound].firstIndex(of: 0x0A) ?? range.upperBound
            var line = body[start..<end]
            start = end + 1
            result.lines += 1
            if line.last == 0x0D { line = line.dropLast() }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            if lineStart == body.startIndex, format == .csv,
               DeviceImportFormat.csvHeaders.contains(String(decoding: line, as: UTF8.self).lowercased().replacingOccurrences(of: " ", with: "")) {
                continue
            }
            switch format.parse(line) {
            case .success(let registration):
                result.summary.accepted += 1
                let partition = DeviceImportPartitioning.partition(ofToken: registration.token.text, count: partitions)
                result.rowsPerPartition[partition] += 1
                rows[partition].append(registration, position: lineStart)
                if rows[partition].bytes.count >= Self.chunkBytes {
                    result.chunks[partition].append(rows[partition].bytes)
                    rows[partition].removeAll()
                }
            case .failure(let error):
                result.summary.reject(line: result.lines, reason: error.message)
            }
        }
        for (partition, row) in rows.enumerated() where !row.bytes.isEmpty {
            result.chunks[partition].append(row.bytes)
        }
        return result
    }
}

private extension CopyTextRow {
    /// One staging row, in the order of `DeviceImportStatements.columns`. `position` is the byte
    /// offset of the line in the body: it orders lines like their line numbers do, and needs
    /// no count of the lines before the range.
    mutating func append(_ registration: DeviceRegistration, position: Int) {
        field(String(position))
        field(registration.platform.rawValue)
        field(registration.token.text)
        field(registration.environment?.rawValue)
        field(registration.alias != nil ? "t" : "f")
        field(registration.alias)
        field(registration.tags != nil ? "t" : "f")
        field(registration.tags.map { SQLArray.text($0) })
        field(registration.badge.map(String.init))
        endRow()
    }
}
