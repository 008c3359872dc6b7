import CSystem
import EventLoops
import Glibc
import Foundation
import RelayCore

/// One `evhttp` with its own SO_REUSEPORT listener, on one loop of the server's
/// `EventLoopGroup`, and the requests and connections it serves there.
///
/// Thread rule: built and bound on the starting thread with its listener not yet
/// accepting, then handed to its loop as a `LoopBound`, whose thread alone uses it from
/// `start()` on. Handlers never run on the loop: it starts a `Task` per request and the
/// reply comes back through a job on the loop, to be sent on the loop's thread.
final class HTTPListener {
    /// A request whose handler is running.
    private struct Pending {
        let request: UnsafeMutablePointer<evhttp_request>
        let log: RequestLog
    }

    /// What the access-log line needs once the reply is sent.
    private struct RequestLog {
        let method: String
        let path: String
        let requestID: String
        let started: ContinuousClock.Instant
    }

    private let context: ServerContext
    /// Set when the listener speaks HTTPS; read from the loop's own thread.
    var tls: ServerTLSContext? { try? context.tls?.get() }
    let loop: EventLoop
    private let base: OpaquePointer
    private let http: OpaquePointer
    /// Activated when connections were accepted, to adopt them once evhttp has set them up.
    private var adopt: OpaquePointer?
    /// Activated when the screen rejected a request, to answer it once libevent is done with it.
    private var rejectWake: OpaquePointer?
    private var boundSocket: OpaquePointer?

    private var pending: [UInt64: Pending] = [:]
    /// Bufferevents of connections accepted in this pass of the loop, not adopted yet
    /// (each holds a reference of ours, so it outlives an early close).
    private var accepted: [OpaquePointer] = []
    /// Connections whose request the screen rejected, not answered yet.
    private var rejected: [TrackedConnection] = []
    /// Open connections, by `evhttp_connection`.
    private var connections: [OpaquePointer: TrackedConnection] = [:]
    private var nextID: UInt64 = 0
    /// Connections with a reply of ours still being written.
    private var writing: Set<OpaquePointer> = []
    private var draining = false
    /// Set once the evhttp is freed (or about to be): the listener is done.
    private var closed = false
    /// Set while we call `evhttp_send_reply`: output written at any other time is libevent's own.
    private var sendingOwnReply = false
    /// libevent's own responses, by connection output buffer.
    private var rejections: RejectionRewriter<OpaquePointer>
    /// Set while we rewrite a buffer, so our own changes are not taken for libevent's.
    private var rewriting = false

    let exited = ExitSignal()

    /// Builds the evhttp on `loop`'s base and binds its listener, on the caller's thread;
    /// nothing is accepted before `start()`.
    ///
    /// - Parameters:
    ///   - address: where to listen; every listener binds the same address with SO_REUSEPORT.
    init(context: ServerContext, address: SocketAddress, loop: EventLoop) throws(HTTPServerError) {
        self.context = context
        self.loop = loop
        rejections = RejectionRewriter(page: context.errorPage)
        let base = loop.base
        // evhttp_new and event_new only fill in structures: nothing reaches the running
        // base until an event is added, which happens on the loop's thread.
        guard let http = evhttp_new(base) else { throw .setupFailed("evhttp_new") }
        self.base = base
        self.http = http
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard let adopt = event_new(base, -1, 0, httpAdoptCallback, me) else {
            evhttp_free(http)
            throw .setupFailed("event_new")
        }
        self.adopt = adopt
        guard let rejectWake = event_new(base, -1, 0, httpRejectCallback, me) else {
            event_free(adopt)
            evhttp_free(http)
            throw .setupFailed("event_new")
        }
        self.rejectWake = rejectWake

        evhttp_set_max_body_size(http, Int(context.configuration.maxBodySize))
        evhttp_set_max_headers_size(http, 64 * 1024)
        evhttp_set_timeout(http, 30)
        // Read an oversized body to its end before answering 413, so the client reads the
        // reply instead of a reset.
        evhttp_set_flags(http, Int32(EVHTTP_SERVER_LINGERING_CLOSE))
        // Every method libevent knows reaches the router, so an unsupported one gets the
        // router's JSON 405 rather than libevent's HTML 501.
        let methods: [evhttp_cmd_type] = [
            EVHTTP_REQ_GET, EVHTTP_REQ_POST, EVHTTP_REQ_HEAD, EVHTTP_REQ_PUT,
            EVHTTP_REQ_DELETE, EVHTTP_REQ_OPTIONS, EVHTTP_REQ_PATCH, EVHTTP_REQ_TRACE,
        ]
        evhttp_set_allowed_methods(http, UInt16(methods.reduce(0) { $0 | $1.rawValue }))
        evhttp_set_bevcb(http, httpBuffereventCallback, me)
        evhttp_set_gencb(http, httpRequestCallback, me)

        // Disabled: the socket listens (the port is known, connections queue in the
        // backlog), but the loop accepts only from `start()`.
        let flags = UInt32(LEV_OPT_REUSEABLE) | UInt32(LEV_OPT_REUSEABLE_PORT)
            | UInt32(LEV_OPT_CLOSE_ON_FREE) | UInt32(LEV_OPT_CLOSE_ON_EXEC) | UInt32(LEV_OPT_DISABLED)
        let listener = address.withSockaddr { sockaddr, length in
            evconnlistener_new_bind(base, nil, nil, flags, 1024, sockaddr, Int32(length))
        }
        guard let listener else {
            let error = errno
            discard()
            throw .bindFailed(host: context.configuration.host, port: context.configuration.port, errno: error)
        }
        guard let bound = evhttp_bind_listener(http, listener) else {
            evconnlistener_free(listener)
            discard()
            throw .setupFailed("evhttp_bind_listener")
        }
        boundSocket = bound
    }

