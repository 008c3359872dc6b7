import Synchronization

/// Keeps the leases of the chunks a worker is sending: one loop extends them all, in one
/// statement, every third of a lease, however long a round takes (a slow APNs); otherwise
/// another worker would lease a chunk still being sent and send it again. One timer per
/// worker, not one per chunk: a targeted push costs no task and no timer of its own.
///
/// A chunk held is extended within a third of a lease of being leased (or sooner), as a
/// timer of its own would.
final class LeaseKeeper: Sendable {
    private let queue: ChunkQueue
    private let held = Mutex<Set<Int64>>([])
    private let wake = WakeSignal()
    private let stopping = Atomic<Bool>(false)

    init(queue: ChunkQueue) {
        self.queue = queue
    }

    /// The chunk is being worked on from now.
    func hold(_ chunk: LeasedChunk) {
        _ = held.withLock { $0.insert(chunk.id) }
    }

    /// The chunk is finished, given back, or left to run out.
    func drop(_ chunk: LeasedChunk) {
        _ = held.withLock { $0.remove(chunk.id) }
    }

    /// Extends the held leases until `stop()`.
    func run() async {
        let interval = Duration.seconds(max(1, queue.leaseSeconds / 3))
        while !stopping.load(ordering: .acquiring) {
            await wake.wait(timeout: interval)
            let chunks = held.withLock { Array($0) }
            guard !chunks.isEmpty, !stopping.load(ordering: .acquiring) else { continue }
            // A failure leaves the leases as they were; the next beat tries again.
            try? await queue.extend(chunks)
        }
    }

    /// Ends `run()`; call once no chunk is held any more.
    func stop() {
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }
}
