/// How urgent a pool call is.
public enum PostgresPriority: Sendable, Equatable {
    /// Requests someone waits for (API calls, targeted pushes): served first.
    case normal
    /// Bulk work (broadcast fan-out): served after every waiting `.normal` call, never on
    /// every thread at once (a normal call finds a thread without waiting for bulk work), and
    /// on at most `PostgresPoolConfiguration.maxBulk` threads.
    case bulk
}

/// The pool's bounded waiting room and its workers' lifecycle, as a pure state machine.
///
/// Items wait in FIFO order per priority until a worker takes one: `.normal` items first;
/// `.bulk` items run on at most `bulkLimit` workers at once. An item leaves the queue exactly
/// once, either to a worker (`next`) or back to its caller (`expire` once its deadline passed;
/// `close` never drops items: queued work is finished before the workers exit).
///
/// Deadlines are instants on one monotonic clock, and every item of a queue waits as long, so
/// within each priority they grow in submission order: the oldest item is the first to expire.
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
        /// Nothing to do yet: block until something is submitted, a bulk item finishes or
        /// the pool closes.
        case wait
        /// The pool is closed and drained: the worker ends.
        case exit
    }

    let capacity: Int
    /// Workers that may run bulk items at once: at most `maxBulk`, and all but one (one when
    /// there is one).
    let bulkLimit: Int
    private var normal = Fifo<Item>()
    private var bulk = Fifo<Item>()
    private(set) var runningBulk = 0
    private(set) var isClosed = false
    private(set) var liveWorkers: Int

    init(capacity: Int, workers: Int, maxBulk: Int = .max) {
        precondition(capacity > 0 && workers > 0 && maxBulk > 0)
        self.capacity = capacity
        bulkLimit = max(1, min(workers - 1, maxBulk))
        liveWorkers = workers
    }

    var waitingCount: Int { normal.count + bulk.count }

    /// - Parameter deadline: when the item gives up waiting (no earlier than the deadlines
    ///   of the items submitted before it).
    mutating func submit(_ item: Item, priority: PostgresPriority = .normal, deadline: UInt64 = .max) -> SubmitResult {
        if isClosed { return .closed }
        if waitingCount >= capacity { return .full }
        switch priority {
        case .normal: normal.append(item, deadline: deadline)
        case .bulk: bulk.append(item, deadline: deadline)
        }
        return .queued
    }

    /// What a free worker does next. A bulk item it takes must be reported with
    /// `finishedBulk()` when it has run.
    mutating func next() -> NextAction {
        if let item = normal.popFirst() { return .run(item) }
        if runningBulk < bulkLimit, let item = bulk.popFirst() {
            runningBulk += 1
            return .run(item)
        }
        return isClosed && waitingCount == 0 ? .exit : .wait
    }

    mutating func finishedBulk() {
        precondition(runningBulk > 0, "no bulk item is running")
        runningBulk -= 1
    }

    /// Takes back the waiting items whose deadline is `now` or earlier, oldest first.
    mutating func expire(now: UInt64) -> [Item] {
        normal.popExpired(now: now) + bulk.popExpired(now: now)
    }

    /// The earliest deadline of a waiting item: when `expire` next has something to take.
    var nextDeadline: UInt64? {
        [normal.firstDeadline, bulk.firstDeadline].compactMap { $0 }.min()
    }

    mutating func close() {
        isClosed = true
    }

    /// A worker ended; true when it was the last one.
    mutating func workerExited() -> Bool {
        liveWorkers -= 1
        return liveWorkers == 0
    }
}

/// A FIFO of items with their deadlines, which drops taken ones from its front in batches.
private struct Fifo<Item> {
    private var items: [(deadline: UInt64, item: Item)] = []
    private var head = 0

    var count: Int { items.count - head }

    var firstDeadline: UInt64? { head < items.count ? items[head].deadline : nil }

    mutating func append(_ item: Item, deadline: UInt64) {
        items.append((deadline, item))
    }

    mutating func popFirst() -> Item? {
        guard head < items.count else { return nil }
        let item = items[head].item
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return item
    }

    mutating func popExpired(now: UInt64) -> [Item] {
        var expired: [Item] = []
        while let deadline = firstDeadline, deadline <= now, let item = popFirst() { expired.append(item) }
        return expired
    }
}
