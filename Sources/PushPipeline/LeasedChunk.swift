import PostgresStore

/// A chunk a worker holds: leased from `ChunkQueue` (or by a push's accepting statement,
/// `Handoff`), sent by `ChunkSender`, its lease kept until it is released or finished.
struct LeasedChunk: Sendable, Equatable {
    var id: Int64
    var messageID: Int64
    var appID: Int64
    var lane: Lane
    /// Leases taken so far, this one included; more than one means a re-send.
    var leases: Int
    /// Its devices' platform: what it is sent through.
    var platform = ChunkPlatform.ios
    /// Outcome writes of the chunk this holder has seen succeed. The chunk's row counts every
    /// write that commits: a count higher than this is a write whose success was lost with its
    /// connection (OutcomeWriter).
    var writes = 0

    /// A broadcast's database work waits behind API calls and targeted pushes.
    var priority: PostgresPriority { lane == .broadcast ? .bulk : .normal }
}
