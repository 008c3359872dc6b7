import CSystem

/// One accepted connection the listener counts and watches: its source address, its
/// request-read deadline, the timer that enforces it and the input-buffer callback that
/// starts it (and counts the bytes buffered).
///
/// Thread rule: made, used and detached on its loop's thread only. The listener's table holds
/// it until the connection closes; libevent's callbacks get it unretained.
final class TrackedConnection {
    /// The listener outlives its connections (all are freed by its `close()`).
    unowned let listener: HTTPListener
    let connection: OpaquePointer
    /// The `ConnectionAdmission` key it is counted under.
    let address: String
    var deadline = RequestReadDeadline()
    /// The screen of the current request's head; a fresh one for each request.
    var screen: RequestHeadScreen
    /// Requests answered on this connection so far.
    var answered = 0
    /// Set once the screen rejected a request: what comes in is dropped until the connection closes.
    var rejection: RequestHeadScreen.Violation?
    private let input: OpaquePointer?
    private let output: OpaquePointer?
    private var timer: OpaquePointer?
    private var inputCallback: OpaquePointer?

    /// - Parameters:
    ///   - connection: the `evhttp_connection`.
    ///   - bufferevent: its bufferevent, whose input is watched for a request's first byte.
    init(listener: HTTPListener, connection: OpaquePointer, bufferevent: OpaquePointer, base: OpaquePointer, address: String,
         maxBodySize: Int) {
        self.listener = listener
        self.connection = connection
        self.address = address
        screen = RequestHeadScreen(maxBodySize: maxBodySize)
        input = bufferevent_get_input(bufferevent)
        output = bufferevent_get_output(bufferevent)
        let me = Unmanaged.passUnretained(self).toOpaque()
        timer = event_new(base, -1, 0, httpRequestDeadlineCallback, me)
        if let input { inputCallback = evbuffer_add_cb(input, httpInputCallback, me) }
    }

    /// Bytes are waiting in the connection's input.
    var inputPending: Bool { input.map { evbuffer_get_length($0) > 0 } ?? false }

    /// Feeds the input's bytes from `offset` on to `screen`, in place, until it decides.
    func screenInput(from offset: Int) -> RequestHeadScreen.Verdict {
        guard let input, evbuffer_get_length(input) > offset else { return screen.verdict }
        var position = evbuffer_ptr()
        guard evbuffer_ptr_set(input, &position, offset, EVBUFFER_PTR_SET) == 0 else { return screen.verdict }
        let count = evbuffer_peek(input, -1, &position, nil, 0)
        guard count > 0 else { return screen.verdict }
        var vectors = [iovec](repeating: iovec(), count: Int(count))
        let filled = evbuffer_peek(input, -1, &position, &vectors, count)
        for vector in vectors.prefix(Int(filled)) where screen.verdict == .incomplete {
            guard let start = vector.iov_base else { continue }
            _ = screen.feed(UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: vector.iov_len))
        }
        return screen.verdict
    }

    /// Drops whatever the input holds, before libevent parses it.
    func discardInput() {
        guard let input else { return }
        evbuffer_drain(input, evbuffer_get_length(input))
    }

    /// Starts or stops the timer as the deadline's action says.
    func apply(_ action: RequestReadDeadline.Action, timeout: Duration) {
        guard let timer else { return }
        switch action {
        case .none:
            return
        case .arm:
            let (seconds, attoseconds) = timeout.components
            var interval = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
            event_add(timer, &interval)
        case .disarm:
            event_del(timer)
        }
    }

    /// The connection is going away: no callback may reach this object (nor its output's
    /// callback the listener) any more.
    ///
    /// - Returns: the bytes its buffers still hold, freed with it unannounced.
    func detach() -> (input: Int, output: Int) {
        if let input, let inputCallback { evbuffer_remove_cb_entry(input, inputCallback) }
        inputCallback = nil
        if let output { evbuffer_remove_cb(output, httpOutputCallback, Unmanaged.passUnretained(listener).toOpaque()) }
        if let timer { event_free(timer) }
        timer = nil
        return (input.map { evbuffer_get_length($0) } ?? 0, output.map { evbuffer_get_length($0) } ?? 0)
    }
}
