/// A FIFO of requests waiting for a stream, where retries go back in at the front.
///
/// A ring buffer, so appends and removals at both ends cost O(1) without moving elements.
struct RequestQueue {
    private var slots: [PendingRequest?] = Array(repeating: nil, count: 16)
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ request: PendingRequest) {
        growIfFull()
        slots[(head + count) % slots.count] = request
        count += 1
    }

    /// Puts a request back at the front: it was queued before everything still waiting.
    mutating func prepend(_ request: PendingRequest) {
        growIfFull()
        head = (head - 1 + slots.count) % slots.count
        slots[head] = request
        count += 1
    }

    mutating func popFirst() -> PendingRequest? {
        guard count > 0 else { return nil }
        let request = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return request
    }

    /// Removes and returns every request for which `shouldRemove` is true, keeping the order of the rest.
    mutating func removeAll(where shouldRemove: (PendingRequest) -> Bool) -> [PendingRequest] {
        var kept = RequestQueue()
        var removed: [PendingRequest] = []
        while let request = popFirst() {
            if shouldRemove(request) { removed.append(request) } else { kept.append(request) }
        }
        self = kept
        return removed
    }

    private mutating func growIfFull() {
        guard count == slots.count else { return }
        var grown: [PendingRequest?] = Array(repeating: nil, count: slots.count * 2)
        for index in 0..<count { grown[index] = slots[(head + index) % slots.count] }
        slots = grown
        head = 0
    }
}
