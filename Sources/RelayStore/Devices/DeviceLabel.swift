import PushCore
import RelayCore

/// Tags and aliases as JPush allows them: at most 40 bytes of UTF-8 made of letters, digits,
/// `_`, CJK ideographs and `@!#$&*+=.|￥`.
public enum DeviceLabel {
    public static let maxBytes = 40

    /// - Parameters:
    ///   - kind: "tag" or "alias", for the message.
    /// - Throws: what is wrong with `value`.
    public static func validate(_ value: String, kind: String) throws(DeviceFieldError) {
        guard !value.isEmpty else { throw DeviceFieldError("\(kind) must not be empty") }
        guard value.utf8.count <= maxBytes else {
            throw DeviceFieldError("\(kind) \(InputEcho.quoted(value)) is \(value.utf8.count) bytes; at most \(maxBytes) bytes of UTF-8 are allowed")
        }
        // The same characters as an audience's labels.
        for scalar in value.unicodeScalars where !AudienceLabel.isAllowed(scalar) {
            throw DeviceFieldError("\(kind) \(InputEcho.quoted(value)) contains \"\(scalar.escaped(asASCII: true))\"; allowed are letters, digits, _, CJK characters and @!#$&*+=.|￥")
        }
    }
}

/// Registration ids: the device row's random UUID, written as 32 lowercase hex digits.
public enum RegistrationID {
    /// The UUID text PostgreSQL accepts, or nil when `raw` cannot be one of ours (such an id
    /// is simply unknown: the same answer as a well-formed id of another app).
    public static func uuid(_ raw: String) -> String? {
        guard raw.utf8.count == 32, raw.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else {
            return nil
        }
        return raw
    }

    /// SQL that renders a uuid column as a registration id.
    public static func sql(_ column: String) -> String { "replace(\(column)::text, '-', '')" }
}
