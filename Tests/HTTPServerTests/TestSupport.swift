import Foundation
import HTTPServer
import RelayAPI
import RelayCore
import Synchronization
import Testing

/// A parsed HTTP response as the raw test client read it.
struct RawResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// `error.code` of a JPush-shaped JSON body.
    var errorCode: Int? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let error = object["error"] as? [String: Any] else { return nil }
        return error["code"] as? Int
    }
}

struct TestClientError: Error, CustomStringConvertible {
    var description: String
}

/// A tiny blocking HTTP/1.1 client on a POSIX socket, for what URLSession cannot do:
/// chunked uploads, malformed requests, hanging up early. Use it through `offPool`.
final class RawConnection: @unchecked Sendable {
    private let fd: Int32
    private var buffered: [UInt8] = []

    /// Connects to 127.0.0.1:port; the error carries errno (ECONNREFUSED when nobody listens).
    ///
    /// - Parameters:
    ///   - source: the local address to connect from (any 127.x.y.z works on Linux loopback).
    ///   - receiveBuffer: a socket receive buffer this small, so that unread answers stay
    ///     with the server rather than in the kernel.
    init(port: Int, source: String? = nil, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestClientError(description: "socket: errno \(errno)") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let error = errno
                Glibc.close(fd)
                throw TestClientError(description: "bind \(source): errno \(error)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw TestClientError(description: "connect: errno \(error)")
        }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw TestClientError(description: "send: errno \(errno)") }
            offset += written
        }
    }

    /// Sends `bytes` again and again, as fast as the socket takes them, until it takes
    /// nothing for `stall` or `limit` bytes are sent; returns the bytes sent.
    func sendUntilBlocked(_ bytes: [UInt8], limit: Int, stall: Duration) -> Int {
        let (seconds, attoseconds) = stall.components
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        var offset = 0
        while sent < limit {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { break }
            sent += written
            offset = (offset + written) % bytes.count
        }
        return sent
    }

    /// Closes at once, without reading anything.
    func hangUp() { shutdown(fd, Int32(SHUT_RDWR)) }

    /// Reads one response (Content-Length framed, or up to close).
    ///
    /// - Parameters:
    ///   - toHead: the request was HEAD, so no body follows whatever Content-Length says.
    func readResponse(toHead: Bool = false) throws -> RawResponse {
        while find([13, 10, 13, 10]) == nil {
            guard try fill() else { throw TestClientError(description: "connection closed before a response head") }
        }
        let headEnd = find([13, 10, 13, 10])!
        let head = String(decoding: buffered[..<headEnd], as: UTF8.self)
        buffered.removeFirst(headEnd + 4)
        let lines = head.split(separator: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw TestClientError(description: "bad status line: \(lines.first ?? "")")
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(name: String(line[..<colon]),
                        value: String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        if (100..<200).contains(status) || toHead {
            return RawResponse(status: status, headers: headers, body: [])
        }
        if let length = headers["Content-Length"].flatMap(Int.init) {
            while buffered.count < length {
                guard try fill() else { throw TestClientError(description: "connection closed inside the body") }
            }
            let body = Array(buffered.prefix(length))
            buffered.removeFirst(length)
            return RawResponse(status: status, headers: headers, body: body)
        }
        while try fill() {}
        defer { buffered = [] }
        return RawResponse(status: status, headers: headers, body: buffered)
    }

    /// Reads to the peer's close; true when exactly `leftover` unread bytes came before it.
    func isClosedByPeer(leftover: Int) throws -> Bool {
        while try fill() {}
        return buffered.count == leftover
    }

    /// True once the peer has closed (or reset) the connection; never blocks.
    func peerHasClosed() -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16384)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw TestClientError(description: "recv: errno \(errno)") }
        buffered.append(contentsOf: chunk.prefix(count))
        return count > 0
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffered.count >= needle.count else { return nil }
        return (0...(buffered.count - needle.count)).first { buffered[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}

/// Runs blocking socket work on a thread of its own, never on the Swift concurrency pool
/// (whose threads the server's handlers need).
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Connects, sends `raw`, reads one response.
func exchange(port: Int, _ raw: String) async throws -> RawResponse {
    try await offPool {
        let connection = try RawConnection(port: port)
        try connection.send(raw)
        return try connection.readResponse()
    }
}

func get(port: Int, _ path: String, headers: String = "") async throws -> RawResponse {
    try await exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n")
}

/// A one-shot latch: tasks wait until it opens.
final class Gate: Sendable {
    private struct State: ~Copyable {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isOpen: Bool { state.withLock { $0.isOpen } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }
}

/// Log lines captured from a `Logger`.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger { Logger(label: "http-test", sink: { line in self.lines.withLock { $0.append(line) } }) }

    var all: [String] { lines.withLock { $0 } }

    /// Decoded lines whose `msg` is `request`.
    var requestLines: [[String: String]] {
        all.compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String],
                  object["msg"] == "request" else { return nil }
            return object
        }
    }
}

/// Polls `condition` until it holds or the deadline passes.
func eventually(timeout: Duration = .seconds(5), _ condition: @Sendable () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

/// The answer of `GET /big`: more than the kernel's socket buffers take (a loopback send
/// buffer grows to 4 MiB), so that part of it stays with the server when the client does
/// not read.
let bigBody = [UInt8](repeating: UInt8(ascii: "b"), count: 8 << 20)

/// The routes the live tests use. `/slow` signals `entered`, then waits for `release`.
func testRouter(entered: Gate = Gate(), release: Gate = Gate()) -> Router {
    var router = Router(rejections: JPushRejection.responder)
    router.add("GET", "/fast") { _, _ in HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("fast".utf8)) }
    router.add("GET", "/slow") { _, _ in
        entered.open()
        await release.wait()
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array("slow".utf8))
    }
    router.add("POST", "/echo") { request, _ in
        HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
    }
    router.add("GET", "/big") { _, _ in
        HTTPResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: bigBody)
    }
    router.add("GET", "/id") { request, _ in .json(200, Array("{\"id\":\"\(request.requestID)\"}".utf8)) }
    return router
}

/// Starts a server on an ephemeral port.
func startServer(
    _ router: Router, logs: LogCapture = LogCapture(), threads: Int = 2,
    maxBodySize: Int = 1 << 20, maxRequestsInFlight: Int = 10_000,
    requestReadTimeout: Duration = .seconds(10), maxConnections: Int = HTTPServerConfiguration.defaultMaxConnections,
    maxConnectionsPerAddress: Int? = nil, maxBufferedOutput: Int? = nil, maxRequestsPerConnection: Int? = nil
) throws -> (server: HTTPServer, port: Int) {
    var configuration = HTTPServerConfiguration(
        host: "127.0.0.1", port: 0, threads: threads, maxBodySize: maxBodySize,
        maxRequestsInFlight: maxRequestsInFlight)
    configuration.requestReadTimeout = requestReadTimeout
    configuration.maxConnections = maxConnections
    configuration.maxConnectionsPerAddress = maxConnectionsPerAddress ?? maxConnections
    if let maxBufferedOutput { configuration.maxBufferedOutput = maxBufferedOutput }
    if let maxRequestsPerConnection { configuration.maxRequestsPerConnection = maxRequestsPerConnection }
    let server = HTTPServer(configuration: configuration, responder: router, logger: logs.logger)
    let port = try server.start()
    return (server, port)
}
