import APNSClient
import RelayCore
import RelayStore

/// A `POST /v3/live-activities/channels` body: `{"message_storage_policy": 0|1,
/// "environment": "production"|"sandbox"}` (the environment defaults to production, as
/// JPush's `apns_production` does; a channel serves the devices of one environment only).
struct ChannelCreation: Sendable, Equatable {
    var storagePolicy: APNSMessageStoragePolicy
    var environment: DeviceEnvironment

    static func parse(_ body: [UInt8]) throws(JPushError) -> ChannelCreation {
        let reader = try JSONObjectReader(body)
        try reader.rejectUnknownKeys(allowed: ["message_storage_policy", "environment"])
        guard let raw = try reader.optionalInt("message_storage_policy") else {
            throw JPushError.missingParameter("message_storage_policy is required: 0 (no message stored) or 1 (the most recent message stored)")
        }
        guard let policy = APNSMessageStoragePolicy(rawValue: Int(raw)) else {
            throw JPushError.illegalValue("message_storage_policy must be 0 (no message stored) or 1 (the most recent message stored), got \(raw)")
        }
        var environment = DeviceEnvironment.production
        if let text = try reader.optionalString("environment") {
            do { environment = try DeviceEnvironment(parsing: text) } catch { throw JPushError.illegalValue(error.message) }
        }
        return ChannelCreation(storagePolicy: policy, environment: environment)
    }
}

/// A channel id as a path segment names it: APNs' base64, or base64url (`-` `_`, padding
/// optional), since a `/` cannot stand in one segment. Read back as APNs' base64.
enum ChannelPathID {
    static func channelID(_ segment: String) throws(JPushError) -> String {
        var id = String(segment.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        if !id.contains("=") { id += String(repeating: "=", count: (4 - id.utf8.count % 4) % 4) }
        if let problem = APNSChannelRequest.channelIDProblem(id) {
            throw JPushError.illegalValue("channel_id \(problem): give APNs' channel id, in base64 or base64url")
        }
        return id
    }
}
