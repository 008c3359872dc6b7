import CSystem
import Foundation

/// One client connection: TLS through a `bufferevent_openssl`, HTTP/2 through an nghttp2
/// server session (or HTTP/1.1 through `HTTP1RequestParser`, when ALPN chose it), answers
/// decided by the listener's `SimulatedService`.
///
/// Thread rule: created, used and freed on its event loop's thread only; the listener keeps
/// it alive (its `connections` table) until `close()`.
final class SimulatorConnection {
    /// One request in progress and, once answered, the body being sent.
    final class Stream {
        var request = APNSRequest(method: "", path: "")
        var responseBody: [UInt8] = []
        var responseOffset = 0
    }

    /// Stop asking nghttp2 for bytes while this much output is still queued.
    static let outputHighWater = 64 * 1024

    /// `unowned(unsafe)`: the listener outlives its connections (it closes them all before it
    /// ends), and a checked reference would cost a retain on every callback.
    unowned(unsafe) let listener: SimulatorListener
    let bufferEvent: OpaquePointer
    private let recorder: SimulatorRecorder
    private let goawayAfter: Int?
    private let resetAfter: Int?
    /// Set when `resetAfter` streams have begun: the connection is reset once nghttp2
    /// returns (not inside its callback), and nothing more on it is handled.
    private var resetPending = false
    private let maxConcurrentStreams: Int
    private let requiresToken: Bool
    /// What the connection speaks: nothing until the TLS handshake, then what ALPN chose.
    private enum Speaking {
        case handshaking
        case http2(session: OpaquePointer)
        case http1(HTTP1Exchange)
        case closed
    }

    private var speaking = Speaking.handshaking
    private var session: OpaquePointer? { if case let .http2(session) = speaking { session } else { nil } }
    private var http1: HTTP1Exchange? { if case let .http1(exchange) = speaking { exchange } else { nil } }
    var isClosed: Bool { if case .closed = speaking { true } else { false } }
    private var streams: [Int32: Stream] = [:]
    /// The stream whose header block is being received: HTTP/2 never interleaves header
    /// blocks, so every header of a block goes here without a table lookup.
    private var receivingHeaders: (id: Int32, stream: Stream)?
    private var tokenCache = ProviderTokenCache()
    private var streamsBegun = 0
    private var streamLimitRaised = false
    /// Answers held back by the latency, and the timer set for the earliest.
    private var delayed = DelayedAnswers()
    private var timer: OpaquePointer?
    /// The bandwidth cap each way (`nil`: none), as of the listener's `networkGeneration`.
    private var writeBucket: TokenBucket?
    private var readBucket: TokenBucket?
    private var bucketGeneration = -1
    /// Wakes the connection when a bucket has tokens again; `throttleDue` while set.
    private var throttleTimer: OpaquePointer?
    private var throttleDue: UInt64?
    private var readingPaused = false
    /// Set once the session is over: the connection closes when the client does, or when it fires.
    private var lingerTimer: OpaquePointer?

    init(listener: SimulatorListener, bufferEvent: OpaquePointer) {
        self.listener = listener
        self.bufferEvent = bufferEvent
        recorder = listener.shared.recorder
        goawayAfter = listener.shared.configuration.goawayAfter
        resetAfter = listener.shared.configuration.resetAfter
        maxConcurrentStreams = listener.shared.configuration.maxConcurrentStreams
        requiresToken = listener.shared.requiresToken
    }

    private var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// Wires the bufferevent's callbacks; the TLS handshake then runs on its own.
    func start() {
        bufferevent_setcb(bufferEvent, connectionRead, connectionWrite, connectionEvent, context)
        bufferevent_enable(bufferEvent, Int16(EV_READ | EV_WRITE))
    }

