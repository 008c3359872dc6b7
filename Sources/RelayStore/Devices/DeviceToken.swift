/// An APNs device token in the one form the registry stores: lowercase hex.
public struct DeviceToken: Sendable, Equatable, Hashable {
    public let hex: String

    /// Normalises what apps send: the `<aabbccdd eeff…>` form `NSData.description` used to
    /// print, spaces between groups, and upper case.
    ///
    /// - Throws: the reason, when what is left is not an even number (64 to 200) of hex digits.
    public init(parsing raw: String) throws(DeviceFieldError) {
        var text = Substring(raw).utf8[...]
        while let first = text.first, first == 0x20 || first == 0x09 { text = text.dropFirst() }
        while let last = text.last, last == 0x20 || last == 0x09 { text = text.dropLast() }
        if text.first == UInt8(ascii: "<"), text.last == UInt8(ascii: ">") {
            text = text.dropFirst().dropLast()
        }
        var digits: [UInt8] = []
        digits.reserveCapacity(text.count)
        for byte in text {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"):
                digits.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "F"):
                digits.append(byte + 32)
            case UInt8(ascii: " "):
                continue
            default:
                throw DeviceFieldError("token must be hex digits (optionally in <…> with spaces); found \"\(Self.printable(byte))\"")
            }
        }
        guard (64...200).contains(digits.count) else {
            throw DeviceFieldError("token must be 64 to 200 hex digits, got \(digits.count)")
        }
        guard digits.count % 2 == 0 else {
            throw DeviceFieldError("token must have an even number of hex digits (whole bytes), got \(digits.count)")
        }
        hex = String(decoding: digits, as: UTF8.self)
    }

    private static func printable(_ byte: UInt8) -> String {
        (0x21...0x7e).contains(byte) ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }
}

/// Why one field of a device request (or import line) is refused; becomes a 400 (code 7002).
public struct DeviceFieldError: Error, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
}
