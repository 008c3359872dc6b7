/// Follows what libevent writes on its own into each connection's output buffer (bytes
/// written outside our replies) and says how to turn its HTML error pages into JSON.
///
/// libevent writes a page in one synchronous burst, the head in several writes and the body
/// in one more, and the socket only takes bytes later, from the loop. So a page is replaced
/// as soon as its head is complete, and the rest of that burst (the HTML body, announced
/// or not by a Content-Length) is dropped as it arrives. The burst is over once the socket
/// takes bytes, and a new connection may get the buffer address of a dead one: both forget
/// what was known about the connection, so no state outlives the page it belongs to.
///
/// Pure: `Connection` is the output buffer's address in the loop, anything hashable in tests.
struct RejectionRewriter<Connection: Hashable> {
    enum Action: Equatable {
        case none
        /// Replace the buffer's bytes from offset `from` to its end with `with`.
        case replace(from: Int, with: [UInt8], status: Int)
        /// Remove the `count` bytes just added at the end of the buffer.
        case dropAdded(count: Int)
    }

    private enum Phase {
        /// A response head is being written; it started at `start` in the buffer.
        case collecting(start: Int, bytes: [UInt8])
        /// The page was replaced; what libevent still writes of it goes.
        case discarding
        /// A response left alone; what libevent still writes of it stays.
        case passing
    }

    let page: ErrorPage
    /// Only connections libevent is writing a response of its own to, until the socket
    /// takes bytes or the address is reused.
    private var phases: [Connection: Phase] = [:]

    init(page: ErrorPage) {
        self.page = page
    }

    /// A connection was created; its buffer may sit where a closed one's did.
    mutating func opened(_ connection: Connection) {
        phases[connection] = nil
    }

    /// The socket took bytes from the buffer: libevent has finished writing.
    mutating func sent(_ connection: Connection) {
        phases[connection] = nil
    }

    /// libevent appended `bytes` to the buffer, which held `offset` bytes before.
    ///
    /// - Parameters:
    ///   - requestID: the `X-Request-Id` of a replacement made now.
    mutating func added(_ bytes: [UInt8], to connection: Connection, at offset: Int, requestID: String) -> Action {
        var start = offset
        var response = bytes
        switch phases[connection] {
        case .discarding:
            return .dropAdded(count: bytes.count)
        case .passing:
            return .none
        case .collecting(let earlierStart, let earlier):
            start = earlierStart
            response = earlier + bytes
        case nil:
            break
        }
        switch page.examine(response, requestID: requestID) {
        case .incomplete:
            phases[connection] = .collecting(start: start, bytes: response)
            return .none
        case .keep(let status):
            // An interim response ("100 Continue") has no body; the final one comes later.
            phases[connection] = (100..<200).contains(status) ? nil : .passing
            return .none
        case .replace(let status, let replacement):
            phases[connection] = .discarding
            return .replace(from: start, with: replacement, status: status)
        }
    }
}
