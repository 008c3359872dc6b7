import CSystem
import Foundation

/// One HTTP/2 connection to APNs: TLS on a libevent bufferevent, an nghttp2 client session.
///
/// Thread rule: made, used and closed only on its pool's loop thread. nghttp2 and libevent
/// call back into it through `Unmanaged` context pointers; it is never closed from inside an
/// nghttp2 callback (the close waits until `nghttp2_session_mem_recv` returns).
final class APNSConnection {
    enum State { case connecting, ready, draining, closed }

    /// A request on an open stream.
    final class Stream {
        let request: PendingRequest
        let body: [UInt8]
        var offset = 0
        let token: String?
        let sentAt: Double
        var status = 0
        var apnsID: UUID?
        var retryAfter: String?
        var channelID: String?
        var response: [UInt8] = []
        var timedOut = false
        /// The error code of an RST_STREAM the server sent for this stream.
        var resetByServer: UInt32?

        init(request: PendingRequest, token: String?, sentAt: Double) {
            self.request = request
            self.body = request.message.body
            self.token = token
            self.sentAt = sentAt
        }
    }

    let id: Int
    private(set) var state = State.connecting
    /// `unowned(unsafe)`: the pool outlives its connections (it finishes shutting down only
    /// once every connection has closed), and a checked reference costs an atomic per use.
    private unowned(unsafe) let pool: ConnectionPool
    private var bufferEvent: OpaquePointer?
    private var session: OpaquePointer?
    private var streams: [Int32: Stream] = [:]
    /// The peer's SETTINGS_MAX_CONCURRENT_STREAMS; one stream until its SETTINGS arrive.
    private(set) var peerMaxStreams = 1
    /// Whether the peer's first SETTINGS frame has arrived.
    private(set) var peerSettingsReceived = false
    /// Whether any request got an answer here: a connection that dies before that counts as
    /// a failed connection attempt, so a server that takes the handshake and then hangs up
    /// is retried with backoff too.
    private(set) var answeredAny = false
    private let openedAt: Double
    private var lastActivity: Double
    /// Since when it is ready with no open stream (nil while it has some, or is not ready).
    private(set) var idleSince: Double?
    /// Whether the TLS handshake resumed an earlier session.
    private(set) var resumedSession = false
    private var pingSentAt: Double?
    /// Whether the PING out was sent while the pool held no request (`pingPath`).
    private var pingMeasuresPath = false
    /// When the last PING went out: a busy connection is pinged every `roundTripPingInterval`
    /// too, so the window knows the round trip (`InFlightWindow`).
    private var lastPingAt = -Double.infinity
    static let roundTripPingInterval = 2.0
    /// When the input being read arrived (one clock read per read): answers' latencies end here.
    private var receivedAt: Double
    private var receiving = false
    private var closeRequested: String?
    private var closeIsClean = false
    /// Where `readable` finds the input's chunks.
    private var inputChunks = [iovec](repeating: iovec(), count: 16)
    /// Reused for every request's headers.
    private var headerBlock = RequestHeaderBlock()
    /// Reused to gather nghttp2's frames into writes of up to `writeSize` bytes.
    private var output: [UInt8] = []
    /// One TLS record's payload at most: libevent makes a record of each buffer chain it
    /// writes, and its own chains stop at 4 KiB.
    private static let writeSize = 16 * 1024
    /// `bearer <jwt>` for the provider token last sent.
    private var authorizationToken: String?
    private var authorization: [UInt8] = []
    /// The time of the current batch of submissions (one clock read per dispatch).
    var now: Double

    /// Streams it may have open besides the peer's limit: a new connection starts with
    /// `initialStreams` and takes one more per answer (doubling every round trip, as TCP's
    /// slow start). A batch goes out in one write, and a server that dies having read it
    /// whole answers none of it: the first batches are kept small, so a connection that
    /// dies early wastes few requests (a server resetting every 150th stream answered next
    /// to nothing with a full first batch).
    private var streamWindow = APNSConnection.initialStreams
    static let initialStreams = 16

    var hasCapacity: Bool { freeStreams > 0 }
    /// How many more streams it takes now.
    var freeStreams: Int { state == .ready ? max(0, min(peerMaxStreams, streamWindow) - streams.count) : 0 }

