import APNSClient
import Foundation
import Synchronization

/// The broadcast channels the simulator has created, per bundle id, shared by every event
/// loop (behind one mutex, held for a dictionary operation per request). Ids are random
/// base64, as APNs makes them: a deleted id never comes back.
public final class ChannelRegistry: Sendable {
    /// APNs' limit per app and environment (Apple: "up to 10,000 channels").
    public let limit: Int
    private let channels = Mutex<[String: [String: APNSMessageStoragePolicy]]>([:])

    public init(limit: Int = 10_000) {
        self.limit = limit
    }

    /// A new channel's id, or nil when the bundle has `limit` channels already.
    func create(bundleID: String, policy: APNSMessageStoragePolicy) -> String? {
        channels.withLock { channels in
            guard channels[bundleID, default: [:]].count < limit else { return nil }
            var id: String
            repeat {
                var random = SystemRandomNumberGenerator()
                id = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }).base64EncodedString()
            } while channels[bundleID]?[id] != nil
            channels[bundleID, default: [:]][id] = policy
            return id
        }
    }

    public func policy(bundleID: String, channelID: String) -> APNSMessageStoragePolicy? {
        channels.withLock { $0[bundleID]?[channelID] }
    }

    /// Whether the channel existed. Public for tests that delete a channel behind the relay's back.
    public func delete(bundleID: String, channelID: String) -> Bool {
        channels.withLock { $0[bundleID]?.removeValue(forKey: channelID) != nil }
    }

    /// The bundle's channel ids, sorted.
    public func list(bundleID: String) -> [String] {
        channels.withLock { ($0[bundleID] ?? [:]).keys.sorted() }
    }
}
