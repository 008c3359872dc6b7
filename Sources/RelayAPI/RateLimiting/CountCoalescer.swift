/// Coalesces one subject's concurrent request counts on this node into one upsert: while a
/// count of the subject is in flight, later requests wait, and the next upsert adds them all
/// at once. Under load a node then sends one statement per subject per round trip instead of
/// one per request, and its requests never queue on the subject's row lock behind each
/// other. Pure: the caller performs the upserts.
struct CountCoalescer<Waiter> {
    private var waiting: [String: [Waiter]] = [:]

    /// A request of `subject` arrives.
    ///
    /// - Returns: the batch to count now (the request alone), or nil: a count of the subject
    ///   is in flight, and the request waits for the next batch.
    mutating func arrive(_ subject: String, _ waiter: Waiter) -> [Waiter]? {
        if waiting[subject] != nil {
            waiting[subject]!.append(waiter)
            return nil
        }
        waiting[subject] = []
        return [waiter]
    }

    /// The subject's count in flight ended.
    ///
    /// - Returns: the next batch to count now (every request that waited, in arrival order),
    ///   or nil: none waited, and the subject is idle.
    mutating func finished(_ subject: String) -> [Waiter]? {
        guard let next = waiting[subject], !next.isEmpty else {
            waiting[subject] = nil
            return nil
        }
        waiting[subject] = []
        return next
    }
}