    init(id: Int, pool: ConnectionPool) {
        self.id = id
        self.pool = pool
        openedAt = pool.monotonicSeconds
        lastActivity = openedAt
        now = openedAt
        receivedAt = openedAt
    }

    /// Starts the TCP connect and TLS handshake.
    ///
    /// - Returns: an error message when the attempt could not even start.
    func connect(base: OpaquePointer, dnsBase: OpaquePointer?, tls: TLSContext, host: String, port: Int) -> String? {
        guard let ssl = tls.makeSSL(host: host, port: port) else { return "cannot create a TLS session" }
        guard let bufferEvent = bufferevent_openssl_socket_new(
            base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
        ) else {
            SSL_free(ssl)
            return "cannot create a bufferevent"
        }
        self.bufferEvent = bufferEvent
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(bufferEvent, { _, context in
            Unmanaged<APNSConnection>.fromOpaque(context!).takeUnretainedValue().readable()
        }, nil, { _, events, context in
            Unmanaged<APNSConnection>.fromOpaque(context!).takeUnretainedValue().event(events)
        }, context)
        bufferevent_enable(bufferEvent, Int16(EV_READ | EV_WRITE))
        if bufferevent_socket_connect_hostname(bufferEvent, dnsBase, AF_UNSPEC, host, Int32(port)) != 0 {
            bufferevent_free(bufferEvent)
            self.bufferEvent = nil
            state = .closed
            return "cannot connect to \(host):\(port)"
        }
        return nil
    }

