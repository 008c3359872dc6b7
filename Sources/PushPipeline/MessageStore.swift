import Foundation
import PostgresStore
import PushCore
import RelayCore
import Synchronization

/// Accepts pushes into the `messages` table and withdraws them: the API's half of the
/// pipeline.
///
/// Accepting is one statement: the message row with its body, the check that someone is
/// targeted (1011 otherwise), and for targeted pushes (alias, registration_id) every chunk
/// of their small audience and the NOTIFY, so a worker woken by it sends at once. Broadcasts
/// and tag pushes are left `resolving`, for workers to cut into chunks.
///
/// On a node that also sends (`handoffs`: its worker), a targeted push of one chunk skips the NOTIFY: the
/// accepting statement leases the chunk to that worker and reads what it needs, and the
/// worker sends it as soon as the statement is committed.
///
/// Concurrent pushes share a transaction (`GroupCommit`): under load one commit (and one
/// NOTIFY: PostgreSQL sends a transaction's equal notifications once) carries many pushes;
/// an idle push still runs its statement alone.
public final class MessageStore: Sendable {
    private let pool: PostgresPool
    private let acceptor: Acceptor
    /// The worker of this process, if it runs one.
    private let handoffs: (any HandoffReceiver)?
    private let accepts: GroupCommit<Pending, Stored>

    public init(pool: PostgresPool, chunkSize: Int = PipelineConfiguration.defaultChunkSize, inlineLimit: Int = 20_000,
                handoffs: (any HandoffReceiver)? = nil) {
        self.pool = pool
        acceptor = Acceptor(pool: pool, chunkMaker: ChunkMaker(chunkSize: chunkSize), inlineLimit: inlineLimit)
        self.handoffs = handoffs
        accepts = Self.groupCommit(acceptor, pool: pool)
    }

    /// A fresh msg_id (also the placeholder `/v3/push/validate` answers with).
    public func nextMessageID() -> MessageID {
        acceptor.nextMessageID()
    }

    /// The answer to an accepted push.
    public struct Accepted: Sendable, Equatable {
        public var msgID: MessageID
        public var sendno: Int
        /// False when the cid was seen before and this is the first push's answer again.
        public var isNew: Bool
    }

    /// A push to persist, with the local worker's slot it may be leased to.
    public struct Submission: Sendable {
        public var appID: Int64
        public var request: PushRequest
        public var body: [UInt8]

        public init(appID: Int64, request: PushRequest, body: [UInt8]) {
            self.appID = appID
            self.request = request
            self.body = body
        }
    }

    private struct Pending: Sendable {
        var submission: Submission
        var handoff: Handoff?
    }

    /// A persisted push, and the chunk leased to the local worker by its statement.
    private struct Stored: Sendable {
        var accepted: Accepted
        var handed: (chunk: LeasedChunk, loaded: LoadedChunk)?
    }

    /// Persists a validated push; answered once it is committed (with others' accepted
    /// meanwhile, `GroupCommit`).
    ///
    /// - Parameters:
    ///   - appID: the app pushing.
    ///   - request: the validated push (`PushRequest.parse(body)`).
    ///   - body: the body as received, stored so workers rebuild the request from it.
    /// - Throws: `JPushError` 1011 (with the msg_id) when no active device matches; a
    ///   `PostgresError` when the database fails.
    public func accept(appID: Int64, request: PushRequest, body: [UInt8]) async throws -> Accepted {
        try await acceptAll([Submission(appID: appID, request: request, body: body)])[0].get()
    }

    /// Persists validated pushes (a batch API's) in one transaction, each with its own
    /// answer, in order: its msg_id, or its own error (as `accept` throws it).
    public func acceptAll(_ submissions: [Submission]) async -> [Result<Accepted, any Error>] {
        let pending = submissions.map { submission in
            let request = submission.request
            return Pending(submission: submission,
                           handoff: AudiencePlatforms(request) != nil && Self.cutOnAccept(request) ? handoffs?.reserveHandoff() : nil)
        }
        let results = await accepts.write(pending)
        // A reserved slot gets its chunk only now, the transaction committed (on this task:
        // sending does not wait for the caller to resume), or is given back when nothing was
        // leased or the push failed.
        return zip(pending, results).map { pending, result in
            pending.handoff?.settle(try? result.get().handed)
            return result.map(\.accepted)
        }
    }