    /// After the TLS handshake: the HTTP/2 session and our SETTINGS, or HTTP/1.1.
    func handshakeCompleted() {
        if negotiatedHTTP1 {
            speaking = .http1(HTTP1Exchange())
            // Input is read only up to one whole request: a client that pipelines many waits in TCP.
            bufferevent_setwatermark(bufferEvent, Int16(EV_READ), 0, HTTP1Exchange.inputLimit)
            readable()
            return
        }
        var created: OpaquePointer?
        guard nghttp2_session_server_new2(&created, listener.sessionCallbacks, context, listener.sessionOptions) == 0,
              let created else {
            close()
            return
        }
        speaking = .http2(session: created)
        // APNs allows one stream until a request has carried a valid provider token.
        let limit = requiresToken ? 1 : maxConcurrentStreams
        submitSettings(maxConcurrentStreams: limit)
        // Deferred callbacks may have run the read callback first, when there was no
        // session yet: what the client sent with its Finished is still in the buffer.
        readable()
        flush()
    }

    private func submitSettings(maxConcurrentStreams: Int) {
        guard let session else { return }
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                value: UInt32(maxConcurrentStreams)
            ),
        ]
        // Fails only for invalid values or out of memory; the session then keeps its defaults.
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    }

    /// Whether ALPN chose `http/1.1` (offered only by services that speak it).
    private var negotiatedHTTP1: Bool {
        var protocolName: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(bufferevent_openssl_get_ssl(bufferEvent), &protocolName, &length)
        guard let protocolName else { return false }
        return UnsafeBufferPointer(start: protocolName, count: Int(length)).elementsEqual("http/1.1".utf8)
    }

    /// Feeds everything received to nghttp2, then sends what it produced. Before the
    /// handshake completes there is no session, and input waits in the buffer.
    func readable() {
        if http1 != nil {
            readHTTP1()
            return
        }
        guard let session, !isClosed, let input = bufferevent_get_input(bufferEvent) else { return }
        let length = evbuffer_get_length(input)
        guard length > 0 else { return }
        if readBucket != nil || bucketGeneration != listener.networkGeneration {
            let now = DispatchTime.now().uptimeNanoseconds
            syncBuckets(now: now)
            let wait = Self.take(&readBucket, 0, now: now)
            guard wait == 0 else {
                // The socket is left unread: TCP's own flow control slows the client down.
                readingPaused = true
                bufferevent_disable(bufferEvent, Int16(EV_READ))
                throttle(until: now + wait)
                return
            }
            _ = Self.take(&readBucket, length, now: now)
        }
        guard let data = evbuffer_pullup(input, -1) else { return }
        let consumed = nghttp2_session_mem_recv(session, data, length)
        guard consumed >= 0 else {
            listener.shared.logger.debug("closing a connection after an HTTP/2 error", [
                "error": String(cString: nghttp2_strerror(Int32(consumed))),
            ])
            close()
            return
        }
        evbuffer_drain(input, length)
        if resetPending {
            reset()
            return
        }
        flush()
    }

    /// Drops the connection with a TCP RST: what is in flight on it stays unanswered.
    private func reset() {
        var abortive = CSystem.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(bufferevent_getfd(bufferEvent), SOL_SOCKET, SO_LINGER, &abortive, socklen_t(MemoryLayout<CSystem.linger>.size))
        recorder.connectionReset()
        close()
    }

    /// Moves nghttp2's pending frames to the TLS output, up to the high-water mark; the
    /// write callback resumes once that drains. Closes when both sides are done.
    func flush() {
        if let http1, http1.closing, !http1.answering, !isClosed, let output = bufferevent_get_output(bufferEvent), evbuffer_get_length(output) == 0 {
            linger()
            return
        }
        guard let session, !isClosed, let output = bufferevent_get_output(bufferEvent) else { return }
        let capped = writeBucket != nil || bucketGeneration != listener.networkGeneration
        let now = capped ? DispatchTime.now().uptimeNanoseconds : 0
        if capped { syncBuckets(now: now) }
        while evbuffer_get_length(output) < SimulatorConnection.outputHighWater {
            if capped {
                let wait = Self.take(&writeBucket, 0, now: now)
                guard wait == 0 else {
                    throttle(until: now + wait)
                    break
                }
            }
            var data: UnsafePointer<UInt8>?
            let length = nghttp2_session_mem_send(session, &data)
            if length < 0 {
                close()
                return
            }
            guard length > 0, let data else { break }
            evbuffer_add(output, data, length)
            if capped { _ = Self.take(&writeBucket, length, now: now) }
        }
        if evbuffer_get_length(output) == 0, nghttp2_session_want_read(session) == 0,
           nghttp2_session_want_write(session) == 0 {
            linger()
        }
    }

    /// The session is over (GOAWAY sent, its streams answered), but the client may still
    /// be sending requests it made before the GOAWAY reached it. Closing the socket with
    /// those unread would make the kernel answer with a TCP reset, which destroys the last
    /// responses still on their way to the client: so wait for the client to close (it
    /// does once the GOAWAY arrives), reading and ignoring what it sends, at most
    /// `lingerSeconds`.
    private func linger() {
        guard lingerTimer == nil else { return }
        lingerTimer = event_new(listener.base, -1, 0, connectionLingerEnded, context)
        var interval = timeval(tv_sec: SimulatorConnection.lingerSeconds, tv_usec: 0)
        event_add(lingerTimer, &interval)
    }

    static let lingerSeconds = 2

    /// Frees everything; safe to call twice.
    func close() {
        guard !isClosed else { return }
        if let session { nghttp2_session_del(session) }
        speaking = .closed
        if let timer { event_free(timer) }
        timer = nil
        if let throttleTimer { event_free(throttleTimer) }
        throttleTimer = nil
        if let lingerTimer { event_free(lingerTimer) }
        lingerTimer = nil
        streams.removeAll()
        receivingHeaders = nil
        bufferevent_free(bufferEvent)
        listener.connectionClosed(self)
    }

    // MARK: nghttp2 events

    func beginRequest(streamID: Int32) {
        guard let session, !resetPending else { return }
        if let goawayAfter, streamsBegun >= goawayAfter {
            // Past the GOAWAY's last stream: not processed, so the client may safely retry it.
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_REFUSED_STREAM.rawValue)
            return
        }
        let stream = Stream()
        streams[streamID] = stream
        receivingHeaders = (streamID, stream)
        streamsBegun += 1
        recorder.streamBegan()
        if let resetAfter, streamsBegun >= resetAfter { resetPending = true }
        if let goawayAfter, streamsBegun == goawayAfter {
            // The streams begun so far are answered; later ones are refused.
            let debugData = Array(#"{"reason":"Shutdown"}"#.utf8)
            _ = nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, NGHTTP2_NO_ERROR.rawValue,
                debugData, debugData.count
            )
            recorder.goawaySent()
        }
    }

    func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let receivingHeaders, receivingHeaders.id == streamID else { return }
        receivingHeaders.stream.request.setHeader(name: name, value: value)
    }

    func body(streamID: Int32, bytes: UnsafeRawBufferPointer) {
        streams[streamID]?.request.appendBody(bytes)
    }

    /// The request is complete: decide, record, answer (now or after the latency).
    func requestComplete(streamID: Int32) {
        guard !resetPending, let stream = streams[streamID] else { return }
        let (response, apnsID) = decide(stream.request)
        answer(.response(streamID: streamID, response, apnsID: apnsID))
    }

    /// The service's answer to `request`, recorded, and the `apns-id` it goes out with.
    private func decide(_ request: APNSRequest) -> (SimulatorResponse, apnsID: String) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        listener.refreshRates()
        let decision = listener.handler.answer(request, nowMilliseconds: now, tokenCache: &tokenCache)
        if !streamLimitRaised, tokenCache.token != nil, requiresToken {
            streamLimitRaised = true
            submitSettings(maxConcurrentStreams: maxConcurrentStreams)
        }
        let apnsID = request.apnsID.flatMap { APNSRequestValidator.isUUID($0) ? $0 : nil }
            ?? makeUUID(using: &listener.idRandom)
        if let token = decision.acceptedToken {
            recorder.accepted(APNSDelivery(
                token: token, apnsID: apnsID, topic: request.topic, pushType: request.pushType,
                priority: request.priority, payload: request.body, receivedAt: now, collapseID: request.collapseID
            ))
        } else if let reason = decision.rejectedReason {
            recorder.rejected(reason)
        }
        return (decision.response, apnsID)
    }

    /// A PING arrived: acknowledged after the network's latency, like an answer.
    func pingReceived(opaque: UInt64) {
        answer(.pingAck(opaque))
    }

    /// Sends `frame` now, or after the network's latency.
    private func answer(_ frame: DelayedAnswers.Answer.Frame) {
        listener.refreshNetwork()
        let delay = listener.network.delayNanoseconds(using: &listener.jitterRandom)
        guard delay > 0 else {
            send(frame)
            return
        }
        let due = DispatchTime.now().uptimeNanoseconds + delay
        let earliest = delayed.nextDue
        delayed.insert(.init(due: due, frame: frame))
        if earliest.map({ due < $0 }) ?? true { armTimer(for: due) }
    }

    private func send(_ frame: DelayedAnswers.Answer.Frame) {
        switch frame {
        case let .response(streamID, response, apnsID):
            respond(streamID: streamID, response: response, apnsID: apnsID)
        case let .http1(response):
            http1Answered(response)
        case let .pingAck(opaque):
            guard let session else { return }
            withUnsafeBytes(of: opaque) { bytes in
                _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_ACK.rawValue), bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
    }

    func streamClosed(streamID: Int32) {
        streams.removeValue(forKey: streamID)
        if receivingHeaders?.id == streamID { receivingHeaders = nil }
    }

    /// Copies the response body into a DATA frame.
    func readResponseBody(
        streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let count = min(length, stream.responseBody.count - stream.responseOffset)
        stream.responseBody.withUnsafeBufferPointer { body in
            buffer.update(from: body.baseAddress! + stream.responseOffset, count: count)
        }
        stream.responseOffset += count
        if stream.responseOffset == stream.responseBody.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    private func respond(streamID: Int32, response: SimulatorResponse, apnsID: String) {
        guard let session, let stream = streams[streamID] else { return }
        stream.responseBody = response.body
        let status = ResponseHeaders.statusValues[response.status] ?? StaticBytes(String(response.status))
        var id = apnsID
        var retryAfter = response.retryAfter.map(String.init) ?? ""
        var channelID = response.channelID ?? ""
        id.withUTF8 { idBytes in retryAfter.withUTF8 { retryAfterBytes in channelID.withUTF8 { channelIDBytes in
            // A new apns-id with every response: never indexed, as it would only push the
            // fields that do repeat out of the client's HPACK table.
            var apnsIDHeader = ResponseHeaders.apnsID.header(value: idBytes)
            apnsIDHeader.flags |= UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
            var headers = [ResponseHeaders.status.header(value: status), apnsIDHeader]
            if !retryAfterBytes.isEmpty { headers.append(ResponseHeaders.retryAfter.header(value: retryAfterBytes)) }
            if !channelIDBytes.isEmpty { headers.append(ResponseHeaders.channelID.header(value: channelIDBytes)) }
            if stream.responseBody.isEmpty {
                _ = nghttp2_submit_response(session, streamID, &headers, headers.count, nil)
            } else {
                headers.append(ResponseHeaders.contentType.header(value: ResponseHeaders.json))
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: connectionReadBody)
                _ = nghttp2_submit_response(session, streamID, &headers, headers.count, &provider)
            }
        } } }
    }

    // MARK: latency and bandwidth

    /// Sets (or moves earlier) a loop timer for `due`: nothing waits on the loop, and any
    /// number of answers are pending at once.
    private func arm(_ timer: inout OpaquePointer?, callback: event_callback_fn, for due: UInt64) {
        if timer == nil { timer = event_new(listener.base, -1, 0, callback, context) }
        guard let timer else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let wait = due > now ? due - now : 0
        var interval = timeval(tv_sec: Int(wait / 1_000_000_000), tv_usec: Int(wait % 1_000_000_000 / 1000))
        event_add(timer, &interval)
    }

    private func armTimer(for due: UInt64) {
        arm(&timer, callback: connectionTimer, for: due)
    }

    /// Sends every response whose delay has passed and re-arms for the next one.
    func timerFired() {
        let now = DispatchTime.now().uptimeNanoseconds
        while let answer = delayed.popDue(now: now) { send(answer.frame) }
        if let next = delayed.nextDue { armTimer(for: next) }
        if http1 != nil { readHTTP1() }
        flush()
    }

    /// Makes the buckets anew when the control endpoint changed the cap.
    private func syncBuckets(now: UInt64) {
        listener.refreshNetwork()
        guard bucketGeneration != listener.networkGeneration else { return }
        bucketGeneration = listener.networkGeneration
        let rate = listener.network.bandwidthBytesPerSecond
        writeBucket = rate > 0 ? TokenBucket(bytesPerSecond: rate, now: now) : nil
        readBucket = writeBucket
    }

    /// Spends `bytes` from the bucket and returns how long until more may pass: 0 now, or
    /// always without a cap.
    private static func take(_ bucket: inout TokenBucket?, _ bytes: Int, now: UInt64) -> UInt64 {
        guard var current = bucket else { return 0 }
        defer { bucket = current }
        if bytes > 0 { current.spend(bytes, now: now) }
        return current.wait(now: now)
    }

    /// Wakes the connection at `due` to read and write again.
    private func throttle(until due: UInt64) {
        if let throttleDue, throttleDue <= due { return }
        throttleDue = due
        arm(&throttleTimer, callback: connectionThrottleEnded, for: due)
    }

    func throttleEnded() {
        throttleDue = nil
        if readingPaused, !isClosed {
            readingPaused = false
            bufferevent_enable(bufferEvent, Int16(EV_READ))
        }
        readable()
        flush()
    }
}