    /// Opens a stream for `request`.
    ///
    /// - Returns: false when the session takes no more streams (GOAWAY, ids used up).
    func submit(_ request: PendingRequest, token: String?, authority: [UInt8]) -> Bool {
        guard state == .ready, let session else { return false }
        if let token, token != authorizationToken {
            authorizationToken = token
            authorization = Array("bearer \(token)".utf8)
        }
        headerBlock.build(request.message, authority: authority, authorization: token == nil ? nil : authorization)
        // nghttp2 hands the stream back to every callback (as the data source and as the
        // stream's user data), so they need no table lookup; `streams` keeps it alive.
        let stream = Stream(request: request, token: token, sentAt: now)
        let streamPointer = Unmanaged.passUnretained(stream).toOpaque()
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: streamPointer), read_callback: { _, _, buffer, length, flags, source, _ in
            Unmanaged<Stream>.fromOpaque(source!.pointee.ptr!)._withUnsafeGuaranteedRef { stream in
                APNSConnection.readBody(stream, into: buffer!, length: length, flags: flags!)
            }
        })
        let streamID = headerBlock.withNameValues { nameValues, count in
            nghttp2_submit_request(session, nil, nameValues, count, &provider, streamPointer)
        }
        guard streamID > 0 else {
            state = .draining
            return false
        }
        streams[streamID] = stream
        idleSince = nil
        pool.streamOpened(connectionStreams: streams.count)
        // Others wait for `flushSubmitted`, to go out with the rest of their batch.
        if request.urgent { flushSubmitted() }
        return true
    }

    /// Writes the requests submitted so far (a batch in one write: the server then reads
    /// them together, which costs it a third less CPU a request than a few at a time).
    func flushSubmitted() {
        if !receiving { flush() }
    }

    /// Takes no new streams; closes once the open ones are answered.
    func drain() {
        if state == .ready { state = .draining }
        if !receiving { finishCallbacks() }
    }

    /// Housekeeping: handshake and response timeouts, PING on idle connections.
    func tick(now: Double, configuration: APNSClientConfiguration) {
        switch state {
        case .closed:
            return
        case .connecting:
            if now - openedAt > configuration.connectTimeout { close("TLS/HTTP2 handshake timed out") }
            return
        case .ready, .draining:
            break
        }
        guard let session else { return }
        for (streamID, stream) in streams where !stream.timedOut && now - stream.sentAt > configuration.responseTimeout {
            stream.timedOut = true
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_CANCEL.rawValue)
        }
        if let pingSentAt {
            if now - pingSentAt > configuration.pingTimeout { close("PING not answered"); return }
        } else if streams.isEmpty ? now - lastActivity > configuration.pingInterval : now - lastPingAt >= Self.roundTripPingInterval {
            ping(now: now)
        }
        finishCallbacks()
    }

    private func ping(now: Double) {
        guard let session else { return }
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        pingSentAt = now
        lastPingAt = now
        pingMeasuresPath = false
    }

    /// Sends a PING now, the pool holding no request: it waits behind nothing of ours, so
    /// its round trip is the path's alone (`InFlightWindow.pathMeasured`). At most one per
    /// `roundTripPingInterval`: an app pushing now and then pings once, not with each push.
    ///
    /// - Returns: whether it sent one.
    func pingPath(now: Double) -> Bool {
        guard state == .ready, streams.isEmpty, pingSentAt == nil, now - lastPingAt >= Self.roundTripPingInterval else { return false }
        ping(now: now)
        pingMeasuresPath = true
        flushSubmitted()
        return true
    }

    /// Closes the connection now and hands every unanswered request back to the pool.
    ///
    /// - Parameter clean: the pool's own decision (idle, drained, given back, shutdown), not
    ///   a failure: TLS close_notify goes out first, which keeps the session resumable
    ///   (OpenSSL marks the session of a connection freed without it as not resumable).
    func close(_ reason: String, clean: Bool = false) {
        guard state != .closed else { return }
        if receiving {
            if closeRequested == nil { (closeRequested, closeIsClean) = (reason, clean) }
            return
        }
        let wasReady = state != .connecting
        if clean || closeIsClean, wasReady, let bufferEvent, let ssl = bufferevent_openssl_get_ssl(bufferEvent) {
            SSL_shutdown(ssl)
            ERR_clear_error()
        }
        state = .closed
        let unanswered = streams.sorted { $0.key < $1.key }.map(\.value.request)
        streams.removeAll()
        pool.streamsEnded(unanswered.count)
        if let session { nghttp2_session_del(session) }
        session = nil
        if let bufferEvent {
            // libevent closes the socket only at the end of the loop's iteration; shut down now,
            // so the connection has ended before its place in the allowance goes to another.
            let fd = bufferevent_getfd(bufferEvent)
            if fd >= 0 { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
            bufferevent_free(bufferEvent)
        }
        bufferEvent = nil
        // The pool drops its reference here, possibly the last one, while this method runs.
        withExtendedLifetime(self) {
            pool.connectionClosed(self, reason: reason, unanswered: unanswered, wasReady: wasReady)
        }
    }

    // MARK: libevent

    private func event(_ events: Int16) {
        if events & Int16(BEV_EVENT_CONNECTED) != 0 {
            connected()
        } else if events & Int16(BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0 {
            close(describeError(events))
        }
    }

    private func connected() {
        guard let bufferEvent, let ssl = bufferevent_openssl_get_ssl(bufferEvent) else { return }
        // Without it a request waits for the ACK of the previous segment (Nagle): a lone
        // targeted push lost milliseconds on every hop.
        _ = CSystem_set_tcp_nodelay(bufferevent_getfd(bufferEvent))
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &protocolName, &length)
        guard let protocolName, length == 2, protocolName[0] == UInt8(ascii: "h"), protocolName[1] == UInt8(ascii: "2") else {
            close("the server did not agree to HTTP/2 (ALPN h2)")
            return
        }
        guard makeSession() else {
            close("cannot create an HTTP/2 session")
            return
        }
        state = .ready
        resumedSession = SSL_session_reused(ssl) == 1
        lastActivity = pool.monotonicSeconds
        idleSince = lastActivity
        // The first round trip, for the in-flight window, with the preface and SETTINGS.
        ping(now: lastActivity)
        flush()
        pool.connectionReady(self)
    }

    private func readable() {
        guard let bufferEvent, let session else { return }
        let input = bufferevent_get_input(bufferEvent)
        guard evbuffer_get_length(input) > 0 else { return }
        // Chunk by chunk as libevent holds them (nghttp2 keeps partial frames itself), rather
        // than copying the input into one block first.
        receiving = true
        receivedAt = pool.monotonicSeconds
        var error: Int = 0
        while error == 0, evbuffer_get_length(input) > 0 {
            let chunks = Int(evbuffer_peek(input, -1, nil, &inputChunks, Int32(inputChunks.count)))
            var received = 0
            for chunk in inputChunks.prefix(min(chunks, inputChunks.count)) {
                let consumed = nghttp2_session_mem_recv(session, chunk.iov_base.assumingMemoryBound(to: UInt8.self), chunk.iov_len)
                if consumed < 0 {
                    error = consumed
                    break
                }
                received += chunk.iov_len
            }
            evbuffer_drain(input, received)
        }
        receiving = false
        lastActivity = receivedAt
        if error < 0 {
            close("HTTP/2 error: \(String(cString: nghttp2_strerror(Int32(error))))")
            return
        }
        finishCallbacks()
    }

    /// Writes what nghttp2 has queued, then closes if a callback asked to or nothing is left.
    private func finishCallbacks() {
        guard state != .closed else { return }
        flush()
        if let reason = closeRequested {
            close(reason)
        } else if let session, nghttp2_session_want_read(session) == 0, nghttp2_session_want_write(session) == 0 {
            close("HTTP/2 session ended")
        } else if state == .draining, streams.isEmpty {
            close("drained", clean: true)
        }
    }

    private func flush() {
        guard let session, let bufferEvent else { return }
        output.removeAll(keepingCapacity: true)
        while true {
            var chunk: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &chunk)
            if length < 0 {
                closeRequested = closeRequested ?? "HTTP/2 error: \(String(cString: nghttp2_strerror(Int32(length))))"
                break
            }
            guard length > 0, let chunk else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: chunk, count: length))
            if output.count >= Self.writeSize {
                bufferevent_write(bufferEvent, output, output.count)
                output.removeAll(keepingCapacity: true)
            }
        }
        if !output.isEmpty { bufferevent_write(bufferEvent, output, output.count) }
    }

    private func describeError(_ events: Int16) -> String {
        let socketError = errno
        var messages: [String] = []
        if let bufferEvent {
            while case let code = bufferevent_get_openssl_error(bufferEvent), code != 0 {
                // libevent queues OpenSSL error codes, or SSL_get_error's small result when there is none.
                messages.append(ERR_reason_error_string(code).map { String(cString: $0) } ?? "TLS I/O error \(code)")
            }
            if let ssl = bufferevent_openssl_get_ssl(bufferEvent), state == .connecting {
                let verify = SSL_get_verify_result(ssl)
                if verify != X509_V_OK { messages.append("certificate: \(String(cString: X509_verify_cert_error_string(verify)))") }
            }
            let dnsError = bufferevent_socket_get_dns_error(bufferEvent)
            if dnsError != 0 { messages.append("DNS: \(String(cString: evutil_gai_strerror(dnsError)))") }
        }
        if events & Int16(BEV_EVENT_EOF) != 0 { messages.append("closed by peer") }
        if events & Int16(BEV_EVENT_TIMEOUT) != 0 { messages.append("timeout") }
        if events & Int16(BEV_EVENT_ERROR) != 0, socketError != 0 { messages.append(String(cString: strerror(socketError))) }
        return messages.isEmpty ? "connection error" : messages.joined(separator: "; ")
    }

    // MARK: nghttp2

    private func makeSession() -> Bool {
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { return false }
        defer { nghttp2_session_callbacks_del(callbacks) }
        // These run inside nghttp2_session_mem_recv/mem_send, whose callers hold the
        // connection: no retain is needed to use it. A stream comes as nghttp2's user data.
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { session, frame, name, nameLength, value, valueLength, _, _ in
            guard let frame, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
                  let stream = nghttp2_session_get_stream_user_data(session, frame.pointee.hd.stream_id) else { return 0 }
            Unmanaged<Stream>.fromOpaque(stream)._withUnsafeGuaranteedRef { stream in
                APNSConnection.header(stream, name: UnsafeBufferPointer(start: name, count: nameLength),
                                      value: UnsafeBufferPointer(start: value, count: valueLength))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { session, _, streamID, data, length, _ in
            guard let stream = nghttp2_session_get_stream_user_data(session, streamID) else { return 0 }
            Unmanaged<Stream>.fromOpaque(stream)._withUnsafeGuaranteedRef { stream in
                // Error bodies are small JSON; anything past 16 KiB is not worth keeping.
                stream.response.append(contentsOf: UnsafeBufferPointer(start: data, count: length)
                    .prefix(max(0, 16384 - stream.response.count)))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, streamID, errorCode, context in
            Unmanaged<APNSConnection>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.streamClosed(streamID, errorCode: errorCode) }
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, context in
            Unmanaged<APNSConnection>.fromOpaque(context!)._withUnsafeGuaranteedRef { $0.frameReceived(frame!.pointee) }
            return 0
        }
        var session: OpaquePointer?
        guard nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0 else {
            return false
        }
        self.session = session
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: 0),
        ]
        return nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0
    }

    private static func header(_ stream: Stream, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        if name.elementsEqual(":status".utf8) {
            var status = 0
            for digit in value {
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9"), status < 1000 else { status = 0; break }
                status = status * 10 + Int(digit - UInt8(ascii: "0"))
            }
            stream.status = status
        } else if name.elementsEqual("apns-id".utf8) {
            stream.apnsID = APNSID.parse(value)
        } else if name.elementsEqual("retry-after".utf8) {
            stream.retryAfter = String(decoding: value, as: UTF8.self)
        } else if name.elementsEqual("apns-channel-id".utf8) {
            stream.channelID = String(decoding: value, as: UTF8.self)
        }
    }

    private func streamClosed(_ streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        pool.streamsEnded(1)
        if streams.isEmpty { idleSince = pool.monotonicSeconds }
        if stream.status != 0 {
            answeredAny = true
            if streamWindow < peerMaxStreams { streamWindow += 1 }
            pool.answerTimed(latency: receivedAt - stream.sentAt, status: stream.status, now: receivedAt)
            pool.answered(stream.request, on: self, response: HTTP2Response(
                status: stream.status, apnsID: stream.apnsID, retryAfter: stream.retryAfter, channelID: stream.channelID, body: stream.response), token: stream.token)
        } else if stream.timedOut {
            pool.timedOut(stream.request)
        } else if stream.resetByServer == NGHTTP2_PROTOCOL_ERROR.rawValue {
            // The server's HTTP/2 layer refused the request itself (nghttp2 does so for a header
            // value with CR, LF or NUL): sent again it is refused again, so it is not.
            answeredAny = true
            pool.refused(stream.request, because: "the server reset the stream with PROTOCOL_ERROR")
        } else {
            // nghttp2 also closes the streams past a GOAWAY's last stream id as refused.
            let refused = errorCode == NGHTTP2_REFUSED_STREAM.rawValue
            pool.retry(stream.request, because: refused ? "stream refused" : "stream reset (\(errorCode))",
                       countsAsAttempt: !(refused && answeredAny))
        }
    }

    private func frameReceived(_ frame: nghttp2_frame) {
        switch UInt32(frame.hd.type) {
        case NGHTTP2_SETTINGS.rawValue where frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            guard let session else { return }
            let advertised = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            peerMaxStreams = Int(min(advertised, 100_000))
            peerSettingsReceived = true
            pool.settingsReceived(self)
        case NGHTTP2_GOAWAY.rawValue:
            let debug = frame.goaway.opaque_data_len > 0
                ? String(decoding: UnsafeBufferPointer(start: frame.goaway.opaque_data, count: frame.goaway.opaque_data_len), as: UTF8.self)
                : ""
            if state == .ready { state = .draining }
            pool.goAwayReceived(self, lastStreamID: frame.goaway.last_stream_id, errorCode: frame.goaway.error_code, debug: debug)
        case NGHTTP2_PING.rawValue where frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            if let pingSentAt {
                pool.roundTrip(receivedAt - pingSentAt, now: receivedAt, pathOnly: pingMeasuresPath)
            }
            pingSentAt = nil
        case NGHTTP2_RST_STREAM.rawValue:
            // Called before nghttp2 closes the stream (`streamClosed`).
            guard let session, let stream = nghttp2_session_get_stream_user_data(session, frame.hd.stream_id) else { return }
            Unmanaged<Stream>.fromOpaque(stream).takeUnretainedValue().resetByServer = frame.rst_stream.error_code
        default:
            break
        }
    }

    private static func readBody(_ stream: Stream, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        let count = min(length, stream.body.count - stream.offset)
        if count > 0 {
            stream.body.withUnsafeBufferPointer { body in
                buffer.update(from: body.baseAddress! + stream.offset, count: count)
            }
        }
        stream.offset += count
        if stream.offset == stream.body.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }
}
