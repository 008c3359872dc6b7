import Foundation
import PostgresStore
import PushCore
import RelayCore
import Synchronization

/// Accepts pushes into the `messages` table and withdraws them: the API's half of the
/// pipeline.
///
/// Accepting is one transaction: the message row with its body, the check that someone is
/// targeted (1011 otherwise), and for targeted pushes (alias, registration_id) every chunk
/// of their small audience, so a worker woken by the NOTIFY sends at once. Broadcasts and tag
/// pushes are left `resolving`, for workers to cut into chunks.
public final class MessageStore: Sendable {
    private let pool: PostgresPool
    private let generator = Mutex(MessageIDGenerator())
    private let chunkMaker: ChunkMaker
    /// Largest audience a targeted push resolves inside the accepting transaction; the rest
    /// (aliases shared by very many devices) is left to the workers.
    private let inlineLimit = 20_000

    public init(pool: PostgresPool, chunkSize: Int = 500) {
        self.pool = pool
        chunkMaker = ChunkMaker(chunkSize: chunkSize)
    }

    /// A fresh msg_id (also the placeholder `/v3/push/validate` answers with).
    public func nextMessageID() -> MessageID {
        generator.withLock { $0.next(nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)) }
    }

    /// The answer to an accepted push.
    public struct Accepted: Sendable, Equatable {
        public var msgID: MessageID
        public var sendno: Int
        /// False when the cid was seen before and this is the first push's answer again.
        public var isNew: Bool
    }

    /// Persists a validated push.
    ///
    /// - Parameters:
    ///   - appID: the app pushing.
    ///   - request: the validated push (`PushRequest.parse(body)`).
    ///   - body: the body as received, stored so workers rebuild the request from it.
    /// - Throws: `JPushError` 1011 (with the msg_id) when no active device matches; a
    ///   `PostgresError` when the database fails.
    public func accept(appID: Int64, request: PushRequest, body: [UInt8]) async throws -> Accepted {
        let bodyText = String(decoding: body, as: UTF8.self)
        return try await pool.withConnection { [self] connection in
            // A msg_id drawn twice across processes (1 in 1024 nodes, same millisecond and
            // sequence) hits the primary key: draw again.
            var attempt = 0
            while true {
                attempt += 1
                let id = nextMessageID()
                do {
                    return try connection.transaction { connection in
                        try accept(id: id, appID: appID, request: request, body: bodyText, on: connection)
                    }
                } catch PostgresError.server(let state, let message) where state == "23505" && message.contains("messages_pkey") && attempt < 5 {
                    continue
                }
            }
        }
    }

    /// Persists a validated push on `connection`, inside the caller's transaction: the
    /// scheduler accepts an occurrence's push in the transaction that records the occurrence.
    ///
    /// - Throws: like `accept(appID:request:body:)`, and a `PostgresError` 23505 on
    ///   `messages_pkey` when the msg_id drawn was taken (roll back to a savepoint, call again).
    public func accept(appID: Int64, request: PushRequest, body: [UInt8], on connection: PostgresConnection) throws -> Accepted {
        try accept(id: nextMessageID(), appID: appID, request: request, body: String(decoding: body, as: UTF8.self), on: connection)
    }

    private func accept(id: MessageID, appID: Int64, request: PushRequest, body: String, on connection: PostgresConnection) throws -> Accepted {
        if let cid = request.cid, let first = try Self.existing(appID: appID, cid: cid, on: connection) { return first }
        let now = Int(Date().timeIntervalSince1970)
        let environment = request.options.apnsProduction ? "production" : "sandbox"
        let lane = request.audience.isTargeted ? "targeted" : "broadcast"
        let ios = request.platform.includesIOS
        let inserted = try connection.preparedQuery(byText: """
            INSERT INTO messages (id, app_id, cid, sendno, body, environment, lane, state, accepted_at, expires_at,
                                  spread_until, finished_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, CASE WHEN $8::boolean THEN 'resolving' ELSE 'done' END, $9,
                    to_timestamp($10::bigint), CASE WHEN $11::integer > 0 THEN to_timestamp($9::bigint + $11::integer) END,
                    CASE WHEN $8::boolean THEN NULL ELSE now() END)
            ON CONFLICT (app_id, cid) DO NOTHING
            RETURNING id
            """, [id.rawValue, appID, request.cid, request.options.sendno, body, environment, lane, ios, now,
                  now + QueueDeadline.seconds(timeToLive: request.options.timeToLive), request.options.bigPushDuration * 60])
        guard !inserted.isEmpty else {
            // The same cid committed meanwhile: its answer is ours.
            guard let cid = request.cid, let first = try Self.existing(appID: appID, cid: cid, on: connection) else {
                throw PostgresError.protocolViolation("message insert conflicted without a cid")
            }
            return first
        }
        let accepted = Accepted(msgID: id, sendno: request.options.sendno, isNew: true)
        // Platforms without iOS: accepted, nobody to deliver to on this relay.
        guard ios else { return accepted }

        let nobody = JPushError(status: 400, code: 1011, message: "cannot find user by this audience or has been inactive for too long",
                                msgID: id.description)
        guard request.audience.isTargeted else {
            // Workers cut a broadcast into chunks; here only whether anyone is in it.
            let audience = AudienceQuery(request.audience, appID: appID, environment: environment, firstParameter: 1)
            let exists = try connection.preparedQuery(byText: "SELECT EXISTS (SELECT 1 FROM devices d WHERE \(audience.condition)) AS e", audience.parameters)
            guard try exists.first?.bool("e") == true else { throw nobody }
            try connection.query(PushChannel.notify)
            return accepted
        }
        // A push naming devices is cut into chunks now; none made means nobody matched (the
        // transaction rolls back). The notification goes with the message's update: each
        // statement here is a round trip before the push is answered and a worker wakes.
        let message = ChunkMaker.Message(
            id: id.rawValue, appID: appID, environment: environment, lane: lane, audience: request.audience,
            acceptedAt: now, spreadSeconds: 0)
        let slice = try chunkMaker.makeChunks(message, after: 0, limit: inlineLimit, on: connection)
        guard slice.devices > 0 else { throw nobody }
        let complete = slice.devices < inlineLimit
        try connection.preparedQuery(byText: """
            UPDATE messages SET target_count = $2, resolve_cursor = $3, chunks_pending = $5,
                   state = CASE WHEN $4::boolean THEN 'sending' ELSE 'resolving' END
            FROM (SELECT pg_notify($6, $7)) AS notified
            WHERE id = $1
            """, [id.rawValue, slice.devices, slice.lastDeviceID ?? 0, complete, slice.chunks, PushChannel.name,
                  complete ? PushChannel.chunksReady : ""])
        return accepted
    }

    private static func existing(appID: Int64, cid: String, on connection: PostgresConnection) throws -> Accepted? {
        guard let row = try connection.preparedQuery(byText: "SELECT id, sendno FROM messages WHERE app_id = $1 AND cid = $2", [appID, cid]).first,
              let id = MessageID(rawValue: Int64(try row.int("id")))
        else { return nil }
        return Accepted(msgID: id, sendno: try row.int("sendno"), isNew: false)
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
            try connection.transaction { connection in
                guard let row = try connection.query(
                    "SELECT state FROM messages WHERE id = $1 AND app_id = $2 FOR UPDATE", [msgID.rawValue, appID]).first
                else { return .notFound }
                switch try row.string("state") {
                case "withdrawn": return .withdrawn
                case "done": return .alreadyFinished
                default: break
                }
                try connection.query("""
                    WITH closed AS (
                        UPDATE push_chunks SET state = 'done', lease_owner = NULL, lease_expires_at = NULL
                        WHERE message_id = $1 AND state = 'ready'
                        RETURNING id
                    )
                    UPDATE messages SET state = 'withdrawn', finished_at = now(),
                           chunks_pending = chunks_pending - (SELECT count(*) FROM closed)
                    WHERE id = $1
                    """, [msgID.rawValue])
                return .withdrawn
            }
        }
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
