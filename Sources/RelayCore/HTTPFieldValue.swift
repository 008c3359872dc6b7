/// What an HTTP/2 header value may hold (RFC 9113 §8.2.1 with RFC 9110's field-value):
/// no control character (NUL, CR, LF, tab, DEL …) and no space at either end. A value that
/// breaks this is refused by nghttp2 or APNs for its own content, so the API refuses it
/// first (`options.apns_collapse_id`) and the APNs client checks it again before sending.
public enum HTTPFieldValue {
    /// Why `value` cannot be sent as a header value, or nil when it can.
    public static func problem(_ value: String) -> String? {
        let bytes = value.utf8
        if let control = bytes.first(where: { $0 < 0x20 || $0 == 0x7F }) {
            return "contains a control character (\(hex(control))); header values may not"
        }
        if bytes.first == 0x20 || bytes.last == 0x20 { return "starts or ends with a space; header values may not" }
        return nil
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count < 2 ? "0" + digits : digits)
    }
}