// MARK: HTTP/1.1

extension SimulatorConnection {
    /// Takes the buffered requests one at a time: each is answered (after the latency, if
    /// any) before the next is parsed, so answers leave in request order. A refusal is
    /// written and the connection closes.
    private func readHTTP1() {
        while !isClosed, var exchange = http1, !exchange.answering, let input = bufferevent_get_input(bufferEvent) {
            let length = evbuffer_get_length(input)
            if exchange.closing {
                // Lingering before the close: what the client still sends is not read.
                evbuffer_drain(input, length)
                return
            }
            guard length > 0 else { return }
            let window = min(length, HTTP1Exchange.inputLimit)
            guard let data = evbuffer_pullup(input, window) else { return }
            let step = exchange.parser.next(UnsafeBufferPointer(start: data, count: window))
            switch step {
            case .needMore:
                speaking = .http1(exchange)
                return
            case .sendContinue:
                speaking = .http1(exchange)
                write(HTTP1Response.continueLine)
                return
            case let .refuse(status, message):
                exchange.closing = true
                speaking = .http1(exchange)
                recorder.rejected("HTTP1_\(status)")
                write(HTTP1Response.refusal(status: status, message: message))
                return
            case let .request(request, keepAlive, consumed):
                evbuffer_drain(input, consumed)
                exchange.answering = true
                exchange.closing = !keepAlive
                speaking = .http1(exchange)
                recorder.streamBegan()
                answer(.http1(decide(request).0))
            }
        }
    }

