import RelayCore

/// The request target (`uri`) split into a percent-decoded path and query parameters.
///
/// Decoding failures are the client's fault and answer 400 (`HTTPRejection.malformedTarget`), never a crash.
public struct RequestTarget: Sendable, Equatable {
    public var path: String
    public var query: [String: String]

    /// Parses an origin-form target (`/a/b?x=1`) or an absolute-form one (`http://host/a/b?x=1`).
    ///
    /// Splits on the bytes `#`, `?`, `&` and `=`, never on Characters: a combining mark after
    /// `?` must not hide the query. One pass over the bytes, whatever they are.
    ///
    /// - Parameters:
    ///   - uri: the target exactly as received.
    /// - Throws: `HTTPRejection.malformedTarget` for a bad percent escape or bytes that are not UTF-8.
    public init(parsing uri: String) throws(HTTPRejection) {
        let bytes = Array(uri.utf8)
        var target = bytes[...]
        if let fragment = target.firstIndex(of: UInt8(ascii: "#")) { target = target[..<fragment] }
        if target.first != UInt8(ascii: "/"), let scheme = target.firstRange(of: Array("://".utf8)) {
            // Absolute form: drop scheme and authority.
            let afterAuthority = target[scheme.upperBound...]
            target = afterAuthority[(afterAuthority.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? afterAuthority.endIndex)...]
        }
        let mark = target.firstIndex(of: UInt8(ascii: "?"))
        guard let path = Self.percentDecode(target[..<(mark ?? target.endIndex)], plusIsSpace: false) else {
            throw .malformedTarget(part: "request path")
        }
        self.path = path.isEmpty ? "/" : path
        self.query = [:]
        guard let mark else { return }
        for pair in target[(mark + 1)...].split(separator: UInt8(ascii: "&")) {
            let equals = pair.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            guard let name = Self.percentDecode(pair[..<equals], plusIsSpace: true),
                  let value = Self.percentDecode(pair[equals...].dropFirst(), plusIsSpace: true) else {
                throw .malformedTarget(part: "query string")
            }
            query[name] = value  // the last occurrence wins
        }
    }

    /// Decodes `%XX` escapes (and `+` as space in queries); nil when an escape is malformed
    /// or the result is not UTF-8.
    static func percentDecode(_ text: ArraySlice<UInt8>, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count)
        var iterator = text.makeIterator()
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
