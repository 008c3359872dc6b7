import CSystem

/// Random bytes and identifiers from OpenSSL's CSPRNG.
public enum SecureRandom {
    /// `count` bytes from `RAND_bytes`.
    ///
    /// A CSPRNG that cannot deliver leaves nothing safe to do: identifiers and keys made
    /// from weaker bytes would be guessable, so this stops the process instead.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes: negative count")
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard ok == 1 else {
            ERR_clear_error()
            fatalError("RAND_bytes failed: the system CSPRNG is unavailable")
        }
        return out
    }

    /// `byteCount` random bytes as lowercase hex (`hex(12)` gives 24 characters).
    public static func hex(_ byteCount: Int) -> String {
        Hex.encode(bytes(byteCount))
    }
}

/// Lowercase hexadecimal, both ways.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` spells in hex (either case), or nil for odd lengths or other characters.
    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index < chars.count {
            guard let high = value(chars[index]), let low = value(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func value(_ char: UInt8) -> UInt8? {
        switch char {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return char - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return char - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return char - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