    /// Writes the answer; the next request is read by the caller (`readHTTP1`'s loop or the timer).
    private func http1Answered(_ response: SimulatorResponse) {
        guard var exchange = http1 else { return }
        exchange.answering = false
        speaking = .http1(exchange)
        write(HTTP1Response.bytes(response, close: exchange.closing))
    }

    private func write(_ bytes: [UInt8]) {
        guard !isClosed, let output = bufferevent_get_output(bufferEvent) else { return }
        evbuffer_add(output, bytes, bytes.count)
    }
}

// MARK: C callbacks (nonisolated, capture nothing; the context is the connection)

private func connection(_ context: UnsafeMutableRawPointer?) -> SimulatorConnection {
    Unmanaged<SimulatorConnection>.fromOpaque(context!).takeUnretainedValue()
}

/// For nghttp2's callbacks: they run inside `nghttp2_session_mem_recv`/`mem_send`, whose
/// callers keep the connection alive, so it is used without a retain per callback (a
/// request makes a dozen of them).
private func withConnection<R>(_ context: UnsafeMutableRawPointer?, _ body: (SimulatorConnection) -> R) -> R {
    Unmanaged<SimulatorConnection>.fromOpaque(context!)._withUnsafeGuaranteedRef(body)
}

private func connectionRead(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let owner = connection(context)
    withExtendedLifetime(owner) { owner.readable() }
}

