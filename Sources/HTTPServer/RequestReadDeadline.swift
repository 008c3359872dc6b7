/// When a connection's request must have arrived in full.
///
/// libevent's read timeout restarts on every byte, so a client trickling its headers a
/// byte at a time would hold a connection forever. This deadline starts with the first byte
/// of a request and ends only when the request, headers and body, is complete; an idle
/// connection (no byte of a request yet) is left to evhttp's idle timeout. Pure: the loop
/// turns each `Action` into adding or deleting its timer.
struct RequestReadDeadline: Equatable {
    enum Phase: Equatable {
        /// Between requests: nothing received yet.
        case waiting
        /// Part of a request has arrived: the timer runs.
        case receiving
        /// The request is with its handler; libevent reads nothing more until the reply.
        case handling
    }

    enum Action: Equatable {
        case none
        /// Start the timer, from now.
        case arm
        /// Stop the timer.
        case disarm
    }

    private(set) var phase = Phase.waiting

    /// Bytes were added to the connection's input.
    mutating func bytesArrived() -> Action {
        guard phase == .waiting else { return .none }
        phase = .receiving
        return .arm
    }

    /// libevent has read the whole request and handed it to us.
    mutating func requestComplete() -> Action {
        let before = phase
        phase = .handling
        return before == .receiving ? .disarm : .none
    }

    /// Our reply has been written; the connection stays open for the next request.
    ///
    /// - Parameters:
    ///   - inputPending: bytes of a next (pipelined) request already wait in the input,
    ///     so it has begun and its deadline starts now.
    mutating func replyWritten(inputPending: Bool) -> Action {
        guard phase == .handling else { return .none }
        phase = inputPending ? .receiving : .waiting
        return inputPending ? .arm : .none
    }
}
