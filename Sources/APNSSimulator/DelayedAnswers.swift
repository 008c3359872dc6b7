/// Answers held back by the network's latency, in due order: a binary min-heap, since
/// with jitter they fall due in another order than they were queued (as on a real network).
/// PING acknowledgements are held back too, so a client measures the same round trip with
/// a PING as with a request.
struct DelayedAnswers {
    struct Answer {
        enum Frame {
            case response(streamID: Int32, SimulatorResponse, apnsID: String)
            /// The answer to an HTTP/1.1 connection's one outstanding request.
            case http1(SimulatorResponse)
            /// The PING's opaque data, sent back.
            case pingAck(UInt64)
        }

        var due: UInt64
        var frame: Frame
    }

    private var heap: [Answer] = []

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    /// When the earliest falls due.
    var nextDue: UInt64? { heap.first?.due }

    mutating func insert(_ answer: Answer) {
        heap.append(answer)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest if it is due at `now`.
    mutating func popDue(now: UInt64) -> Answer? {
        guard let first = heap.first, first.due <= now else { return nil }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return first }
        heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { return first }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
