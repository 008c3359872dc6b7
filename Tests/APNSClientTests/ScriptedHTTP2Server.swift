import CSystem
import Foundation
import Synchronization
import TestSupport

/// A small HTTP/2 + TLS server on 127.0.0.1 that answers each request as the test says:
/// respond, refuse the stream, send GOAWAY, drop the connection, or never answer.
///
/// Blocking sockets, one thread per connection (threads of their own, never the Swift
/// concurrency pool); each connection's `SSL` and `nghttp2_session` stay on its thread.
final class ScriptedHTTP2Server: @unchecked Sendable {
    struct Request: Sendable {
        let connection: Int
        let streamID: Int32
        let path: String
        let headers: [String: String]
        let body: [UInt8]
        /// The common name of the client certificate, when one was presented.
        let clientCertificate: String?
    }

    enum Reply: Sendable {
        case respond(status: Int, headers: [String: String] = [:], body: String = "")
        /// RST_STREAM with REFUSED_STREAM.
        case refuse
        /// RST_STREAM with PROTOCOL_ERROR, as nghttp2 answers a request whose headers it refuses.
        case resetAsMalformed
        /// GOAWAY whose last stream id is just before this request's, so it is not processed.
        case goAway
        /// Close the TCP connection at once, answering nothing.
        case dropConnection
        /// Leave the stream open forever.
        case ignore
    }

    typealias Handler = @Sendable (Request) -> Reply

    let port: Int
    private let context: OpaquePointer
    private let listener: Int32
    private let handler: Handler
    /// `sockets`: the listener until its thread closes it, and the accepted ones still open.
    private let state = Mutex<(requests: [Request], pings: Int, sockets: [Int32], connections: Int, open: Int)>(([], 0, [], 0, 0))

    /// - Parameters:
    ///   - certificate / key: PEM files of the server.
    ///   - maxConcurrentStreams: the SETTINGS value sent to clients.
    ///   - requireClientCertificate: ask for a client certificate and refuse the handshake without one.
    init(certificate: String, key: String, maxConcurrentStreams: UInt32 = 100, requireClientCertificate: Bool = false,
         handler: @escaping Handler) throws {
        guard let context = SSL_CTX_new(TLS_server_method()),
              SSL_CTX_use_certificate_file(context, certificate, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_use_PrivateKey_file(context, key, SSL_FILETYPE_PEM) == 1 else {
            throw TestFailure("cannot load the server certificate")
        }
        SSL_CTX_set_alpn_select_cb(context, { _, out, outLength, offered, offeredLength, _ in
            // The offered list is length-prefixed names; pick "h2".
            var index = 0
            while index < Int(offeredLength) {
                let length = Int(offered![index])
                if length == 2, offered![index + 1] == UInt8(ascii: "h"), offered![index + 2] == UInt8(ascii: "2") {
                    out!.pointee = offered! + index + 1
                    outLength!.pointee = 2
                    return SSL_TLSEXT_ERR_OK
                }
                index += 1 + length
            }
            return SSL_TLSEXT_ERR_ALERT_FATAL
        }, nil)
        if requireClientCertificate {
            // Any certificate will do: the test checks which one arrived.
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT) { _, _ in 1 }
        }
        self.context = context
        self.handler = handler
        self.maxConcurrentStreams = maxConcurrentStreams

        guard let (listener, port) = LoopbackListener.open() else { throw TestFailure("cannot listen") }
        self.listener = listener
        self.port = port
        state.withLock { $0.sockets.append(listener) }
        Thread { [self] in acceptLoop() }.start()
    }

    private let maxConcurrentStreams: UInt32

    deinit { SSL_CTX_free(context) }

    var requests: [Request] { state.withLock { $0.requests } }
    var pings: Int { state.withLock { $0.pings } }
    /// Connections accepted and not yet closed.
    var openConnections: Int { state.withLock { $0.open } }

    /// Stops accepting and closes every connection. Only sockets still open are touched: a
    /// number already closed could belong to another test's socket by now.
    func stop() {
        state.withLock { $0.sockets.forEach { Glibc.shutdown($0, Int32(SHUT_RDWR)) } }
    }

    /// Closes `socket` once `stop` can no longer reach it.
    private func forget(_ socket: Int32) {
        state.withLock { state in
            state.sockets.removeAll { $0 == socket }
            close(socket)
        }
    }

    private func acceptLoop() {
        while true {
            let socket = accept(listener, nil, nil)
            guard socket >= 0 else { break }
            let number = state.withLock { state in
                state.sockets.append(socket)
                state.connections += 1
                state.open += 1
                return state.connections
            }
            Thread { [self] in
                ServerConnection(server: self, socket: socket, number: number).serve()
                forget(socket)
                state.withLock { $0.open -= 1 }
            }.start()
        }
        forget(listener)
    }

    /// One accepted connection; used only on its own thread.
    private final class ServerConnection {
        struct Stream {
            var headers: [String: String] = [:]
            var body: [UInt8] = []
        }

        let server: ScriptedHTTP2Server
        let socket: Int32
        let number: Int
        var ssl: OpaquePointer?
        var session: OpaquePointer?
        var streams: [Int32: Stream] = [:]
        var responseBodies: [Int32: [UInt8]] = [:]
        var clientCertificate: String?
        var closing = false

        init(server: ScriptedHTTP2Server, socket: Int32, number: Int) {
            self.server = server
            self.socket = socket
            self.number = number
        }