    /// The port this listener is bound to.
    var port: Int? {
        guard let boundSocket else { return nil }
        return boundPort(of: evhttp_bound_socket_get_fd(boundSocket))
    }

    /// Frees a listener that never started (a later one failed to bind).
    func discard() {
        freeEvents()
        evhttp_free(http)
    }

    private func freeEvents() {
        for event in [adopt, rejectWake] {
            if let event { event_free(event) }
        }
        adopt = nil
        rejectWake = nil
    }

    // MARK: - On the loop's thread

    /// Starts accepting; serves until drained after `stopAccepting()`, then frees everything.
    func start() {
        if let boundSocket { evconnlistener_enable(evhttp_bound_socket_get_listener(boundSocket)) }
    }

    /// Takes no more connections; the ones open are served until their replies are written.
    func stopAccepting() {
        if let boundSocket { evhttp_del_accept_socket(http, boundSocket) }
        boundSocket = nil
        draining = true
        stopIfDrained()
    }

    /// Frees the evhttp (closing idle keep-alive connections) and everything of this
    /// listener's on the loop, which runs on for others.
    private func close() {
        evhttp_free(http)  // calls connectionClosed for each connection still open
        for bufferevent in accepted { bufferevent_decref(bufferevent) }
        accepted = []
        rejected = []
        freeEvents()
        exited.signal()
    }

    func handle(_ request: UnsafeMutablePointer<evhttp_request>) {
        let started = ContinuousClock.now
        let method = Self.methodName(evhttp_request_get_command(request))
        let uri = evhttp_request_get_uri(request).map { String(cString: $0) } ?? "/"
        let headers = Self.headers(evhttp_request_get_input_headers(request))
        let requestID = RequestID.from(incoming: headers["X-Request-Id"])
        var remoteAddress = ""
        if let connection = evhttp_request_get_connection(request) {
            if let tracked = connections[connection] {
                tracked.apply(tracked.deadline.requestComplete(), timeout: context.configuration.requestReadTimeout)
            }
            remoteAddress = Self.peer(of: connection)
        }
        var log = RequestLog(method: method, path: String(uri.prefix { $0 != "?" }), requestID: requestID, started: started)

        let parsed: HTTPRequest
        do {
            parsed = try HTTPRequest(
                method: method, uri: uri, headers: headers, body: Self.body(of: request),
                requestID: requestID, remoteAddress: remoteAddress)
        } catch {
            send(context.responder.response(to: error), to: request, log: log)
            return
        }
        log = RequestLog(method: method, path: parsed.path, requestID: requestID, started: started)
        guard context.bufferedOutput.current <= context.configuration.maxBufferedOutput else {
            send(context.responder.response(to: .busy), to: request, log: log)
            return
        }
        guard context.inFlight.claim() else {
            send(context.responder.response(to: .busy), to: request, log: log)
            return
        }
        let id = nextID
        nextID += 1
        pending[id] = Pending(request: request, log: log)
        let responder = context.responder
        let me = LoopBound(self, loop: loop)
        Task {
            let response = await responder.respond(to: parsed)
            me.execute { $0.replyReady(id: id, response: response) }
        }
    }

