/// A pool's requests waiting for a stream: every urgent one (a single user's push) before
/// every other (a broadcast's), each kind in the order it came, so a push made during a
/// broadcast of the same app waits for a free stream, not for the broadcast's backlog.
struct RequestQueue {
    private var urgent = Deque<PendingRequest>()
    private var inTurn = Deque<PendingRequest>()

    var isEmpty: Bool { urgent.isEmpty && inTurn.isEmpty }

    mutating func append(_ request: PendingRequest) {
        if request.urgent { urgent.append(request) } else { inTurn.append(request) }
    }

    /// Puts a request back at the head of its kind (it goes out again next).
    mutating func prepend(_ request: PendingRequest) {
        if request.urgent { urgent.prepend(request) } else { inTurn.prepend(request) }
    }

    mutating func popFirst() -> PendingRequest? {
        urgent.popFirst() ?? inTurn.popFirst()
    }

    /// Removes and returns the requests `shouldRemove` picks, urgent ones first.
    mutating func removeAll(where shouldRemove: (PendingRequest) -> Bool) -> [PendingRequest] {
        urgent.removeAll(where: shouldRemove) + inTurn.removeAll(where: shouldRemove)
    }
}
