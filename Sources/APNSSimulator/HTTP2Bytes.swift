import APNSClient
import CSystem

/// Bytes allocated once and never freed, for header names and values nghttp2 sends often.
/// Immutable after creation, so any thread may read them.
struct StaticBytes: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
    let count: Int

    init(_ text: String) {
        let bytes = Array(text.utf8)
        pointer = .allocate(capacity: max(1, bytes.count))
        pointer.initialize(from: bytes, count: bytes.count)
        count = bytes.count
    }

    /// A header whose name is these bytes, copied by nghttp2 only for the value.
    func header(value: UnsafeBufferPointer<UInt8>) -> nghttp2_nv {
        nghttp2_nv(
            name: pointer, value: UnsafeMutablePointer(mutating: value.baseAddress), namelen: count,
            valuelen: value.count, flags: UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue)
        )
    }

    /// A header whose name and value are both static.
    func header(value: StaticBytes) -> nghttp2_nv {
        nghttp2_nv(
            name: pointer, value: value.pointer, namelen: count, valuelen: value.count,
            flags: UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue | NGHTTP2_NV_FLAG_NO_COPY_VALUE.rawValue)
        )
    }
}

/// The response header names and values the simulator sends.
enum ResponseHeaders {
    static let status = StaticBytes(":status")
    static let apnsID = StaticBytes("apns-id")
    static let contentType = StaticBytes("content-type")
    static let json = StaticBytes("application/json")
    static let retryAfter = StaticBytes("retry-after")
    static let channelID = StaticBytes("apns-channel-id")
    static let statusValues: [Int: StaticBytes] = Dictionary(
        uniqueKeysWithValues: Set(APNSReason.known.map(\.status) + [200, 201, 204]).map { ($0, StaticBytes(String($0))) }
    )
}

/// Lower-case UUID text from 128 random bits (version 4 layout), without Foundation's
/// allocation-heavy path: the simulator makes one per request that brings no `apns-id`.
func makeUUID<R: RandomNumberGenerator>(using random: inout R) -> String {
    var high = random.next()
    var low = random.next()
    high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
    low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
    let digits = Array("0123456789abcdef".utf8)
    return String(unsafeUninitializedCapacity: 36) { buffer in
        var position = 0
        for nibble in 0..<32 {
            if nibble == 8 || nibble == 12 || nibble == 16 || nibble == 20 {
                buffer[position] = UInt8(ascii: "-")
                position += 1
            }
            let word = nibble < 16 ? high : low
            let shift = UInt64(60 - 4 * (nibble % 16))
            buffer[position] = digits[Int((word >> shift) & 0xF)]
            position += 1
        }
        return position
    }
}
