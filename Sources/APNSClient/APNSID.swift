import Foundation
import Synchronization

/// `apns-id` values without Foundation's costs on the hot path: `UUID()` reads
/// /dev/urandom and `UUID(uuidString:)` runs `sscanf`, each several microseconds.
enum APNSID {
    /// 64 random bits per process, and a counter: ids unique within the process and, with
    /// overwhelming likelihood, across processes, at the price of one atomic increment.
    private static let prefix = UInt64.random(in: .min ... .max)
    private static let salt = UInt64.random(in: .min ... .max)
    private static let counter = Atomic<UInt64>(0)

    /// A fresh id, shaped as a version-4 (random) UUID.
    static func make() -> UUID {
        let count = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        // Version 4 in the high nibble of byte 6, variant 10 in the top bits of byte 8.
        let high = (prefix & ~0xF000) | 0x4000
        let low = ((count ^ salt) & ~(0xC000_0000_0000_0000 as UInt64)) | 0x8000_0000_0000_0000
        let h = high.bigEndian
        let l = low.bigEndian
        return withUnsafeBytes(of: (h, l)) { raw in
            UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                        raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends the lowercase `8-4-4-4-12` form of `id`.
    static func append(_ id: UUID, to buffer: inout [UInt8]) {
        withUnsafeBytes(of: id.uuid) { bytes in
            for (index, byte) in bytes.enumerated() {
                if index == 4 || index == 6 || index == 8 || index == 10 { buffer.append(UInt8(ascii: "-")) }
                buffer.append(hexDigits[Int(byte >> 4)])
                buffer.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    /// Reads the `8-4-4-4-12` form, either case.
    static func parse<Bytes: Collection<UInt8>>(_ text: Bytes) -> UUID? {
        guard text.count == 36 else { return nil }
        var bytes = (UInt64(0), UInt64(0))
        var nibbles = 0
        for (index, character) in text.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if nibbles < 16 {
                bytes.0 = bytes.0 << 4 | UInt64(value)
            } else {
                bytes.1 = bytes.1 << 4 | UInt64(value)
            }
            nibbles += 1
        }
        let h = bytes.0.bigEndian
        let l = bytes.1.bigEndian
        return withUnsafeBytes(of: (h, l)) { raw in
            UUID(uuid: (raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
                        raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]))
        }
    }
}
