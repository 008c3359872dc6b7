import RelayCore

/// Tags and aliases as JPush allows them: at most 40 bytes of UTF-8 made of ASCII letters,
/// digits, `_`, CJK ideographs and `@!#$&*+=.|￥` — the same rule the device registry
/// applies when tags and aliases are set, so anything stored can be pushed to.
public enum AudienceLabel {
    private static let punctuation: Set<Unicode.Scalar> = ["_", "@", "!", "#", "$", "&", "*", "+", "=", ".", "|", "￥"]

    /// - Parameters:
    ///   - value: the tag or alias.
    ///   - field: its place in the body, e.g. "audience.tag", for the message.
    /// - Throws: code 1003 naming the field and what is wrong.
    public static func validate(_ value: String, field: String) throws(JPushError) {
        guard !value.isEmpty else { throw JPushError.illegalValue("\(field) contains an empty string") }
        guard value.utf8.count <= PushLimits.labelBytes else {
            throw JPushError.illegalValue(
                "\(field) \(InputEcho.quoted(value)) is \(value.utf8.count) bytes; at most \(PushLimits.labelBytes) bytes of UTF-8 are allowed")
        }
        if let bad = value.unicodeScalars.first(where: { !isAllowed($0) }) {
            throw JPushError.illegalValue(
                "\(field) \(InputEcho.quoted(value)) contains \"\(bad.escaped(asASCII: true))\"; allowed are letters, digits, _, CJK characters and @!#$&*+=.|￥")
        }
    }

    public static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            let value = scalar.value
            return (0x30...0x39).contains(value) || (0x41...0x5a).contains(value) || (0x61...0x7a).contains(value)
                || punctuation.contains(scalar)
        }
        return scalar.properties.isIdeographic || punctuation.contains(scalar)
    }
}
