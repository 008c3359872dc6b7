import Synchronization

/// What a push's accepting statement can lease a targeted chunk to, with no NOTIFY, wake-up
/// and lease between: the worker of the same process (`PushWorker`). All `MessageStore`
/// knows of it.
public protocol HandoffReceiver: Sendable {
    /// A reserved targeted slot; nil when every slot is busy or the worker stops.
    func reserveHandoff() -> Handoff?
}

/// A reserved targeted slot: what the accepting statement leases a chunk to, and the way
/// the chunk (or nothing) comes back to the receiver, exactly once.
public final class Handoff: Sendable {
    let owner: String
    let leaseSeconds: Int
    private let take: @Sendable ((chunk: LeasedChunk, loaded: LoadedChunk)?) -> Void
    private let settled = Atomic<Bool>(false)

    /// - Parameter take: gets the leased chunk to send, or nil to give the slot back.
    init(owner: String, leaseSeconds: Int, take: @escaping @Sendable ((chunk: LeasedChunk, loaded: LoadedChunk)?) -> Void) {
        self.owner = owner
        self.leaseSeconds = leaseSeconds
        self.take = take
    }

    /// Starts the leased chunk, or gives the slot back (`nil`); later calls do nothing.
    func settle(_ handed: (chunk: LeasedChunk, loaded: LoadedChunk)?) {
        guard !settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        take(handed)
    }
}
