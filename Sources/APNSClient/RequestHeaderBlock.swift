import CSystem

/// The header block of one request, laid out in buffers a connection reuses, so sending a
/// notification costs no allocation for its headers.
///
/// The same fields, in the same order, as the pseudo-headers, `authorization` and
/// `APNSNotification.headers`. The fields that change with every request (`:path`,
/// `apns-id`) are marked never-indexed: in HPACK's dynamic table they would only push out
/// the fields that repeat (`authorization`, `apns-topic`, …).
struct RequestHeaderBlock {
    private var storage: [UInt8] = []
    private var fields: [(name: Int, nameLength: Int, value: Int, valueLength: Int, flags: UInt8)] = []
    private var nameValues: [nghttp2_nv] = []

    init() {
        storage.reserveCapacity(1024)
        fields.reserveCapacity(12)
        nameValues.reserveCapacity(12)
    }

    /// Lays out the request for `notification`.
    ///
    /// - Parameters:
    ///   - authority: the `:authority` bytes.
    ///   - authorization: the whole `authorization` value (`bearer <jwt>`), if any.
    mutating func build(_ notification: APNSNotification, authority: [UInt8], authorization: [UInt8]?) {
        storage.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        add(":method", "POST")
        add(":scheme", "https")
        add(":authority", bytes: authority)
        add(":path") { storage in
            storage.append(contentsOf: "/3/device/".utf8)
            RequestHeaderBlock.append(notification.deviceToken, to: &storage)
        }
        fields[fields.count - 1].flags = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        if let authorization { add("authorization", bytes: authorization) }
        add("apns-topic") { RequestHeaderBlock.append(notification.topic, to: &$0) }
        add("apns-push-type") { RequestHeaderBlock.append(notification.pushType.rawValue, to: &$0) }
        add("apns-priority") { RequestHeaderBlock.appendDecimal(notification.priority.rawValue, to: &$0) }
        add("apns-id") { APNSID.append(notification.apnsID, to: &$0) }
        fields[fields.count - 1].flags = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        if let expiration = notification.expiration {
            add("apns-expiration") { RequestHeaderBlock.appendDecimal(expiration, to: &$0) }
        }
        if let collapseID = notification.collapseID {
            add("apns-collapse-id") { RequestHeaderBlock.append(collapseID, to: &$0) }
        }
        add("content-length") { RequestHeaderBlock.appendDecimal(notification.payload.count, to: &$0) }
    }

    /// Calls `body` with nghttp2 name/value pairs pointing into the buffer (nghttp2 copies
    /// them during `nghttp2_submit_request`).
    mutating func withNameValues<R>(_ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var nameValues = self.nameValues
        self.nameValues = []
        defer { self.nameValues = nameValues }
        nameValues.removeAll(keepingCapacity: true)
        let fields = self.fields
        return storage.withUnsafeMutableBufferPointer { bytes in
            let start = bytes.baseAddress!
            for field in fields {
                nameValues.append(nghttp2_nv(
                    name: start + field.name, value: start + field.value, namelen: field.nameLength,
                    valuelen: field.valueLength, flags: field.flags))
            }
            return nameValues.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }

    /// The fields as text, in order (for tests).
    var pairs: [(name: String, value: String)] {
        fields.map { field in
            (String(decoding: storage[field.name..<(field.name + field.nameLength)], as: UTF8.self),
             String(decoding: storage[field.value..<(field.value + field.valueLength)], as: UTF8.self))
        }
    }

    // MARK: layout

    private mutating func add(_ name: StaticString, _ value: StaticString) {
        add(name) { $0.append(contentsOf: UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount)) }
    }

    private mutating func add(_ name: StaticString, bytes: [UInt8]) {
        add(name) { $0.append(contentsOf: bytes) }
    }

    private mutating func add(_ name: StaticString, value: (inout [UInt8]) -> Void) {
        let nameStart = storage.count
        storage.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        let valueStart = storage.count
        value(&storage)
        fields.append((nameStart, valueStart - nameStart, valueStart, storage.count - valueStart,
                       UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
    }

    private static func append(_ text: String, to storage: inout [UInt8]) {
        var text = text
        text.withUTF8 { storage.append(contentsOf: $0) }
    }

    private static func appendDecimal(_ value: Int, to storage: inout [UInt8]) {
        if value < 0 {
            storage.append(UInt8(ascii: "-"))
            appendDecimal(UInt(value.magnitude), to: &storage)
        } else {
            appendDecimal(UInt(value), to: &storage)
        }
    }

    private static func appendDecimal(_ value: UInt, to storage: inout [UInt8]) {
        if value >= 10 { appendDecimal(value / 10, to: &storage) }
        storage.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