private func connectionWrite(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let owner = connection(context)
    withExtendedLifetime(owner) { owner.flush() }
}

private func connectionEvent(_: OpaquePointer?, _ events: Int16, _ context: UnsafeMutableRawPointer?) {
    let owner = connection(context)
    withExtendedLifetime(owner) {
        if events & Int16(BEV_EVENT_CONNECTED) != 0 {
            owner.handshakeCompleted()
        } else if events & Int16(BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) != 0 {
            owner.close()
        }
    }
}

private func connectionLingerEnded(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let owner = connection(context)
    withExtendedLifetime(owner) { owner.close() }
}

private func connectionTimer(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let owner = connection(context)
    withExtendedLifetime(owner) { owner.timerFired() }
}

private func connectionThrottleEnded(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let owner = connection(context)
    withExtendedLifetime(owner) { owner.throttleEnded() }
}

private func connectionReadBody(
    _: OpaquePointer?, _ streamID: Int32, _ buffer: UnsafeMutablePointer<UInt8>?, _ length: Int,
    _ flags: UnsafeMutablePointer<UInt32>?, _: UnsafeMutablePointer<nghttp2_data_source>?,
    _ context: UnsafeMutableRawPointer?
) -> Int {
    withConnection(context) { $0.readResponseBody(streamID: streamID, into: buffer!, length: length, flags: flags!) }
}

