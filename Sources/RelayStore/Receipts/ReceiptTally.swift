/// What `POST /client/v1/receipts` did with a batch: every receipt is counted in exactly one
/// of the three.
public struct ReceiptTally: Sendable, Equatable, Encodable {
    /// New receipts, now in the message's counters.
    public var recorded: Int
    /// Receipts already known (sent before, or twice in the batch): nothing changed.
    public var duplicates: Int
    /// Receipts for no message of the device's app (an unknown msg_id, another app's — the
    /// same answer, so nothing leaks), or for a message older than the retention.
    public var dropped: Int

    public init(recorded: Int, duplicates: Int, dropped: Int) {
        self.recorded = recorded
        self.duplicates = duplicates
        self.dropped = dropped
    }
}