    /// Concurrent pushes share a transaction: as many open at once as the pool has
    /// connections, up to 256 pushes each; the targeted pushes of a batch share statements
    /// (`TargetedBatch`).
    private static func groupCommit(_ acceptor: Acceptor, pool: PostgresPool) -> GroupCommit<Pending, Stored> {
        GroupCommit(pool: pool, maxInFlight: pool.size, maxBatch: 256,
                    performAll: { pending, connection in try acceptor.accept(pending, on: connection) },
                    single: { pending in try await acceptor.acceptAlone(pending) })
    }

    /// Persists a validated push on `connection`, inside the caller's transaction: the
    /// scheduler accepts an occurrence's push in the transaction that records the occurrence.
    ///
    /// - Throws: like `accept(appID:request:body:)`, and a `PostgresError` 23505 on
    ///   `messages_pkey` when the msg_id drawn was taken (roll back to a savepoint, call again).
    public func accept(appID: Int64, request: PushRequest, body: [UInt8], on connection: PostgresConnection) throws -> Accepted {
        try acceptor.accept(id: acceptor.nextMessageID(), appID: appID, request: request, body: String(decoding: body, as: UTF8.self),
                            handoff: nil, on: connection).accepted
    }

    /// Whether a push is cut into chunks as it is accepted, in the targeted lane: one naming
    /// devices, or a Live Activity update or end (the activity's devices are few, found from
    /// its tokens, and the update is urgent whatever the audience).
    static func cutOnAccept(_ request: PushRequest) -> Bool {
        request.audience.isTargeted || AudiencePlatforms(request) == .liveActivity
    }

    /// JPush's answer to a push whose audience matched no active device.
    static func noTarget(_ id: MessageID) -> JPushError {
        JPushError(status: 400, code: 1011, message: "cannot find user by this audience or has been inactive for too long", msgID: id.description)
    }

    /// The collapse id of the message an `options.override_msg_id` names, among the app's.
    ///
    /// - Throws: 1003 when the app has no such message (JPush: not a valid override).
    private static func collapseID(of overridden: MessageID, appID: Int64, on connection: PostgresConnection) throws -> String {
        guard let row = try connection.preparedQuery(AudienceStatements.overridden, [overridden.rawValue, appID]).first else {
            throw JPushError.illegalValue("options.override_msg_id: this app has no message \(overridden) to override")
        }
        if let stored = row["collapse_id"] { return stored }
        // Accepted before migration 0035: what its re-sends carried.
        let options = (try? PushRequest.parseStored(Array(try row.string("body").utf8)))?.options ?? PushOptions()
        return CollapseID.of(options, msgID: overridden, overridden: nil)
    }

    static func existing(appID: Int64, cid: String, on connection: PostgresConnection) throws -> Accepted? {
        guard let row = try connection.preparedQuery(AudienceStatements.acceptedByCID, [appID, cid]).first,
              let id = MessageID(rawValue: Int64(try row.int("id")))
        else { return nil }
        return Accepted(msgID: id, sendno: try row.int("sendno"), isNew: false)
    }

    /// What accepting needs: the msg_ids and the accepting statements, shared by the
    /// store and its group commit.
    private final class Acceptor: Sendable {
        let pool: PostgresPool
        private let generator = Mutex(MessageIDGenerator())
        let chunkMaker: ChunkMaker
        /// Largest audience a targeted push resolves inside the accepting statement; the rest
        /// (aliases shared by very many devices) is left to the workers.
        let inlineLimit: Int

        init(pool: PostgresPool, chunkMaker: ChunkMaker, inlineLimit: Int) {
            self.pool = pool
            self.chunkMaker = chunkMaker
            self.inlineLimit = inlineLimit
        }

        func nextMessageID() -> MessageID {
            generator.withLock { $0.next(nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)) }
        }

