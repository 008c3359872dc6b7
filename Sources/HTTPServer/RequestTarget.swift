import RelayCore

/// The request target (`uri`) split into a percent-decoded path and query parameters.
///
/// Decoding failures are the client's fault and answer 400 (code 1003), never a crash.
public struct RequestTarget: Sendable, Equatable {
    public var path: String
    public var query: [String: String]

    /// Parses an origin-form target (`/a/b?x=1`) or an absolute-form one (`http://host/a/b?x=1`).
    ///
    /// - Parameters:
    ///   - uri: the target exactly as received.
    /// - Throws: `JPushError.illegalValue` for a bad percent escape or bytes that are not UTF-8.
    public init(parsing uri: String) throws(JPushError) {
        var target = Substring(uri)
        if let fragment = target.firstIndex(of: "#") { target = target[..<fragment] }
        if !target.hasPrefix("/"), let scheme = target.range(of: "://") {
            // Absolute form: drop scheme and authority.
            let afterAuthority = target[scheme.upperBound...]
            target = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }).map { afterAuthority[$0...] } ?? "/"
            if target.hasPrefix("?") { target = "/" + target }
        }
        let rawPath: Substring
        let rawQuery: Substring?
        if let mark = target.firstIndex(of: "?") {
            rawPath = target[..<mark]
            rawQuery = target[target.index(after: mark)...]
        } else {
            rawPath = target
            rawQuery = nil
        }
        guard let path = Self.percentDecode(rawPath, plusIsSpace: false) else {
            throw .illegalValue("malformed percent-encoding in request path")
        }
        self.path = path.isEmpty ? "/" : path
        self.query = [:]
        guard let rawQuery else { return }
        for pair in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.percentDecode(parts[0], plusIsSpace: true),
                  let value = Self.percentDecode(parts.count > 1 ? parts[1] : "", plusIsSpace: true) else {
                throw .illegalValue("malformed percent-encoding in query string")
            }
            query[name] = value  // the last occurrence wins
        }
    }

    /// Decodes `%XX` escapes (and `+` as space in queries); nil when an escape is malformed
    /// or the result is not UTF-8.
    static func percentDecode(_ text: Substring, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
