import CSystem

// libevent calls these plain C functions on the loop's thread; `arg` is the unretained
// `HTTPListener`, which outlives its evhttp, connections and events (all freed by its `close()`).

private func listener(_ arg: UnsafeMutableRawPointer?) -> HTTPListener {
    Unmanaged<HTTPListener>.fromOpaque(arg!).takeUnretainedValue()
}

/// evhttp's generic callback: a request has been read completely.
func httpRequestCallback(_ request: UnsafeMutablePointer<evhttp_request>?, _ arg: UnsafeMutableRawPointer?) {
    guard let request else { return }
    listener(arg).handle(request)
}

/// Creates each accepted connection's bufferevent, so its output can be watched.
func httpBuffereventCallback(_ base: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) -> OpaquePointer? {
    let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue)
    let made: OpaquePointer?
    if let tls = listener(arg).tls {
        // The TLS bufferevent owns the SSL (freed with it); evhttp reads and writes plaintext.
        guard let ssl = tls.makeConnection() else { return nil }
        made = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_ACCEPTING, options)
        if made == nil { SSL_free(ssl) }
    } else {
        made = bufferevent_socket_new(base, -1, options)
    }
    guard let bufferevent = made else { return nil }
    listener(arg).connectionAccepted(bufferevent)
    if let output = bufferevent_get_output(bufferevent) {
        listener(arg).connectionOpened(output: output)
        evbuffer_add_cb(output, httpOutputCallback, arg)
    }
    return bufferevent
}

/// Runs synchronously whenever a connection's output buffer changes.
func httpOutputCallback(_ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?, _ arg: UnsafeMutableRawPointer?) {
    guard let buffer, let info else { return }
    listener(arg).outputChanged(buffer, previousLength: Int(info.pointee.orig_size),
                            added: Int(info.pointee.n_added), deleted: Int(info.pointee.n_deleted))
}

/// A reply has been written out completely.
func httpReplyWrittenCallback(_ request: UnsafeMutablePointer<evhttp_request>?, _ arg: UnsafeMutableRawPointer?) {
    guard let request else { return }
    listener(arg).replyWritten(request)
}

/// A connection is being freed (client hang-up, write failure, or `Connection: close`).
func httpConnectionClosedCallback(_ connection: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let connection else { return }
    listener(arg).connectionClosed(connection)
}

/// Connections were accepted in this pass of the loop: count and watch them.
func httpAdoptCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    listener(arg).adoptAccepted()
}

/// A watched connection's input buffer changed (`arg` is its unretained `TrackedConnection`).
func httpInputCallback(_ buffer: OpaquePointer?, _ info: UnsafePointer<evbuffer_cb_info>?, _ arg: UnsafeMutableRawPointer?) {
    guard let info, let arg else { return }
    let tracked = Unmanaged<TrackedConnection>.fromOpaque(arg).takeUnretainedValue()
    tracked.listener.inputChanged(tracked, previousLength: Int(info.pointee.orig_size),
                              added: Int(info.pointee.n_added), deleted: Int(info.pointee.n_deleted))
}

/// A watched connection's request deadline passed.
func httpRequestDeadlineCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let tracked = Unmanaged<TrackedConnection>.fromOpaque(arg).takeUnretainedValue()
    tracked.listener.requestDeadlinePassed(tracked)
}

/// Connections whose request the screen rejected wait for the loop to answer them.
func httpRejectCallback(_ fd: Int32, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    listener(arg).answerRejected()
}

/// A rejected connection's answer has been written (`arg` is its unretained `TrackedConnection`).
func httpRejectedWriteCallback(_ bufferevent: OpaquePointer?, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let tracked = Unmanaged<TrackedConnection>.fromOpaque(arg).takeUnretainedValue()
    tracked.listener.rejectionWritten(tracked)
}

/// A rejected connection was closed by its client, failed or timed out.
func httpRejectedEventCallback(_ bufferevent: OpaquePointer?, _ what: Int16, _ arg: UnsafeMutableRawPointer?) {
    guard let arg else { return }
    let tracked = Unmanaged<TrackedConnection>.fromOpaque(arg).takeUnretainedValue()
    tracked.listener.rejectedConnectionEnded(tracked)
}