    /// A handler's reply came back: send it.
    private func replyReady(id: UInt64, response: HTTPResponse) {
        guard let finished = pending.removeValue(forKey: id) else { return }
        context.inFlight.release()
        send(response, to: finished.request, log: finished.log)
        stopIfDrained()
    }

    func replyWritten(_ request: UnsafeMutablePointer<evhttp_request>) {
        if let connection = evhttp_request_get_connection(request) {
            writing.remove(connection)
            if let tracked = connections[connection] {
                let action = tracked.deadline.replyWritten(inputPending: tracked.inputPending)
                tracked.apply(action, timeout: context.configuration.requestReadTimeout)
                // The next request starts here; a pipelined one may be waiting in full already.
                tracked.screen = RequestHeadScreen(maxBodySize: context.configuration.maxBodySize)
                screen(tracked, from: 0)
            }
        }
        stopIfDrained()
    }

    func connectionClosed(_ connection: OpaquePointer) {
        writing.remove(connection)
        if let tracked = connections.removeValue(forKey: connection) {
            let left = tracked.detach()
            context.bufferedInput.add(-left.input)
            context.bufferedOutput.add(-left.output)
            context.admission.withLock { $0.closed(from: tracked.address) }
        }
        stopIfDrained()
    }

    /// A connection's bufferevent was created, with this output buffer.
    func connectionOpened(output buffer: OpaquePointer) {
        rejections.opened(buffer)
    }

    /// A connection was accepted with this bufferevent. evhttp sets up its connection right
    /// after this returns, so it is adopted once that is done: in the same pass of the loop,
    /// before any byte of it is read.
    func connectionAccepted(_ bufferevent: OpaquePointer) {
        bufferevent_incref(bufferevent)
        accepted.append(bufferevent)
        event_active(adopt, 0, 0)
    }

