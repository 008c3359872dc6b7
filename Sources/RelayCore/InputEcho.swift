/// Input quoted back in an error message, cut to about `maxBytes`: a 100 KB alias must not
/// make a 100 KB answer (or log line). Every error that quotes what it was given goes
/// through here.
public enum InputEcho {
    /// About this many bytes of the value are shown; the rest is counted, not shown.
    public static let maxBytes = 100

    /// `value` in double quotes; past `maxBytes`, cut at a character boundary and followed
    /// by `…` and the value's full size, e.g. `"aaaa…" (100000 bytes)`.
    public static func quoted(_ value: some StringProtocol) -> String {
        let size = value.utf8.count
        guard size > maxBytes else { return "\"\(value)\"" }
        var kept = 0
        var end = value.startIndex
        for index in value.indices {
            let next = kept + value[index].utf8.count
            if next > maxBytes { break }
            kept = next
            end = value.index(after: index)
        }
        return "\"\(value[..<end])…\" (\(size) bytes)"
    }
}
