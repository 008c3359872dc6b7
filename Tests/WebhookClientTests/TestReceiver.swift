import CSystem
import Foundation
import Synchronization
import TestSupport

/// A webhook receiver on 127.0.0.1 (port 0) that reads each HTTP/1.1 request and replies as
/// the test says; over TLS when given a certificate. Blocking sockets, a thread per
/// connection (threads of their own, never the Swift concurrency pool).
final class TestReceiver: @unchecked Sendable {
    enum Reply: Sendable {
        /// These bytes, then close.
        case raw(String)
        /// Never answer; close when the client does.
        case silent
        /// A 200 announcing a gigabyte, written until the client stops reading.
        case endless
    }

    struct Request: Sendable {
        let head: String
        let body: [UInt8]
    }

    let port: Int
    private let listener: Int32
    private let context: OpaquePointer?
    private let reply: Reply
    /// `sockets`: the accepted ones still open, and the listener until its thread closes it.
    private let state = Mutex<(requests: [Request], sockets: [Int32], handshakeFailures: Int, bytesWritten: Int, connectionsDone: Int)>(([], [], 0, 0, 0))

    /// - Parameter tls: PEM certificate and key files to serve HTTPS with.
    init(reply: Reply, tls: (certificate: String, key: String)? = nil) throws {
        self.reply = reply
        if let tls {
            guard let context = SSL_CTX_new(TLS_server_method()),
                  SSL_CTX_use_certificate_file(context, tls.certificate, SSL_FILETYPE_PEM) == 1,
                  SSL_CTX_use_PrivateKey_file(context, tls.key, SSL_FILETYPE_PEM) == 1 else {
                throw TestFailure("cannot load the receiver's certificate")
            }
            self.context = context
        } else {
            context = nil
        }
        guard let (listener, port) = LoopbackListener.open() else { throw TestFailure("cannot listen") }
        self.listener = listener
        self.port = port
        state.withLock { $0.sockets.append(listener) }
        Thread { [self] in acceptLoop() }.start()
    }

    var requests: [Request] { state.withLock { $0.requests } }
    var handshakeFailures: Int { state.withLock { $0.handshakeFailures } }
    var bytesWritten: Int { state.withLock { $0.bytesWritten } }
    var connectionsDone: Int { state.withLock { $0.connectionsDone } }

    /// Wakes the threads; each closes its own socket. Only sockets still open are touched:
    /// a number closed here could already belong to another test's socket.
    func stop() {
        state.withLock { $0.sockets.forEach { Glibc.shutdown($0, Int32(SHUT_RDWR)) } }
    }

    deinit {
        if let context { SSL_CTX_free(context) }
    }

    private func acceptLoop() {
        defer { forget(listener) }
        while true {
            let socket = accept(listener, nil, nil)
            guard socket >= 0 else { return }
            state.withLock { $0.sockets.append(socket) }
            Thread { [self] in serve(socket) }.start()
        }
    }

    /// Closes `socket` once `stop` can no longer reach it.
    private func forget(_ socket: Int32) {
        state.withLock { state in
            state.sockets.removeAll { $0 == socket }
            close(socket)
        }
    }

    /// The connection's reads and writes, plain or through TLS.
    private struct Channel {
        let socket: Int32
        let ssl: OpaquePointer?

        func read(_ buffer: inout [UInt8]) -> Int {
            buffer.withUnsafeMutableBytes { raw in
                ssl.map { Int(SSL_read($0, raw.baseAddress, Int32(raw.count))) } ?? Glibc.recv(socket, raw.baseAddress, raw.count, 0)
            }
        }

        func write(_ bytes: [UInt8]) -> Bool {
            bytes.withUnsafeBytes { raw in
                ssl.map { SSL_write($0, raw.baseAddress, Int32(raw.count)) == Int32(raw.count) }
                    ?? (Glibc.send(socket, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL)) == raw.count)
            }
        }
    }

    private func serve(_ socket: Int32) {
        var ssl: OpaquePointer?
        defer {
            if let ssl { SSL_free(ssl) }
            forget(socket)
            state.withLock { $0.connectionsDone += 1 }
        }
        if let context {
            ssl = SSL_new(context)
            SSL_set_fd(ssl, socket)
            guard SSL_accept(ssl) == 1 else {
                state.withLock { $0.handshakeFailures += 1 }
                return
            }
        }
        let channel = Channel(socket: socket, ssl: ssl)
        guard let request = readRequest(channel) else { return }
        state.withLock { $0.requests.append(request) }
        switch reply {
        case let .raw(text):
            _ = channel.write(Array(text.utf8))
            if let ssl { SSL_shutdown(ssl) }
        case .silent:
            var buffer = [UInt8](repeating: 0, count: 1024)
            while channel.read(&buffer) > 0 {}
        case .endless:
            guard channel.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000000000\r\n\r\n".utf8)) else { return }
            let block = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
            while channel.write(block) {
                let written = state.withLock { $0.bytesWritten += block.count; return $0.bytesWritten }
                if written >= 1_000_000_000 { return }
            }
        }
    }

    /// The head up to the blank line, then Content-Length bytes of body.
    private func readRequest(_ channel: Channel) -> Request? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let separator = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        var bodyLength = 0
        while headEnd.map({ received.count < $0 + bodyLength }) ?? true {
            let count = channel.read(&buffer)
            guard count > 0 else { return nil }
            received += buffer.prefix(count)
            if headEnd == nil, let range = received.firstRange(of: separator) {
                headEnd = range.upperBound
                let head = String(decoding: received[..<range.upperBound], as: UTF8.self)
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    bodyLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        guard let headEnd else { return nil }
        return Request(head: String(decoding: received[..<headEnd], as: UTF8.self), body: Array(received[headEnd...]))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
