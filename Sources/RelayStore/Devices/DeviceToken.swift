/// A device token in the one form the registry stores: an APNs token as lowercase hex, an
/// FCM registration token as given.
public struct DeviceToken: Sendable, Equatable, Hashable {
    /// The most an FCM registration token may have (they are ~150–200 today; Google sets no
    /// documented bound, so room to grow).
    public static let maxFCMBytes = 4096

    public let text: String

    /// Reads a token of `platform` (`iOS` by default), surrounding spaces and tabs dropped.
    ///
    /// - Throws: the reason the token is refused.
    public init(parsing raw: String, platform: DevicePlatform = .ios) throws(DeviceFieldError) {
        var text = Substring(raw).utf8[...]
        while let first = text.first, first == 0x20 || first == 0x09 { text = text.dropFirst() }
        while let last = text.last, last == 0x20 || last == 0x09 { text = text.dropLast() }
        switch platform {
        case .ios: self.text = try Self.apns(text)
        case .android: self.text = try Self.fcm(text)
        }
    }

    /// An FCM registration token: 1 to 4,096 letters, digits, `-`, `_` and `:`.
    private static func fcm(_ text: Substring.UTF8View.SubSequence) throws(DeviceFieldError) -> String {
        guard !text.isEmpty else { throw DeviceFieldError("token must be an FCM registration token, got an empty string") }
        guard text.count <= maxFCMBytes else {
            throw DeviceFieldError("token is \(text.count) bytes; an FCM registration token has at most \(maxFCMBytes)")
        }
        for byte in text {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"):
                continue
            default:
                throw DeviceFieldError("an FCM registration token has only letters, digits, '-', '_' and ':'; found \"\(Self.printable(byte))\"")
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Normalises what iOS apps send: the `<aabbccdd eeff…>` form `NSData.description` used to
    /// print, spaces between groups, and upper case; what is left must be an even number (64
    /// to 200) of hex digits.
    private static func apns(_ trimmed: Substring.UTF8View.SubSequence) throws(DeviceFieldError) -> String {
        var text = trimmed
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
        return String(decoding: digits, as: UTF8.self)
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
