import Foundation

/// An APNs device token: the bytes APNs handed the app, written as lowercase hex.
///
/// Built from the `Data` itself, never from its `description` (whose format iOS 13 changed
/// from `<aa bb …>` to `{length = 32, bytes = 0x…}`, breaking string-mangling code).
/// PushRelayKit's own on purpose (Foundation-only, no relay module), not RelayAPI's `DeviceToken`.
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    public let bytes: Data

    public init(_ bytes: Data) {
        self.bytes = bytes
    }

    /// Lowercase hex, two digits a byte: what the relay stores.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    public var description: String { hex }
}
