import RelayCore

/// How an import is cut up to use more than one core: the body into byte ranges that are
/// parsed at once, the rows into partitions by token, each partition merged on a PostgreSQL
/// connection of its own.
///
/// Every line for one token lands in the same partition whichever range it was read in, so
/// "the last line for a token wins" is decided inside one partition, and no two partitions
/// ever write the same device (or its tags).
enum DeviceImportPartitioning {
    /// The partition of a normalised token (lowercase hex): FNV-1a of its bytes, so the same
    /// token always goes to the same partition, on every machine and in every process.
    static func partition(ofToken hex: String, count: Int) -> Int {
        precondition(count >= 1)
        return Int(FNV1a.hash(hex.utf8) % UInt64(count))
    }

    /// Cuts `body` into at most `count` consecutive ranges of about equal size, each ending
    /// just after a line break (the last at the end of the body), so no line is split. Empty
    /// ranges are left out; together the ranges cover the body exactly.
    static func ranges(of body: [UInt8], count: Int) -> [Range<Int>] {
        precondition(count >= 1)
        var ranges: [Range<Int>] = []
        var start = body.startIndex
        for index in 1...count where start < body.endIndex {
            var end = body.endIndex
            if index < count {
                let target = max(start, body.startIndex + body.count * index / count)
                end = body[target...].firstIndex(of: 0x0A).map { $0 + 1 } ?? body.endIndex
            }
            if end > start { ranges.append(start..<end) }
            start = end
        }
        return ranges
    }
}
