import CSystem

/// The header block of one request, laid out in buffers a connection reuses, so sending a
/// message costs no allocation for its headers: the pseudo-headers, the message's fields
/// (`HTTP2Message.layOutFields`) and `content-length`. Fields that change with every request
/// (`:path`, `apns-id`) are marked never-indexed: in HPACK's dynamic table they would only
/// push out the fields that repeat (`authorization`, `apns-topic`, …).
package struct RequestHeaderBlock {
    private var storage: [UInt8] = []
    private var fields: [(name: Int, nameLength: Int, value: Int, valueLength: Int, flags: UInt8)] = []
    private var nameValues: [nghttp2_nv] = []

    package init() {
        storage.reserveCapacity(1024)
        fields.reserveCapacity(12)
        nameValues.reserveCapacity(12)
    }

    /// Lays out the request for `message`.
    ///
    /// - Parameters:
    ///   - authority: the `:authority` bytes.
    ///   - authorization: the whole `authorization` value (`bearer <jwt>`) the pool adds, if any.
    mutating func build(_ message: some HTTP2Message, authority: [UInt8], authorization: [UInt8]?) {
        storage.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        add(":method", message.method)
        add(":scheme", "https")
        add(":authority", bytes: authority)
        message.layOutFields(&self, authorization: authorization)
        add("content-length") { RequestHeaderBlock.appendDecimal(message.body.count, to: &$0) }
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

    /// Marks the field added last never-indexed (it changes with every request).
    package mutating func neverIndexLast() {
        fields[fields.count - 1].flags = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
    }

    package mutating func add(_ name: StaticString, _ value: StaticString) {
        add(name) { $0.append(contentsOf: UnsafeBufferPointer(start: value.utf8Start, count: value.utf8CodeUnitCount)) }
    }

    package mutating func add(_ name: StaticString, bytes: [UInt8]) {
        add(name) { $0.append(contentsOf: bytes) }
    }

    package mutating func add(_ name: StaticString, value: (inout [UInt8]) -> Void) {
        let nameStart = storage.count
        storage.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        let valueStart = storage.count
        value(&storage)
        fields.append((nameStart, valueStart - nameStart, valueStart, storage.count - valueStart,
                       UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
    }

    package static func append(_ text: String, to storage: inout [UInt8]) {
        var text = text
        text.withUTF8 { storage.append(contentsOf: $0) }
    }

    package static func appendDecimal(_ value: Int, to storage: inout [UInt8]) {
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
