/// The pool's bounded waiting room and its workers' lifecycle, as a pure state machine.
///
/// Items wait in FIFO order until a worker takes one; an item leaves the queue exactly once,
/// either to a worker (`next`) or back to its caller (`remove` on timeout, `close` never drops
/// items: queued work is finished before the workers exit).
struct PoolQueue<Item> {
    enum SubmitResult: Equatable {
        case queued
        /// `capacity` items are already waiting.
        case full
        /// The pool is closing and takes no new work.
        case closed
    }

    enum NextAction {
        case run(Item)
        /// Nothing to do yet: block until something is submitted or the pool closes.
        case wait
        /// The pool is closed and drained: the worker ends.
        case exit
    }

    let capacity: Int
    private var pending: [(id: UInt64, item: Item)] = []
    private var head = 0
    private(set) var isClosed = false
    private(set) var liveWorkers: Int

    init(capacity: Int, workers: Int) {
        precondition(capacity > 0 && workers > 0)
        self.capacity = capacity
        liveWorkers = workers
    }

    var waitingCount: Int { pending.count - head }

    mutating func submit(id: UInt64, _ item: Item) -> SubmitResult {
        if isClosed { return .closed }
        if waitingCount >= capacity { return .full }
        pending.append((id, item))
        return .queued
    }

    /// What a free worker does next.
    mutating func next() -> NextAction {
        if head < pending.count {
            let item = pending[head].item
            head += 1
            compact()
            return .run(item)
        }
        return isClosed ? .exit : .wait
    }

    /// Takes back an item that is still waiting (its acquire timeout passed); nil when a
    /// worker already took it.
    mutating func remove(id: UInt64) -> Item? {
        guard let index = pending[head...].firstIndex(where: { $0.id == id }) else { return nil }
        let item = pending.remove(at: index).item
        return item
    }

    mutating func close() {
        isClosed = true
    }

    /// A worker ended; true when it was the last one.
    mutating func workerExited() -> Bool {
        liveWorkers -= 1
        return liveWorkers == 0
    }

    /// Drops taken items from the front once they are the bulk of the array.
    private mutating func compact() {
        if head == pending.count {
            pending.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > pending.count {
            pending.removeFirst(head)
            head = 0
        }
    }
}