private func isRequestHeaders(_ frame: UnsafePointer<nghttp2_frame>) -> Bool {
    frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue) && frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
}

func simulatorOnBeginHeaders(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, isRequestHeaders(frame) else { return 0 }
    withConnection(context) { $0.beginRequest(streamID: frame.pointee.hd.stream_id) }
    return 0
}

func simulatorOnHeader(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ name: UnsafePointer<UInt8>?, _ nameLength: Int,
    _ value: UnsafePointer<UInt8>?, _ valueLength: Int, _: UInt8, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame, isRequestHeaders(frame) else { return 0 }
    withConnection(context) {
        $0.header(
            streamID: frame.pointee.hd.stream_id,
            name: UnsafeBufferPointer(start: name, count: nameLength),
            value: UnsafeBufferPointer(start: value, count: valueLength)
        )
    }
    return 0
}

func simulatorOnDataChunk(
    _: OpaquePointer?, _: UInt8, _ streamID: Int32, _ data: UnsafePointer<UInt8>?, _ length: Int,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    withConnection(context) { $0.body(streamID: streamID, bytes: UnsafeRawBufferPointer(start: data, count: length)) }
    return 0
}

func simulatorOnFrame(
    _: OpaquePointer?, _ frame: UnsafePointer<nghttp2_frame>?, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let frame else { return 0 }
    let type = frame.pointee.hd.type
    if type == UInt8(NGHTTP2_PING.rawValue), frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 {
        let opaque = withUnsafeBytes(of: frame.pointee.ping.opaque_data) { $0.loadUnaligned(as: UInt64.self) }
        withConnection(context) { $0.pingReceived(opaque: opaque) }
        return 0
    }
    let ended = frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
    if ended, type == UInt8(NGHTTP2_DATA.rawValue) || type == UInt8(NGHTTP2_HEADERS.rawValue) {
        withConnection(context) { $0.requestComplete(streamID: frame.pointee.hd.stream_id) }
    }
    return 0
}

func simulatorOnStreamClose(
    _: OpaquePointer?, _ streamID: Int32, _: UInt32, _ context: UnsafeMutableRawPointer?
) -> Int32 {
    withConnection(context) { $0.streamClosed(streamID: streamID) }
    return 0
}
