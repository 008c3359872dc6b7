/// FNV-1a, 64 bits: a hash of bytes that is the same in every process and on every machine
/// (unlike `hashValue`, seeded per process), for names and placements that must not move.
public enum FNV1a {
    public static func hash<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }
}
