import PostgresStore
import RelayCore

/// A broadcast channel the relay created at APNs for an app, as the API shows it.
public struct LiveActivityChannel: Encodable, Sendable, Equatable {
    /// APNs' channel id (base64): what devices subscribe with.
    public var channelID: String
    public var environment: DeviceEnvironment
    /// 0: no message stored; 1: the most recent message stored.
    public var messageStoragePolicy: Int
    public var createdAt: String

    init(row: PostgresRow) throws {
        channelID = try row.string("channel_id")
        environment = try DeviceEnvironment(parsing: try row.string("environment"))
        messageStoragePolicy = try row.int("message_storage_policy")
        createdAt = try row.string("created_at")
    }

    private enum CodingKeys: String, CodingKey {
        case channelID = "channel_id", environment, messageStoragePolicy = "message_storage_policy", createdAt = "created_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(channelID, forKey: .channelID)
        try container.encode(environment.rawValue, forKey: .environment)
        try container.encode(messageStoragePolicy, forKey: .messageStoragePolicy)
        try container.encode(createdAt, forKey: .createdAt)
    }
}

/// The `live_activity_channels` table (`LiveActivityChannelStatements`): every call names the app.
public struct LiveActivityChannelRepository: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func insert(appID: Int64, channelID: String, environment: DeviceEnvironment, storagePolicy: Int) async throws -> LiveActivityChannel {
        let rows = try await pool.preparedQuery(LiveActivityChannelStatements.insert, [appID, channelID, environment.rawValue, storagePolicy])
        guard let row = rows.first else { throw JPushError.internalError("the channel row was not written") }
        return try LiveActivityChannel(row: row)
    }

    /// Nil when the app has no such channel (another app's included).
    public func find(appID: Int64, channelID: String) async throws -> LiveActivityChannel? {
        try await pool.preparedQuery(LiveActivityChannelStatements.find, [appID, channelID]).first.map(LiveActivityChannel.init(row:))
    }

    public func list(appID: Int64) async throws -> [LiveActivityChannel] {
        try await pool.preparedQuery(LiveActivityChannelStatements.list, [appID]).map(LiveActivityChannel.init(row:))
    }

    /// False when the app had no such channel.
    public func delete(appID: Int64, channelID: String) async throws -> Bool {
        try await pool.preparedQuery(LiveActivityChannelStatements.delete, [appID, channelID]).affectedRows > 0
    }
}
