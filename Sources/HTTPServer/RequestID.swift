import Foundation

/// Request ids: a client's `X-Request-Id` is kept when it is safe to echo and log, else one is made.
public enum RequestID {
    /// At most 128 characters from `A–Z a–z 0–9 - _ . :`, so it can go into headers and logs as is.
    public static func isValid(_ candidate: String) -> Bool {
        !candidate.isEmpty && candidate.utf8.count <= 128 && candidate.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
                 UInt8(ascii: "."), UInt8(ascii: ":"):
                true
            default:
                false
            }
        }
    }

    /// The incoming id when valid, otherwise a fresh one.
    public static func from(incoming: String?) -> String {
        if let incoming, isValid(incoming) { return incoming }
        return generate()
    }

    /// A fresh random id (a lower-case UUID).
    public static func generate() -> String {
        UUID().uuidString.lowercased()
    }
}
