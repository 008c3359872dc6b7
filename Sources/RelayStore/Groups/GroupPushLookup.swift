import Foundation
import PostgresStore
import PushCore
import RelayCore

/// One recorded group push: per app, the message it became (with its counters) or the
/// error its push got.
public struct GroupPushRecord: Sendable, Equatable {
    public struct Part: Sendable, Equatable {
        public var appKey: String
        public var result: Result<MessageCounters, JPushError>
    }

    public var groupMsgID: MessageID
    public var createdAt: String
    public var parts: [Part]

    /// The counters summed over the apps' messages.
    public var target: Int { counters.reduce(0) { $0 + $1.target } }
    public var sent: Int { counters.reduce(0) { $0 + $1.sent } }

    public var counters: [MessageCounters] { parts.compactMap(\.result.success) }
}

/// Reads recorded group pushes, each scoped to one group: another group's group_msgid (or
/// one that exists nowhere) matches nothing.
public struct GroupPushLookup: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The group's pushes among `ids`, newest first; ids not of the group are left out.
    public func pushes(groupID: Int64, ids: [MessageID]) async throws -> [GroupPushRecord] {
        try await pool.withConnection { try Self.pushes(groupID: groupID, ids: ids, on: $0) }
    }

    /// A page of the group's pushes, newest first, and the cursor of the next page (nil on the last).
    public func page(groupID: Int64, before: Int64?, limit: Int) async throws -> (pushes: [GroupPushRecord], next: String?) {
        try await pool.withConnection { connection in
            let ids = try connection.preparedQuery(GroupPushStatements.page, [groupID, before ?? Int64.max, limit + 1])
                .map { try Self.messageID($0, "group_msgid") }
            let pushes = try Self.pushes(groupID: groupID, ids: Array(ids.prefix(limit)), on: connection)
            return (pushes, ids.count > limit ? pushes.last?.groupMsgID.description : nil)
        }
    }

    private static func pushes(groupID: Int64, ids: [MessageID], on connection: PostgresConnection) throws -> [GroupPushRecord] {
        guard !ids.isEmpty else { return [] }
        var records: [GroupPushRecord] = []
        for row in try connection.preparedQuery(GroupPushStatements.parts, [groupID, SQLArray.bigint(ids.map(\.rawValue))]) {
            let id = try messageID(row, "group_msgid")
            if records.last?.groupMsgID != id {
                records.append(GroupPushRecord(groupMsgID: id, createdAt: try row.string("pushed_at"), parts: []))
            }
            let result: Result<MessageCounters, JPushError>
            if let code = row["error_code"].flatMap(Int.init) {
                result = .failure(JPushError(status: 400, code: code, message: row["error_message"] ?? ""))
            } else {
                result = .success(try MessageCounters(row: row))
            }
            records[records.count - 1].parts.append(.init(appKey: try row.string("app_key"), result: result))
        }
        return records
    }

    private static func messageID(_ row: PostgresRow, _ column: String) throws -> MessageID {
        let text = try row.string(column)
        guard let id = MessageID(text) else { throw PostgresError.protocolViolation("\(column) \(text) is no msg_id") }
        return id
    }
}
