import Foundation
import Testing
@testable import PostgresStore

/// Group commit's decisions, without I/O.
@Suite struct CommitCoalescerTests {
    @Test func aCallerArrivingWithRoomRunsAtOnceAndOthersWaitForTheNextBatch() {
        var coalescer = CommitCoalescer<String>(maxInFlight: 2, maxBatch: 4)
        #expect(coalescer.arrive("a", items: 1) == ["a"])
        #expect(coalescer.arrive("b", items: 1) == ["b"])
        // Two transactions open: the rest wait.
        #expect(coalescer.arrive("c", items: 1) == nil)
        #expect(coalescer.arrive("d", items: 2) == nil)
        #expect(coalescer.arrive("e", items: 2) == nil)
        #expect(coalescer.inFlight == 2)
        // One ends: the waiting callers that fit in 4 items, in order, never split.
        #expect(coalescer.finished() == ["c", "d"])
        #expect(coalescer.finished() == ["e"])
        #expect(coalescer.inFlight == 2)
        // Nobody waits: each end closes a transaction.
        #expect(coalescer.finished() == nil)
        #expect(coalescer.finished() == nil)
        #expect(coalescer.inFlight == 0)
        // Idle again: the next caller runs at once, a group larger than a batch alone.
        #expect(coalescer.arrive("f", items: 9) == ["f"])
        #expect(coalescer.arrive("g", items: 9) == ["g"])
        #expect(coalescer.arrive("h", items: 9) == nil)
        #expect(coalescer.arrive("i", items: 1) == nil)
        #expect(coalescer.finished() == ["h"])
        #expect(coalescer.finished() == ["i"])
    }
}

/// Group commit against PostgreSQL: shared transactions, each caller its own answer.
@Suite(.serialized) struct GroupCommitTests {
    /// Inserts item $1 and answers its doubled value; -1 is a check that fails alone, 0 a
    /// statement that fails (division by zero) and aborts the transaction.
    private struct Refused: Error, Equatable {}

    private func committer(_ pool: PostgresPool) -> GroupCommit<Int, Int> {
        GroupCommit(pool: pool, maxInFlight: 1, maxBatch: 100,
                    performAll: { items, connection in
                        try GroupCommit<Int, Int>.each(items, perform: { item, connection in
                            if item == -1 { throw Refused() }
                            try connection.query("INSERT INTO group_commit_items (item) VALUES ($1::integer + 0 / $1::integer)", [item])
                            return item * 2
                        }, isOwnFailure: { $0 is Refused }, on: connection)
                    },
                    single: { item in
                        if item == -1 { throw Refused() }
                        try await pool.query("INSERT INTO group_commit_items (item) VALUES ($1::integer + 0 / $1::integer)", [item])
                        return item * 2
                    })
    }

    @Test func concurrentWritesShareCommitsAndEachGetsItsOwnAnswer() async throws {
        try await TestDatabase.withPool(size: 2) { pool, _ in
            try await pool.query("DROP TABLE IF EXISTS group_commit_items")
            try await pool.query("CREATE TABLE group_commit_items (item integer NOT NULL)")
            let group = committer(pool)
            let answers = await withTaskGroup(of: (Int, Result<Int, any Error>).self) { tasks in
                for item in [-1] + Array(1...60) {
                    tasks.addTask {
                        do { return (item, .success(try await group.write(item))) } catch { return (item, .failure(error)) }
                    }
                }
                return await tasks.reduce(into: [Int: Result<Int, any Error>]()) { $0[$1.0] = $1.1 }
            }
            for item in 1...60 { #expect(try answers[item]?.get() == item * 2) }
            #expect(throws: Refused.self) { try answers[-1]?.get() }
            let rows = try await pool.query("SELECT count(*) AS n, count(DISTINCT xmin::text) AS commits FROM group_commit_items")[0]
            #expect(try rows.int("n") == 60)
            // One transaction at a time: the callers that came meanwhile shared the next.
            #expect(try rows.int("commits") < 60)

            // A batch's failing statement rolls it back; each item then runs alone, so only
            // the bad one fails and nothing is written twice.
            let mixed = await group.write([70, 0, 80, -1])
            #expect(try mixed[0].get() == 140 && mixed[2].get() == 160)
            #expect(throws: PostgresError.self) { try mixed[1].get() }
            #expect(throws: Refused.self) { try mixed[3].get() }
            let kept = try await pool.query("SELECT item FROM group_commit_items WHERE item > 60 ORDER BY item").map { try $0.int("item") }
            #expect(kept == [70, 80])
            try await pool.query("DROP TABLE group_commit_items")
        }
    }
}
