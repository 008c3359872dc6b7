import CSystem

/// One accepted connection the loop counts and watches: its request-read deadline, the
/// timer that enforces it and the input-buffer callback that starts it.
///
/// Thread rule: made, used and detached on its loop's thread only. The loop's table holds
/// it until the connection closes; libevent's callbacks get it unretained.
final class TrackedConnection {
    /// The loop outlives its connections (all are freed by its `run()`).
    unowned let loop: EventLoop
    let connection: OpaquePointer
    var deadline = RequestReadDeadline()
    private let input: OpaquePointer?
    private var timer: OpaquePointer?
    private var inputCallback: OpaquePointer?

    /// - Parameters:
    ///   - connection: the `evhttp_connection`.
    ///   - bufferevent: its bufferevent, whose input is watched for a request's first byte.
    init(loop: EventLoop, connection: OpaquePointer, bufferevent: OpaquePointer, base: OpaquePointer) {
        self.loop = loop
        self.connection = connection
        input = bufferevent_get_input(bufferevent)
        let me = Unmanaged.passUnretained(self).toOpaque()
        timer = event_new(base, -1, 0, httpRequestDeadlineCallback, me)
        if let input { inputCallback = evbuffer_add_cb(input, httpInputCallback, me) }
    }

    /// Bytes are waiting in the connection's input.
    var inputPending: Bool { input.map { evbuffer_get_length($0) > 0 } ?? false }

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

    /// The connection is going away: no callback may reach this object any more.
    func detach() {
        if let input, let inputCallback { evbuffer_remove_cb_entry(input, inputCallback) }
        inputCallback = nil
        if let timer { event_free(timer) }
        timer = nil
    }
}
