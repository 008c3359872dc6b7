import Foundation

extension TimeZone {
    /// The instant a wall clock in this zone reads `local`, with the rules schedules need
    /// around daylight-saving changes:
    /// - a reading that occurs twice (fall back) resolves to its first occurrence, so a
    ///   schedule fires once;
    /// - a reading that never occurs (spring forward: 02:30 in Europe/Berlin on the last
    ///   Sunday of March) resolves to the first instant after the gap (03:00), so a
    ///   schedule fires as soon as the clock allows rather than being skipped.
    public func instant(of local: LocalDateTime) -> Date {
        let wall = local.wallSeconds
        // A real instant lies within 14 h of the wall reading; the offsets a day either
        // side are the offsets before and after any change near it.
        let offsets = Set([wall - 86_400, wall, wall + 86_400].map { offset(at: $0) })
        let valid = offsets.map { wall - $0 }.filter { offset(at: $0) == wall - $0 }
        if let first = valid.min() {
            return Date(timeIntervalSince1970: TimeInterval(first))
        }
        // In a gap: the change happens between the candidate read with the later offset
        // (still before the change) and the one read with the earlier offset (after it).
        var before = wall - offsets.max()!
        var after = wall - offsets.min()!
        let offsetBefore = offset(at: before)
        while after - before > 1 {
            let middle = before + (after - before) / 2
            if offset(at: middle) == offsetBefore { before = middle } else { after = middle }
        }
        return Date(timeIntervalSince1970: TimeInterval(after))
    }

    /// What a wall clock in this zone reads at `instant` (fractions of a second dropped).
    public func localDateTime(at instant: Date) -> LocalDateTime {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
        return LocalDateTime(wallSeconds: seconds + offset(at: seconds))
    }

    private func offset(at seconds: Int) -> Int {
        secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
