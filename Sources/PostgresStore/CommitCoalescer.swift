/// Group commit's decisions: concurrent callers' writes share transactions. A caller arriving
/// while fewer than `maxInFlight` transactions are open starts one at once (no wait when the
/// queue is empty, so an idle write costs what it did alone); otherwise it waits, and the
/// next transaction to end starts one with every waiting caller up to `maxBatch` items. A
/// caller's items (a batch API's pushes) are never split. Pure: the caller runs the
/// transactions (`GroupCommit`).
struct CommitCoalescer<Waiter> {
    let maxInFlight: Int
    let maxBatch: Int
    private var waiting: [(waiter: Waiter, items: Int)] = []
    private var waitingHead = 0
    private(set) var inFlight = 0

    init(maxInFlight: Int, maxBatch: Int) {
        precondition(maxInFlight >= 1 && maxBatch >= 1)
        self.maxInFlight = maxInFlight
        self.maxBatch = maxBatch
    }

    /// A caller with `items` writes arrives.
    ///
    /// - Returns: the batch to run now (the caller alone), or nil: it waits for a
    ///   transaction to end.
    mutating func arrive(_ waiter: Waiter, items: Int) -> [Waiter]? {
        guard inFlight < maxInFlight else {
            waiting.append((waiter, items))
            return nil
        }
        inFlight += 1
        return [waiter]
    }

    /// A transaction ended (committed or not).
    ///
    /// - Returns: the next batch to run in its place (waiting callers in arrival order, as
    ///   many as fit in `maxBatch` items, at least one), or nil: nobody waits.
    mutating func finished() -> [Waiter]? {
        guard waitingHead < waiting.count else {
            inFlight -= 1
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
            return nil
        }
        var batch = [waiting[waitingHead].waiter]
        var items = waiting[waitingHead].items
        waitingHead += 1
        while waitingHead < waiting.count, items + waiting[waitingHead].items <= maxBatch {
            batch.append(waiting[waitingHead].waiter)
            items += waiting[waitingHead].items
            waitingHead += 1
        }
        if waitingHead == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            waitingHead = 0
        }
        return batch
    }
}
