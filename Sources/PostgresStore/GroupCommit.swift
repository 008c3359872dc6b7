import CSystem
import Synchronization

/// Group commit: concurrent callers' writes of one kind run in shared transactions, one
/// `COMMIT` for all of them, and each caller is answered with its own result only after
/// that commit. `CommitCoalescer` decides what runs together; this runs it.
///
/// A batch of one runs `single` (the write as it runs alone: no transaction of its own to
/// open, so an idle write costs what it did before). A batch of more runs `performAll` in the
/// shared transaction: statements for the whole batch, or each item's own in turn (`each`). An
/// item's own failure (a check that wrote nothing, such as an audience matching nobody) is
/// that item's answer and the others go on; any error `performAll` throws rolls the
/// transaction back and every item of the batch runs `single` instead, so a bad item fails
/// alone. When the `COMMIT` itself fails nobody knows whether it took, so each item gets that
/// error (as a lone write would), none is run again.
public final class GroupCommit<Item: Sendable, Output: Sendable>: Sendable {
    public typealias Results = [Result<Output, any Error>]

    private struct Caller: Sendable {
        var items: [Item]
        var answer: CheckedContinuation<Results, Never>
    }

    private let pool: PostgresPool
    private let priority: PostgresPriority
    private let performAll: @Sendable ([Item], PostgresConnection) throws -> Results
    private let single: @Sendable (Item) async throws -> Output
    private let coalescer: Mutex<CommitCoalescer<Caller>>

    /// - Parameters:
    ///   - maxInFlight: transactions open at once (pool connections this may hold).
    ///   - maxBatch: items per transaction, except a single caller's larger group.
    ///   - performAll: the batch's statements inside the shared transaction, a result per
    ///     item in order; a failed item must have written nothing and left the transaction
    ///     usable, else throw.
    ///   - single: one item alone (its own transaction or statement, its own retries).
    public init(pool: PostgresPool, priority: PostgresPriority = .normal, maxInFlight: Int, maxBatch: Int,
                performAll: @escaping @Sendable ([Item], PostgresConnection) throws -> Results,
                single: @escaping @Sendable (Item) async throws -> Output) {
        self.pool = pool
        self.priority = priority
        self.performAll = performAll
        self.single = single
        coalescer = Mutex(CommitCoalescer(maxInFlight: maxInFlight, maxBatch: maxBatch))
    }

    /// Writes one item; answered after its transaction committed.
    public func write(_ item: Item) async throws -> Output {
        try await write([item])[0].get()
    }

    /// Writes a caller's items in one transaction (with others' when they fit), each with
    /// its own result, in order.
    public func write(_ items: [Item]) async -> Results {
        guard !items.isEmpty else { return [] }
        return await withCheckedContinuation { answer in
            let caller = Caller(items: items, answer: answer)
            if let batch = coalescer.withLock({ $0.arrive(caller, items: items.count) }) {
                Task { await drive(batch) }
            }
        }
    }

    /// Runs batches until nobody waits.
    private func drive(_ first: [Caller]) async {
        var batch = first
        while true {
            let results = await run(batch.flatMap(\.items))
            var offset = 0
            for caller in batch {
                caller.answer.resume(returning: Array(results[offset..<offset + caller.items.count]))
                offset += caller.items.count
            }
            guard let next = coalescer.withLock({ $0.finished() }) else { return }
            batch = next
        }
    }

    private func run(_ items: [Item]) async -> Results {
        if items.count > 1 {
            let shared: Results?
            do {
                shared = try await pool.withConnection(priority: priority) { [performAll] connection in
                    try Self.together(items, performAll: performAll, on: connection)
                }
            } catch {
                // Not started (no connection) or the COMMIT failed: the same answer for all.
                return items.map { _ in .failure(error) }
            }
            if let shared { return shared }
        }
        var results: Results = []
        for item in items {
            do { results.append(.success(try await single(item))) } catch { results.append(.failure(error)) }
        }
        return results
    }

    /// The items in one transaction; nil when a statement failed and it was rolled back.
    private static func together(_ items: [Item], performAll: ([Item], PostgresConnection) throws -> Results,
                                 on connection: PostgresConnection) throws -> Results? {
        try connection.query("BEGIN")
        let results: Results
        do {
            results = try performAll(items, connection)
            precondition(results.count == items.count, "a group commit answers each item once")
        } catch {
            connection.rollbackQuietly()
            return nil
        }
        try connection.query("COMMIT")
        return results
    }

    /// A `performAll` of items with statements of their own: each item's `perform` in turn.
    /// An error `isOwnFailure` accepts (it left the transaction usable and wrote nothing) is
    /// that item's answer; any other ends the batch.
    public static func each(_ items: [Item], perform: (Item, PostgresConnection) throws -> Output,
                             isOwnFailure: (any Error) -> Bool, on connection: PostgresConnection) throws -> Results {
        var results: Results = []
        results.reserveCapacity(items.count)
        for item in items {
            do {
                results.append(.success(try perform(item, connection)))
            } catch let error where isOwnFailure(error) && connection.transactionStatus == PQTRANS_INTRANS {
                results.append(.failure(error))
            }
        }
        return results
    }
}
