/// The receipts not yet reported, oldest first: bounded, one per message and event, sent
/// in batches.
///
/// Pure: `PushRelayReceipts` sends what `nextBatch()` gives and hands the answer back to
/// `settle(_:_:)`, which says what to do next. Kept in storage the app and its Notification
/// Service Extension share (`ReceiptQueueStore`), so it is Codable.
public struct ReceiptQueue: Sendable, Codable, Equatable {
    /// The relay's limit per request.
    public static let maxBatch = 100

    public private(set) var receipts: [Receipt] = []
    /// The size of the next batch: `maxBatch`, halved after a refused batch and doubled after
    /// one that went through, until the receipt the relay refuses is alone and dropped.
    public private(set) var batchLimit = ReceiptQueue.maxBatch

    public init() {}

    /// What the relay's answer to a batch means for it.
    public enum Outcome: Sendable, Equatable {
        /// Recorded (or known already, or dropped as too old): done with.
        case accepted
        /// 400: the batch is malformed and will never be taken as it is.
        case refused
        /// 401/403: the device secret is not (or no longer) this device's.
        case unauthorized
        /// No answer, 429, 5xx: the same batch may go through later.
        case failed

        public init(_ error: PushRelayError) {
            switch error {
            case _ where error.isTransient: self = .failed
            case .api(let status, _, _, _) where status == 401 || status == 403: self = .unauthorized
            default: self = .refused
            }
        }
    }

    /// What to do after a batch was settled.
    public enum Next: Sendable, Equatable {
        /// Send the next batch now (none left: the queue is empty).
        case send
        /// Renew the device secret, then send again.
        case renewSecret
        /// Wait (backoff), then send again.
        case retryLater
    }

    /// Queues a receipt. One already queued for the same message and event stays (the first
    /// time counts); past `capacity` the oldest are dropped.
    ///
    /// - Returns: the receipts dropped to stay within `capacity`.
    @discardableResult
    public mutating func add(_ receipt: Receipt, capacity: Int = 500) -> [Receipt] {
        guard !receipts.contains(where: { $0.key == receipt.key }) else { return [] }
        receipts.append(receipt)
        let excess = receipts.count - max(1, capacity)
        guard excess > 0 else { return [] }
        defer { receipts.removeFirst(excess) }
        return Array(receipts.prefix(excess))
    }

    /// The receipts to send next, oldest first; empty when there are none.
    public func nextBatch() -> [Receipt] {
        Array(receipts.prefix(batchLimit))
    }

    /// Takes the relay's answer to `batch`. Receipts are matched by message and event, so a
    /// queue another process changed meanwhile is settled right.
    public mutating func settle(_ batch: [Receipt], _ outcome: Outcome) -> Next {
        switch outcome {
        case .accepted:
            remove(batch)
            batchLimit = min(Self.maxBatch, batchLimit * 2)
            return .send
        case .refused where batch.count <= 1:
            // Alone and refused: never retried.
            remove(batch)
            batchLimit = Self.maxBatch
            return .send
        case .refused:
            batchLimit = max(1, batch.count / 2)
            return .send
        case .unauthorized:
            return .renewSecret
        case .failed:
            return .retryLater
        }
    }

    private mutating func remove(_ batch: [Receipt]) {
        let keys = Set(batch.map(\.key))
        receipts.removeAll { keys.contains($0.key) }
    }
}
