import Foundation
import PostgresStore
import PushCore
import PushPipeline
import RelayCore

/// Accepts one `/v3/grouppush` for every app of the group, and records it under its
/// group_msgid: in one transaction, the group push's row, each app's message and, per app,
/// the msg_id it got or the error its push got. A crash leaves all of it or none.
///
/// The messages are accepted as the scheduler accepts an occurrence's push, inside the
/// caller's transaction, so a group push gives up the local worker's hand-off of a targeted
/// push: its workers are woken when it commits.
public struct GroupPushStore: Sendable {
    let pool: PostgresPool
    let messages: MessageStore

    public init(pool: PostgresPool, messages: MessageStore) {
        self.pool = pool
        self.messages = messages
    }

    /// One app's part of a group push.
    public struct Outcome: Sendable {
        public var appKey: String
        public var result: Result<MessageStore.Accepted, JPushError>
    }

    /// - Returns: the group_msgid and each app's outcome, in the group's app order.
    /// - Throws: a `PostgresError` when the database fails (nothing is then accepted).
    public func accept(_ group: AuthenticatedGroup, request: PushRequest, body: [UInt8]) async throws -> (MessageID, [Outcome]) {
        let groupMsgID = messages.nextMessageID()
        let outcomes = try await pool.withConnection { connection in
            try connection.transaction { connection in
                try connection.preparedQuery(GroupPushStatements.insertPush, [groupMsgID.rawValue, group.id])
                return try group.apps.map { app in
                    let result = try acceptOne(appID: app.id, request: request, body: body, on: connection)
                    let error = result.failure
                    try connection.preparedQuery(GroupPushStatements.insertMessage, [
                        groupMsgID.rawValue, app.id, result.success?.msgID.rawValue, error?.code, error?.message,
                    ])
                    return Outcome(appKey: app.appKey, result: result)
                }
            }
        }
        return (groupMsgID, outcomes)
    }

    /// One app's push in a savepoint: its refusal (1011 when nobody matched) is its outcome,
    /// and a msg_id another node drew in the same millisecond is drawn again.
    private func acceptOne(appID: Int64, request: PushRequest, body: [UInt8],
                           on connection: PostgresConnection) throws -> Result<MessageStore.Accepted, JPushError> {
        var attempt = 0
        while true {
            attempt += 1
            try connection.query("SAVEPOINT group_app")
            do {
                let accepted = try messages.accept(appID: appID, request: request, body: body, on: connection)
                try connection.query("RELEASE SAVEPOINT group_app")
                return .success(accepted)
            } catch let error as JPushError {
                try connection.query("ROLLBACK TO SAVEPOINT group_app")
                return .failure(error)
            } catch PostgresError.server(let state, let message) where state == .uniqueViolation && message.contains("messages_pkey") && attempt < 5 {
                try connection.query("ROLLBACK TO SAVEPOINT group_app")
            }
        }
    }
}

extension Result {
    var success: Success? {
        if case .success(let value) = self { value } else { nil }
    }

    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