    /// Counts each connection just accepted and starts watching it, or refuses it as
    /// `ConnectionAdmission` decides (making room by closing an idle connection of the
    /// heaviest address when it says so).
    func adoptAccepted() {
        let batch = accepted
        accepted.removeAll(keepingCapacity: true)
        for bufferevent in batch {
            defer { bufferevent_decref(bufferevent) }
            // evhttp made its connection the bufferevent's callback argument; a connection
            // that failed and was freed already left none.
            var argument: UnsafeMutableRawPointer?
            bufferevent_getcb(bufferevent, nil, nil, nil, &argument)
            guard let argument else { continue }
            let connection = OpaquePointer(argument)
            let address = ConnectionAdmission.key(forPeer: Self.host(of: connection))
            switch context.admission.withLock({ $0.opened(from: address) }) {
            case .admit:
                break
            case .refuse(let refusal):
                refuse(connection, bufferevent: bufferevent, refusal)
                continue
            case .admitEvicting(let heaviest):
                // Only an idle connection of this loop's: one between requests, no reply pending.
                guard let idle = connections.values.first(where: {
                    $0.address == heaviest && $0.deadline.phase == .waiting && !writing.contains($0.connection)
                }) else {
                    context.admission.withLock { $0.evictionFailed(newcomer: address) }
                    refuse(connection, bufferevent: bufferevent, .serverFull)
                    continue
                }
                context.logger.info("connection closed: its address holds more than its share", [
                    "peer": Self.peer(of: idle.connection), "max_connections": String(context.configuration.maxConnections),
                ])
                evhttp_connection_free(idle.connection)  // calls connectionClosed
            }
            connections[connection] = TrackedConnection(
                listener: self, connection: connection, bufferevent: bufferevent, base: base, address: address,
                maxBodySize: context.configuration.maxBodySize)
            evhttp_connection_set_closecb(connection, httpConnectionClosedCallback, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// A connection's input buffer changed: bytes arrived (a request has begun) or libevent
    /// consumed some.
    func inputChanged(_ tracked: TrackedConnection, previousLength: Int, added: Int, deleted: Int) {
        context.bufferedInput.add(added - deleted)
        guard added > 0 else { return }
        if tracked.rejection != nil {
            tracked.discardInput()
            return
        }
        tracked.apply(tracked.deadline.bytesArrived(), timeout: context.configuration.requestReadTimeout)
        screen(tracked, from: previousLength)
    }

    /// Feeds the input from `offset` on to the current request's screen, while its head lasts.
    private func screen(_ tracked: TrackedConnection, from offset: Int) {
        guard tracked.screen.verdict == .incomplete else { return }
        guard case .rejected(let violation) = tracked.screenInput(from: offset) else { return }
        // This runs inside libevent's read (or its reply bookkeeping), so the connection is
        // only marked here: its input is dropped before libevent parses it, and it is
        // answered once libevent is done (`answerRejected`).
        tracked.rejection = violation
        tracked.discardInput()
        rejected.append(tracked)
        event_active(rejectWake, 0, 0)
    }

    /// Answers each rejected request 400 (413) with `Connection: close` and takes its
    /// connection from evhttp: the answer is written, the sending side shut, and what the
    /// client still sends dropped until it closes (or the request deadline passes), so the
    /// client reads the answer rather than a reset.
    func answerRejected() {
        let batch = rejected
        rejected.removeAll(keepingCapacity: true)
        for tracked in batch where connections[tracked.connection] === tracked {
            guard let violation = tracked.rejection,
                  let bufferevent = evhttp_connection_get_bufferevent(tracked.connection) else { continue }
            let answer = context.responder.response(to: violation.rejection(maxBodySize: context.configuration.maxBodySize))
            let requestID = RequestID.generate()
            bufferevent_setcb(bufferevent, nil, httpRejectedWriteCallback, httpRejectedEventCallback,
                              Unmanaged.passUnretained(tracked).toOpaque())
            sendingOwnReply = true
            _ = Self.closingAnswer(answer, requestID: requestID).withUnsafeBytes {
                bufferevent_write(bufferevent, $0.baseAddress, $0.count)
            }
            sendingOwnReply = false
            bufferevent_enable(bufferevent, Int16(EV_READ | EV_WRITE))
            context.logRequest(method: "-", path: "-", status: answer.status, started: .now, requestID: requestID,
                               extra: ["rejected_by": "screen", "reason": "\(violation)"])
        }
    }

    /// A rejected connection's answer is out: end the sending side, keep dropping input.
    func rejectionWritten(_ tracked: TrackedConnection) {
        guard let bufferevent = evhttp_connection_get_bufferevent(tracked.connection) else { return }
        shutdown(bufferevent_getfd(bufferevent), Int32(SHUT_WR))
    }

    /// A rejected connection's client closed (or it failed, or timed out): free it.
    func rejectedConnectionEnded(_ tracked: TrackedConnection) {
        guard connections[tracked.connection] === tracked else { return }
        evhttp_connection_free(tracked.connection)  // calls connectionClosed
    }

    /// A request did not arrive in full within `requestReadTimeout` of its first byte.
    func requestDeadlinePassed(_ tracked: TrackedConnection) {
        guard tracked.deadline.phase == .receiving else { return }
        if tracked.rejection == nil { logLateRequest(tracked) }
        evhttp_connection_free(tracked.connection)  // calls connectionClosed
    }

    private func logLateRequest(_ tracked: TrackedConnection) {
        context.logger.info("connection closed: request not received in time", [
            "peer": Self.peer(of: tracked.connection),
            "timeout_seconds": String(describing: context.configuration.requestReadTimeout.components.seconds),
        ])
    }

    /// Refused by `ConnectionAdmission`: a short 503 (`HTTPRejection.connectionRefused`) when the listener speaks
    /// plain HTTP, then the connection is closed.
    private func refuse(_ connection: OpaquePointer, bufferevent: OpaquePointer, _ refusal: ConnectionAdmission.Refusal) {
        let fd = bufferevent_getfd(bufferevent)
        if tls == nil, fd >= 0 {
            // Read what the client sent already, so closing does not reset the connection
            // under the answer.
            var scratch = [UInt8](repeating: 0, count: 4096)
            while scratch.withUnsafeMutableBytes({ recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }) > 0 {}
            let answer = Self.closingAnswer(context.responder.response(to: .connectionRefused(reason: Self.reason(for: refusal))))
            _ = answer.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        }
        context.logger.info("connection refused: \(Self.reason(for: refusal))", [
            "peer": Self.peer(of: connection), "max_connections": String(context.configuration.maxConnections),
            "max_connections_per_address": String(context.configuration.effectiveMaxConnectionsPerAddress),
        ])
        evhttp_connection_free(connection)
    }

    private static func reason(for refusal: ConnectionAdmission.Refusal) -> String {
        switch refusal {
        case .serverFull: "too many open connections"
        case .addressCap: "too many open connections from this address"
        case .fairShare: "too many open connections from this address while the server is near its limit"
        }
    }

    /// The whole answer to a connection we close after it, written without evhttp.
    private static func closingAnswer(_ answer: HTTPResponse, requestID: String? = nil) -> [UInt8] {
        let body = answer.body
        let phrase = switch answer.status {
        case 400: "Bad Request"
        case 413: "Content Too Large"
        default: "Service Unavailable"
        }
        var head = "HTTP/1.1 \(answer.status) \(phrase)\r\nContent-Type: \(answer.headers["Content-Type"] ?? "application/json")\r\n"
        head += "Content-Length: \(body.count)\r\n"
        if answer.status == 503 { head += "Retry-After: 1\r\n" }
        if let requestID { head += "X-Request-Id: \(requestID)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// Swaps libevent's own HTML error pages for the application's answer before they reach the socket.
    ///
    /// Called synchronously on every change of a connection's output buffer; libevent writes
    /// a whole page before the loop gets to write the socket, so the page is replaced in place.
    func outputChanged(_ buffer: OpaquePointer, previousLength: Int, added: Int, deleted: Int) {
        context.bufferedOutput.add(added - deleted)
        guard !rewriting else { return }
        if deleted > 0 { rejections.sent(buffer) }
        guard added > 0, !sendingOwnReply else { return }
        // A socket bufferevent freezes the start of its output after each write (only it may
        // drain it), and a frozen start also refuses copying out: thaw it while we work.
        evbuffer_unfreeze(buffer, 1)
        defer { evbuffer_freeze(buffer, 1) }
        var position = evbuffer_ptr()
        evbuffer_ptr_set(buffer, &position, previousLength, EVBUFFER_PTR_SET)
        let bytes = [UInt8](unsafeUninitializedCapacity: added) { storage, count in
            count = max(0, evbuffer_copyout_from(buffer, &position, storage.baseAddress, added))
        }
        let requestID = RequestID.generate()
        switch rejections.added(bytes, to: buffer, at: previousLength, requestID: requestID) {
        case .none:
            return
        case .dropAdded(let count):
            truncate(buffer, to: evbuffer_get_length(buffer) - count)
        case .replace(let start, let replacement, let status):
            truncate(buffer, to: start)
            rewriting = true
            replacement.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
            rewriting = false
            context.logRequest(method: "-", path: "-", status: status, started: .now, requestID: requestID,
                               extra: ["rejected_by": "libevent"])
        }
    }

    /// Cuts the buffer's end off, keeping its first `length` bytes (evbuffer only drains its front).
    private func truncate(_ buffer: OpaquePointer, to length: Int) {
        rewriting = true
        defer { rewriting = false }
        let kept = evbuffer_new()
        evbuffer_remove_buffer(buffer, kept, length)
        evbuffer_drain(buffer, evbuffer_get_length(buffer))
        evbuffer_add_buffer(buffer, kept)
        evbuffer_free(kept)
    }

    private func send(_ response: HTTPResponse, to request: UnsafeMutablePointer<evhttp_request>, log: RequestLog) {
        let status = (100...599).contains(response.status) ? response.status : 500
        // While a handler runs, libevent does not read the connection; if the client hung
        // up, the failed read or write detaches the request (its connection becomes nil) and
        // leaves freeing it to us.
        guard let connection = evhttp_request_get_connection(request) else {
            evhttp_request_free(request)
            context.logRequest(method: log.method, path: log.path, status: status, started: log.started,
                               requestID: log.requestID, extra: ["client_gone": "true"])
            return
        }
        let output = evhttp_request_get_output_headers(request)
        for (name, value) in response.headers {
            evhttp_add_header(output, name, value)
        }
        if !response.headers.contains("X-Request-Id") {
            evhttp_add_header(output, "X-Request-Id", log.requestID)
        }
        if !response.body.isEmpty, !response.headers.contains("Content-Type") {
            evhttp_add_header(output, "Content-Type", "application/json")
        }
        // A connection's last answer: the server is draining, or the connection has had its
        // share of requests (a client pipelining without reading answers then costs at most
        // that many handlings per connection, however much its and our kernels buffer).
        let answered = connections[connection].map { tracked in
            tracked.answered += 1
            return tracked.answered
        } ?? 0
        if draining || answered >= context.configuration.maxRequestsPerConnection {
            evhttp_remove_header(output, "Connection")
            evhttp_add_header(output, "Connection", "close")
        }
        // libevent 2.1 would send a HEAD reply's body: announce its length, send none.
        let isHead = log.method == "HEAD"
        if isHead, !response.headers.contains("Content-Length") {
            evhttp_add_header(output, "Content-Length", String(response.body.count))
        }
        let body = evbuffer_new()
        (isHead ? [] : response.body).withUnsafeBytes { bytes in
            if let address = bytes.baseAddress { _ = evbuffer_add(body, address, bytes.count) }
        }
        evhttp_request_set_on_complete_cb(request, httpReplyWrittenCallback, Unmanaged.passUnretained(self).toOpaque())
        writing.insert(connection)
        sendingOwnReply = true
        evhttp_send_reply(request, Int32(status), nil, body)
        sendingOwnReply = false
        evbuffer_free(body)
        // libevent keeps reading while it writes a reply (to notice a hang-up), with nobody
        // consuming what it reads: a client pipelining requests without reading the answers
        // would grow the input without bound. So nothing more is read from a connection
        // until its reply is written; libevent resumes reading then, for the next request.
        // A hang-up still shows as a failed write, a client that never reads as the write
        // timeout.
        if let bufferevent = evhttp_connection_get_bufferevent(connection) {
            bufferevent_disable(bufferevent, Int16(EV_READ))
        }
        context.logRequest(method: log.method, path: log.path, status: status, started: log.started,
                           requestID: log.requestID)
    }

    /// Once drained, frees the listener: from a job of its own, never from inside the
    /// libevent callback that found it drained.
    private func stopIfDrained() {
        if draining, !closed, pending.isEmpty, writing.isEmpty {
            closed = true
            LoopBound(self, loop: loop).execute { $0.close() }
        }
    }

    // MARK: - Reading libevent's request

    private static func methodName(_ command: evhttp_cmd_type) -> String {
        switch command {
        case EVHTTP_REQ_GET: "GET"
        case EVHTTP_REQ_POST: "POST"
        case EVHTTP_REQ_HEAD: "HEAD"
        case EVHTTP_REQ_PUT: "PUT"
        case EVHTTP_REQ_DELETE: "DELETE"
        case EVHTTP_REQ_OPTIONS: "OPTIONS"
        case EVHTTP_REQ_TRACE: "TRACE"
        case EVHTTP_REQ_CONNECT: "CONNECT"
        case EVHTTP_REQ_PATCH: "PATCH"
        default: "UNKNOWN"
        }
    }

    private static func headers(_ list: UnsafeMutablePointer<evkeyvalq>?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var entry = list?.pointee.tqh_first
        while let field = entry {
            if let key = field.pointee.key, let value = field.pointee.value {
                headers.add(name: String(cString: key), value: String(cString: value))
            }
            entry = field.pointee.next.tqe_next
        }
        return headers
    }

    private static func body(of request: UnsafeMutablePointer<evhttp_request>) -> [UInt8] {
        guard let input = evhttp_request_get_input_buffer(request) else { return [] }
        let length = evbuffer_get_length(input)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: length) { storage, count in
            count = max(0, evbuffer_copyout(input, storage.baseAddress, length))
        }
    }

    private static func peer(of connection: OpaquePointer) -> String {
        guard let (host, port) = endpoint(of: connection) else { return "" }
        return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The peer's numeric address, without its port.
    private static func host(of connection: OpaquePointer) -> String {
        endpoint(of: connection)?.host ?? ""
    }

    private static func endpoint(of connection: OpaquePointer) -> (host: String, port: UInt16)? {
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        return address.map { (String(cString: $0), port) }
    }
}
