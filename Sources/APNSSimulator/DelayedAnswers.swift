/// Answers held back by the network's latency, in due order. With a constant latency they
/// fall due in the order they were queued, and go to a FIFO; with jitter, one that falls due
/// before the FIFO's last goes to a binary min-heap, as on a real network. (A heap alone
/// sifted every answer through ~12 levels of 5,000 pending, copying each answer's strings on
/// the way: 5–6% of the simulator's loop, APNs 150 ms away.)
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

    /// Answers in due order from `head` on; those before it were taken out.
    private var inOrder: [Answer?] = []
    private var head = 0
    private var lastInOrderDue: UInt64 = 0
    private var heap: [Answer] = []

    var isEmpty: Bool { count == 0 }
    var count: Int { inOrder.count - head + heap.count }
    /// When the earliest falls due.
    var nextDue: UInt64? {
        switch (inOrderDue, heap.first?.due) {
        case let (fifo?, heap?): min(fifo, heap)
        case let (fifo, heap): fifo ?? heap
        }
    }

    private var inOrderDue: UInt64? { head < inOrder.count ? inOrder[head]?.due : nil }

    mutating func insert(_ answer: Answer) {
        if head == inOrder.count || answer.due >= lastInOrderDue {
            inOrder.append(answer)
            lastInOrderDue = answer.due
        } else {
            insertInHeap(answer)
        }
    }

    /// Removes and returns the earliest if it is due at `now`.
    mutating func popDue(now: UInt64) -> Answer? {
        if let due = inOrderDue, due <= now, heap.first.map({ due <= $0.due }) ?? true {
            return popInOrder()
        }
        return popHeap(now: now)
    }

    private mutating func popInOrder() -> Answer? {
        let answer = inOrder[head].take()
        head += 1
        if head == inOrder.count {
            inOrder.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096, head * 2 >= inOrder.count {
            inOrder.removeFirst(head)
            head = 0
        }
        return answer
    }

    private mutating func insertInHeap(_ answer: Answer) {
        heap.append(answer)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].due < heap[parent].due else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popHeap(now: UInt64) -> Answer? {
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
