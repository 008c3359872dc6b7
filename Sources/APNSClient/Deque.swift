/// A FIFO that can also take elements back at the front: requests waiting for a stream
/// (retries go back first) and tasks waiting for an in-flight slot.
///
/// A ring buffer, so appends and removals at both ends cost O(1) without moving elements.
struct Deque<Element> {
    private var slots: [Element?] = Array(repeating: nil, count: 16)
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ element: Element) {
        growIfFull()
        slots[(head + count) % slots.count] = element
        count += 1
    }

    /// Puts an element back at the front (a retry was queued before everything still waiting).
    mutating func prepend(_ element: Element) {
        growIfFull()
        head = (head - 1 + slots.count) % slots.count
        slots[head] = element
        count += 1
    }

    var first: Element? { count > 0 ? slots[head] : nil }

    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = slots[head]
        slots[head] = nil
        head = (head + 1) % slots.count
        count -= 1
        return element
    }

    /// Removes and returns every element for which `shouldRemove` is true, keeping the order of the rest.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) -> [Element] {
        var kept = Deque<Element>()
        var removed: [Element] = []
        while let element = popFirst() {
            if shouldRemove(element) { removed.append(element) } else { kept.append(element) }
        }
        self = kept
        return removed
    }

    private mutating func growIfFull() {
        guard count == slots.count else { return }
        var grown: [Element?] = Array(repeating: nil, count: slots.count * 2)
        for index in 0..<count { grown[index] = slots[(head + index) % slots.count] }
        slots = grown
        head = 0
    }
}