        /// One push in a statement of its own (its own commit).
        func acceptAlone(_ pending: Pending) async throws -> Stored {
            try await pool.withConnection { [self] connection in
                // A msg_id drawn twice across processes (1 in 1024 nodes, same millisecond and
                // sequence) hits the primary key: draw again.
                var attempt = 0
                while true {
                    attempt += 1
                    do {
                        return try accept(id: nextMessageID(), pending, on: connection)
                    } catch PostgresError.server(let state, let message) where state == .uniqueViolation && message.contains("messages_pkey") && attempt < 5 {
                        continue
                    }
                }
            }
        }

        func accept(id: MessageID, _ pending: Pending, on connection: PostgresConnection) throws -> Stored {
            let submission = pending.submission
            let (accepted, handed) = try accept(id: id, appID: submission.appID, request: submission.request,
                                                body: String(decoding: submission.body, as: UTF8.self), handoff: pending.handoff, on: connection)
            return Stored(accepted: accepted, handed: handed)
        }

        /// - Parameter handoff: a local worker's reserved slot, to lease a single-chunk targeted
        ///   push's chunk to (returned with what it needs to be sent).
        func accept(id: MessageID, appID: Int64, request: PushRequest, body: String, handoff: Handoff?,
                            on connection: PostgresConnection) throws -> (accepted: Accepted, handed: (chunk: LeasedChunk, loaded: LoadedChunk)?) {
            if let cid = request.cid, let first = try MessageStore.existing(appID: appID, cid: cid, on: connection) { return (first, nil) }
            let now = Int(Date().timeIntervalSince1970)
            let environment = request.options.apnsProduction ? "production" : "sandbox"
            let lane = MessageStore.cutOnAccept(request) ? "targeted" : "broadcast"
            let bigPush = request.options.bigPushDuration * 60
            let overridden = try request.options.overrideMsgID.map { try MessageStore.collapseID(of: $0, appID: appID, on: connection) }
            let collapseID = CollapseID.of(request.options, msgID: id, overridden: overridden)
            // One statement whatever the audience (each statement is a round trip before the push
            // is answered and a worker wakes): the message row, and for the platforms delivered
            // to (iOS, Android) the audience check, a targeted push's chunks and the
            // notification, all or nothing.
            let message: [(any PostgresBindable)?] = [
                id.rawValue, appID, request.cid, request.options.sendno, body, environment, lane, now,
                now + QueueDeadline.seconds(timeToLive: request.options.timeToLive), bigPush, now + bigPush, collapseID,
            ]
            let audience = AudienceCondition(request.audience)
            let slice: [(any PostgresBindable)?] = [chunkMaker.chunkSize, Int64(0), inlineLimit]
            let (statement, parameters): (SQLStatement, [(any PostgresBindable)?]) =
                if let platforms = AudiencePlatforms(request) {
                    if !MessageStore.cutOnAccept(request) {
                        // Workers cut a broadcast into chunks; here only whether anyone is in it.
                        (AudienceStatements.acceptBroadcast[audience.shape, platforms], message + audience.lists)
                    } else if let handoff {
                        // A push of one chunk is leased to the local worker, and read for it: no NOTIFY.
                        (AudienceStatements.acceptTargetedHandoff[audience.shape, platforms],
                         message + slice + [handoff.owner, Double(handoff.leaseSeconds)] + audience.lists)
                    } else {
                        // Cut into chunks now (at most `inlineLimit` devices; the resolvers take the rest).
                        (AudienceStatements.acceptTargeted[audience.shape, platforms], message + slice + audience.lists)
                    }
                } else {
                    // Accepted, nothing to deliver on this relay.
                    (AudienceStatements.acceptUndelivered, message)
                }
            let rows = Array(try connection.preparedQuery(statement, parameters))
            let row = rows.first
            if row?["accepted_id"] != nil {
                return (Accepted(msgID: id, sendno: request.options.sendno, isNew: true), handoff == nil ? nil : try LoadedChunk.leased(from: rows, on: connection))
            }
            // Not inserted: the same cid committed meanwhile (its answer is ours), or nobody matched.
            if let cid = request.cid, let first = try MessageStore.existing(appID: appID, cid: cid, on: connection) { return (first, nil) }
            guard try row?.int("devices") == 0 else {
                throw PostgresError.protocolViolation("message insert conflicted without a cid")
            }
            throw MessageStore.noTarget(id)
        }