        func serve() {
            guard let ssl = SSL_new(server.context) else { return }
            self.ssl = ssl
            defer { SSL_free(ssl) }
            SSL_set_fd(ssl, socket)
            guard SSL_accept(ssl) == 1 else { return }
            if let peer = SSL_get1_peer_certificate(ssl) {
                var name = [CChar](repeating: 0, count: 256)
                X509_NAME_get_text_by_NID(X509_get_subject_name(peer), NID_commonName, &name, Int32(name.count))
                clientCertificate = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
                X509_free(peer)
            }
            guard makeSession() else { return }
            defer { nghttp2_session_del(session) }
            var buffer = [UInt8](repeating: 0, count: 16384)
            while !closing {
                guard flush() else { return }
                if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 { return }
                let count = SSL_read(ssl, &buffer, Int32(buffer.count))
                guard count > 0, nghttp2_session_mem_recv(session, buffer, Int(count)) >= 0 else { return }
            }
        }

        private func flush() -> Bool {
            while true {
                var chunk: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &chunk)
                if length < 0 { return false }
                if length == 0 { return true }
                guard SSL_write(ssl, chunk, Int32(length)) == Int32(length) else { return false }
            }
        }

        private func makeSession() -> Bool {
            var callbacks: OpaquePointer?
            nghttp2_session_callbacks_new(&callbacks)
            defer { nghttp2_session_callbacks_del(callbacks) }
            nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, context in
                let connection = Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue()
                connection.streams[frame!.pointee.hd.stream_id] = Stream()
                return 0
            }
            nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, context in
                let connection = Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue()
                let key = String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self)
                connection.streams[frame!.pointee.hd.stream_id]?.headers[key] =
                    String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)
                return 0
            }
            nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, streamID, data, length, context in
                let connection = Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue()
                connection.streams[streamID]?.body.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
                return 0
            }
            nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, context in
                let connection = Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue()
                connection.frameReceived(frame!.pointee)
                return 0
            }
            nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, _, context in
                let connection = Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue()
                connection.streams[streamID] = nil
                connection.responseBodies[streamID] = nil
                return 0
            }
            guard nghttp2_session_server_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0 else {
                return false
            }
            var settings = [nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: server.maxConcurrentStreams)]
            return nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, 1) == 0
        }

        private func frameReceived(_ frame: nghttp2_frame) {
            let type = UInt32(frame.hd.type)
            if type == NGHTTP2_PING.rawValue, frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 {
                server.state.withLock { $0.pings += 1 }
            }
            guard type == NGHTTP2_HEADERS.rawValue || type == NGHTTP2_DATA.rawValue,
                  frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0,
                  let stream = streams[frame.hd.stream_id] else { return }
            let streamID = frame.hd.stream_id
            let request = Request(connection: number, streamID: streamID, path: stream.headers[":path"] ?? "",
                                  headers: stream.headers, body: stream.body, clientCertificate: clientCertificate)
            server.state.withLock { $0.requests.append(request) }
            switch server.handler(request) {
            case let .respond(status, headers, body):
                respond(streamID, status: status, headers: headers, body: Array(body.utf8))
            case .refuse:
                nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_REFUSED_STREAM.rawValue)
            case .resetAsMalformed:
                nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_PROTOCOL_ERROR.rawValue)
            case .goAway:
                let debug = Array(#"{"reason":"Shutdown"}"#.utf8)
                nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID - 2, NGHTTP2_NO_ERROR.rawValue,
                                      debug, debug.count)
            case .dropConnection:
                closing = true
                Glibc.shutdown(socket, Int32(SHUT_RDWR))
            case .ignore:
                break
            }
        }

        private func respond(_ streamID: Int32, status: Int, headers: [String: String], body: [UInt8]) {
            var fields = [(":status", String(status))] + headers.map { ($0.key, $0.value) }
            if !body.isEmpty { fields.append(("content-length", String(body.count))) }
            responseBodies[streamID] = body
            var provider = nghttp2_data_provider()
            provider.read_callback = { _, streamID, buffer, length, flags, _, context in
                let connection = Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue()
                let body = connection.responseBodies[streamID] ?? []
                let count = min(length, body.count)
                body.withUnsafeBufferPointer { if count > 0 { buffer!.update(from: $0.baseAddress!, count: count) } }
                connection.responseBodies[streamID] = Array(body.dropFirst(count))
                if count == body.count { flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
                return count
            }
            var flat: [UInt8] = []
            var offsets: [(Int, Int, Int, Int)] = []
            for (name, value) in fields {
                let nameStart = flat.count
                flat += Array(name.utf8)
                let valueStart = flat.count
                flat += Array(value.utf8)
                offsets.append((nameStart, valueStart - nameStart, valueStart, flat.count - valueStart))
            }
            flat.withUnsafeMutableBufferPointer { bytes in
                let nameValues = offsets.map {
                    nghttp2_nv(name: bytes.baseAddress! + $0.0, value: bytes.baseAddress! + $0.2, namelen: $0.1,
                               valuelen: $0.3, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                }
                if body.isEmpty {
                    _ = nghttp2_submit_response(session, streamID, nameValues, nameValues.count, nil)
                } else {
                    _ = nghttp2_submit_response(session, streamID, nameValues, nameValues.count, &provider)
                }
            }
        }
    }
}
