import Testing
@testable import PostgresStore

/// The pool's queue as a state machine: no threads, no server.
@Suite("PoolQueue")
struct PoolQueueTests {
    private func taken(_ action: PoolQueue<String>.NextAction) -> String? {
        if case .run(let item) = action { return item }
        return nil
    }

    @Test("items run in FIFO order; an empty queue makes workers wait")
    func fifo() {
        var queue = PoolQueue<String>(capacity: 10, workers: 2)
        #expect(queue.submit("a") == .queued)
        #expect(queue.submit("b") == .queued)
        #expect(taken(queue.next()) == "a")
        #expect(taken(queue.next()) == "b")
        guard case .wait = queue.next() else { Issue.record("expected wait"); return }
    }

    @Test("a full queue refuses more; taking an item makes room")
    func bounded() {
        var queue = PoolQueue<String>(capacity: 2, workers: 1)
        #expect(queue.submit("a") == .queued)
        #expect(queue.submit("b") == .queued)
        #expect(queue.submit("c") == .full)
        _ = queue.next()
        #expect(queue.submit("d") == .queued)
        #expect(queue.waitingCount == 2)
    }

    @Test("waiting items expire once their deadline passed, oldest first; a taken one never does")
    func expire() {
        var queue = PoolQueue<String>(capacity: 10, workers: 2)
        _ = queue.submit("a", deadline: 10)
        _ = queue.submit("b", deadline: 20)
        _ = queue.submit("c", deadline: 30)
        _ = queue.submit("bulk", priority: .bulk, deadline: 15)
        #expect(taken(queue.next()) == "a")
        #expect(queue.nextDeadline == 15)
        #expect(queue.expire(now: 14).isEmpty)
        #expect(queue.expire(now: 20) == ["b", "bulk"])
        #expect(queue.expire(now: 20).isEmpty)
        #expect(queue.nextDeadline == 30)
        #expect(taken(queue.next()) == "c")
        #expect(queue.nextDeadline == nil)
        #expect(queue.expire(now: 100).isEmpty)
    }

    @Test("closing refuses new items but drains queued ones before workers exit")
    func close() {
        var queue = PoolQueue<String>(capacity: 10, workers: 2)
        _ = queue.submit("a")
        queue.close()
        #expect(queue.submit("b") == .closed)
        #expect(taken(queue.next()) == "a")
        guard case .exit = queue.next() else { Issue.record("expected exit"); return }
        #expect(queue.workerExited() == false)
        #expect(queue.workerExited() == true)
    }

    @Test("long runs stay FIFO across compaction")
    func compaction() {
        var queue = PoolQueue<Int>(capacity: 1000, workers: 1)
        var expected = 0
        for id in 0..<500 {
            #expect(queue.submit(id) == .queued)
            if id % 3 == 0, case .run(let item) = queue.next() {
                #expect(item == expected)
                expected += 1
            }
        }
        while case .run(let item) = queue.next() {
            #expect(item == expected)
            expected += 1
        }
        #expect(expected == 500)
    }

    @Test("normal items overtake waiting bulk items")
    func normalFirst() {
        var queue = PoolQueue<String>(capacity: 10, workers: 3)
        _ = queue.submit("bulk a", priority: .bulk)
        _ = queue.submit("bulk b", priority: .bulk)
        _ = queue.submit("normal", priority: .normal)
        #expect(taken(queue.next()) == "normal")
        #expect(taken(queue.next()) == "bulk a")
        #expect(taken(queue.next()) == "bulk b")
    }

    @Test("bulk items never take the last worker; finishing one lets the next run")
    func bulkLeavesAWorkerFree() {
        var queue = PoolQueue<String>(capacity: 10, workers: 3)
        for id in 1...4 { _ = queue.submit("bulk \(id)", priority: .bulk) }
        #expect(taken(queue.next()) == "bulk 1")
        #expect(taken(queue.next()) == "bulk 2")
        guard case .wait = queue.next() else { Issue.record("a third bulk item took the last worker"); return }
        _ = queue.submit("normal", priority: .normal)
        #expect(taken(queue.next()) == "normal", "the free worker serves a normal call at once")
        queue.finishedBulk()
        #expect(taken(queue.next()) == "bulk 3")
        #expect(queue.runningBulk == 2)
    }

    @Test("the bulk limit: one per core (maxBulk), never every worker, at least one")
    func bulkLimitOfPoolsAndCores() {
        // (workers, maxBulk as the core count) → bulk limit, hence a device import's partitions.
        for (workers, cores, limit) in [(8, 2, 2), (4, 2, 2), (4, 8, 3), (2, 2, 1), (1, 4, 1), (8, 1, 1)] {
            #expect(PoolQueue<String>(capacity: 1, workers: workers, maxBulk: cores).bulkLimit == limit, "\(workers) workers, \(cores) cores")
        }
    }

    @Test("bulk items run on at most maxBulk workers, however many there are")
    func bulkIsCappedByMaxBulk() {
        var queue = PoolQueue<String>(capacity: 10, workers: 4, maxBulk: 2)
        for id in 1...3 { _ = queue.submit("bulk \(id)", priority: .bulk) }
        #expect(taken(queue.next()) == "bulk 1")
        #expect(taken(queue.next()) == "bulk 2")
        guard case .wait = queue.next() else { Issue.record("a third bulk item ran with maxBulk 2"); return }
        _ = queue.submit("normal a", priority: .normal)
        _ = queue.submit("normal b", priority: .normal)
        #expect(taken(queue.next()) == "normal a")
        #expect(taken(queue.next()) == "normal b", "two workers left for normal calls")
        queue.finishedBulk()
        #expect(taken(queue.next()) == "bulk 3")
    }

    @Test("a one-worker pool still runs bulk items; closing drains both priorities")
    func singleWorkerAndClose() {
        var queue = PoolQueue<String>(capacity: 10, workers: 1)
        _ = queue.submit("bulk", priority: .bulk)
        _ = queue.submit("normal")
        queue.close()
        #expect(taken(queue.next()) == "normal")
        #expect(taken(queue.next()) == "bulk")
        queue.finishedBulk()
        guard case .exit = queue.next() else { Issue.record("expected exit"); return }
    }
}
