import Foundation
import PostgresStore
import PushCore

/// Many targeted pushes accepted in one statement (`AcceptBatchStatements`), inside a group
/// commit's transaction: the single-user pushes that arrive together under load cost one
/// statement, not one each. Each push still gets its own answer: its msg_id, the first
/// push's answer for a cid seen before (earlier in the batch too), or 1011 when nobody
/// matched; a push of one chunk with a reserved slot of the local worker gets its chunk
/// leased and read.
enum TargetedBatch {
    /// A push to accept, with its msg_id drawn.
    struct Push {
        var id: MessageID
        var appID: Int64
        var request: PushRequest
        var body: String
        var handoff: Handoff?
    }

    typealias Answer = (accepted: MessageStore.Accepted, handed: (chunk: LeasedChunk, loaded: LoadedChunk)?)

    /// The statement variant for `request`, or nil when it is not one this accepts: only a
    /// push to iOS alone, to one list of aliases or of registration ids, overriding no message
    /// (its collapse id would be read first).
    static func shape(of request: PushRequest) -> AudienceShape? {
        guard AudiencePlatforms(request) == .ios, request.options.overrideMsgID == nil, case .filter(let filter) = request.audience,
              filter.tags.isEmpty, filter.tagsAnd.isEmpty, filter.tagsNot.isEmpty
        else { return nil }
        switch (filter.aliases.isEmpty, filter.registrationIDs.isEmpty) {
        case (false, true): return .aliases
        case (true, false): return .registrationIDs
        default: return nil
        }
    }

    /// Accepts `pushes`, all of `shape`, in one statement, each answer in order.
    ///
    /// - Throws: when the statement fails (the transaction is then unusable).
    static func accept(_ pushes: [Push], shape: AudienceShape, chunkMaker: ChunkMaker, inlineLimit: Int,
                       on connection: PostgresConnection) throws -> [Result<Answer, any Error>] {
        let statement = shape == .aliases ? AcceptBatchStatements.aliases : AcceptBatchStatements.registrationIDs
        let rows = Array(try connection.preparedQuery(statement, parameters(pushes, shape: shape, chunkSize: chunkMaker.chunkSize, inlineLimit: inlineLimit)))
        var answers: [Int64: (devices: Int, accepted: Bool)] = [:]
        var contexts: [Int64: PostgresRow] = [:]
        var devices: [Int64: PostgresRow] = [:]
        for row in rows {
            if row["push_id"] != nil {
                answers[Int64(try row.int("push_id"))] = (try row.int("devices"), row["accepted_id"] != nil)
            } else if row["chunk_id"] != nil {
                contexts[Int64(try row.int("message_id"))] = row
            } else {
                devices[Int64(try row.int("id"))] = row
            }
        }
        return try pushes.map { push in
            guard let answer = answers[push.id.rawValue] else { throw PostgresError.protocolViolation("no answer for push \(push.id)") }
            if answer.accepted {
                let accepted = MessageStore.Accepted(msgID: push.id, sendno: push.request.options.sendno, isNew: true)
                guard let context = contexts[push.id.rawValue] else { return .success((accepted, nil)) }
                let found = try context.bigints("ids").compactMap { devices[$0] }
                return .success((accepted, try LoadedChunk.leased(from: [context] + found, on: connection)))
            }
            // Not stored: its cid was seen before (that push's answer is its own), or nobody matched.
            if let cid = push.request.cid, let first = try MessageStore.existing(appID: push.appID, cid: cid, on: connection) {
                return .success((first, nil))
            }
            guard answer.devices == 0 else { throw PostgresError.protocolViolation("message insert conflicted without a cid") }
            return .failure(MessageStore.noTarget(push.id))
        }
    }

    /// The statement's arrays, a place per push.
    private static func parameters(_ pushes: [Push], shape: AudienceShape, chunkSize: Int, inlineLimit: Int) -> [(any PostgresBindable)?] {
        let requests = pushes.map(\.request)
        let now = Int64(Date().timeIntervalSince1970)
        let lists = requests.map { request -> [String] in
            guard case .filter(let filter) = request.audience else { return [] }
            // Ids that cannot be ours match nothing (as ids of another app do).
            return shape == .aliases ? filter.aliases : filter.registrationIDs.filter(AudienceCondition.isRegistrationID)
        }
        let ids = pushes.map(\.id)
        return [
            SQLArray.bigint(ids.map(\.rawValue)), SQLArray.bigint(pushes.map(\.appID)), SQLArray.text(requests.map(\.cid)),
            SQLArray.int(requests.map(\.options.sendno)), SQLArray.text(pushes.map(\.body)),
            SQLArray.text(requests.map { $0.options.apnsProduction ? "production" : "sandbox" }),
            SQLArray.bigint(pushes.map { _ in now }),
            SQLArray.bigint(requests.map { now + Int64(QueueDeadline.seconds(timeToLive: $0.options.timeToLive)) }),
            SQLArray.int(requests.map { $0.options.bigPushDuration > 0 ? Int(now) + $0.options.bigPushDuration * 60 : nil }),
            SQLArray.text(zip(ids, requests).map { id, request in CollapseID.of(request.options, msgID: id, overridden: nil) }),
            SQLArray.text(lists.map { SQLArray.text($0) }),
            SQLArray.text(pushes.map { $0.handoff?.owner }),
            SQLArray.int(pushes.map { $0.handoff?.leaseSeconds }),
            chunkSize, inlineLimit,
        ]
    }
}
