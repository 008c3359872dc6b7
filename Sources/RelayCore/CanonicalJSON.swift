/// Writes `JSONValue`s as compact JSON with keys sorted by their UTF-8 bytes, so the same
/// value always gives the same bytes (payload sizes are stable, tests can compare bytes).
///
/// Non-ASCII text is written as raw UTF-8, not `\u` escapes: APNs counts bytes, and a CJK
/// character costs 3 bytes raw but 6 escaped. Numbers are written as the client wrote them.
public struct CanonicalJSON {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var writer = CanonicalJSON()
        writer.write(value)
        return writer.bytes
    }

    /// Keys in the order every object is written in.
    public static func sorted<S: Sequence<String>>(_ keys: S) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: append("null")
        case .bool(let flag): append(flag ? "true" : "false")
        case .number(let number): append(number.text)
        case .string(let text): writeString(text)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(item)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let fields):
            bytes.append(UInt8(ascii: "{"))
            for (index, key) in Self.sorted(fields.keys).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                writeKey(key)
                write(fields[key]!)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Writes `"key":`.
    public mutating func writeKey(_ key: String) {
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func writeString(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                append("\\u00")
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func append(_ raw: String) {
        bytes.append(contentsOf: raw.utf8)
    }
}

extension JSONValue {
    /// The value as canonical JSON text, for storing and answering.
    public var jsonText: String {
        String(decoding: CanonicalJSON.bytes(self), as: UTF8.self)
    }
}