        /// A batch's pushes in the shared transaction: the targeted pushes to one list (nearly
        /// every single-user push) in one statement per list kind, each other push in its own.
        /// A push's `JPushError` (it wrote nothing) is its answer; any other error ends the batch.
        func accept(_ batch: [Pending], on connection: PostgresConnection) throws -> [Result<Stored, any Error>] {
            var results = [Result<Stored, any Error>?](repeating: nil, count: batch.count)
            var alone: [Int] = []
            var together: [AudienceShape: [(index: Int, push: TargetedBatch.Push)]] = [:]
            for (index, pending) in batch.enumerated() {
                let submission = pending.submission
                guard let shape = TargetedBatch.shape(of: submission.request) else {
                    alone.append(index)
                    continue
                }
                together[shape, default: []].append((index, TargetedBatch.Push(
                    id: nextMessageID(), appID: submission.appID, request: submission.request,
                    body: String(decoding: submission.body, as: UTF8.self), handoff: pending.handoff)))
            }
            let answers = try GroupCommit<Pending, Stored>.each(alone.map { batch[$0] }, perform: { pending, connection in
                try accept(id: nextMessageID(), pending, on: connection)
            }, isOwnFailure: { $0 is JPushError }, on: connection)
            for (index, answer) in zip(alone, answers) { results[index] = answer }
            for (shape, pushes) in together.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let answers = try TargetedBatch.accept(pushes.map(\.push), shape: shape, chunkMaker: chunkMaker, inlineLimit: inlineLimit, on: connection)
                for ((index, _), answer) in zip(pushes, answers) {
                    results[index] = answer.map { Stored(accepted: $0.accepted, handed: $0.handed) }
                }
            }
            return try results.map { result in
                guard let result else { throw PostgresError.protocolViolation("a push of the batch has no answer") }
                return result
            }
        }
    }

    /// What a withdrawal found.
    public enum Withdrawal: Sendable, Equatable {
        /// Stopped now (or already withdrawn): nothing not yet sent will be.
        case withdrawn
        /// Every device already has its outcome.
        case alreadyFinished
        case notFound
    }

    /// Withdraws a message: it stops resolving, its chunks not yet leased are closed, and
    /// chunks being sent stop at their next batch (workers re-read the state there).
    public func withdraw(appID: Int64, msgID: MessageID) async throws -> Withdrawal {
        try await pool.withConnection { connection in
            try connection.transaction { connection in try self.withdraw(appID: appID, msgID: msgID, on: connection) }
        }
    }

    /// `withdraw(appID:msgID:)` inside the caller's transaction (a Live Activity update
    /// replacing a waiting one, `LiveActivityPacer`).
    public func withdraw(appID: Int64, msgID: MessageID, on connection: PostgresConnection) throws -> Withdrawal {
        guard let row = try connection.preparedQuery(WithdrawalStatements.lockState, [msgID.rawValue, appID]).first
        else { return .notFound }
        switch try row.value("state") as MessageState {
        case .withdrawn: return .withdrawn
        case .done: return .alreadyFinished
        case .resolving, .sending: break
        }
        try connection.preparedQuery(WithdrawalStatements.withdraw, [msgID.rawValue])
        return .withdrawn
    }

    /// Holds a just accepted message's chunks not yet leased until `unixMilliseconds`, inside
    /// the transaction that accepted it: workers lease them from then on (within their poll
    /// interval). A Live Activity update's turn (`LiveActivityPacer`).
    public func hold(_ msgID: MessageID, until unixMilliseconds: Int64, on connection: PostgresConnection) throws {
        try connection.preparedQuery(WithdrawalStatements.hold, [msgID.rawValue, unixMilliseconds])
    }
}

/// How long the queue keeps trying a message: its `time_to_live`, or for "now or never"
/// (0, sent with `apns-expiration: 0`) one minute, so a push accepted while APNs hiccups
/// still gets its first attempt.
public enum QueueDeadline {
    public static let nowOrNeverSeconds = 60

    public static func seconds(timeToLive: Int) -> Int {
        timeToLive == 0 ? nowOrNeverSeconds : timeToLive
    }
}
