import Foundation
import RelayCore

/// A channel's configuration, as APNs reads it back.
public struct APNSChannelConfiguration: Sendable, Hashable {
    public var storagePolicy: APNSMessageStoragePolicy
    /// `LiveActivity`, the only push type channels have.
    public var pushType: String

    public init(storagePolicy: APNSMessageStoragePolicy, pushType: String = "LiveActivity") {
        self.storagePolicy = storagePolicy
        self.pushType = pushType
    }
}

/// What became of one channel-management request.
public enum APNSChannelResult: Sendable, Hashable {
    /// 201 with `apns-channel-id`.
    case created(channelID: String)
    /// 200 with `{"message-storage-policy", "push-type"}`.
    case channel(APNSChannelConfiguration)
    /// 204.
    case deleted
    /// 200 with `{"channels": [...]}`.
    case channels([String])
    /// An error status and APNs' `reason` (a success answer APNs should not give reads as
    /// `.unknown` with its status: a 200 to a create without a channel id, say).
    case rejected(status: Int, reason: APNSReason)
    /// No answer: see `APNSFailure`.
    case failed(APNSFailure)
}

extension APNSChannelResult {
    /// Reads APNs' answer to `operation`.
    ///
    /// - Parameters:
    ///   - status: the `:status`.
    ///   - channelID: the `apns-channel-id` header, if any.
    ///   - body: the response body.
    public init(operation: APNSChannelRequest.Operation, status: Int, channelID: String?, body: [UInt8]) {
        switch (operation, status) {
        case (.create, 201):
            if let channelID, APNSChannelRequest.channelIDProblem(channelID) == nil {
                self = .created(channelID: channelID)
            } else {
                self = .rejected(status: status, reason: .unknown("no apns-channel-id in the answer"))
            }
        case (.read, 200):
            if let answer = try? JSONDecoder().decode(ConfigurationBody.self, from: Data(body)),
               let policy = APNSMessageStoragePolicy(rawValue: answer.policy) {
                self = .channel(APNSChannelConfiguration(storagePolicy: policy, pushType: answer.pushType))
            } else {
                self = .rejected(status: status, reason: .unknown("unreadable channel configuration"))
            }
        case (.delete, 204), (.delete, 200):
            self = .deleted
        case (.list, 200):
            if let answer = try? JSONDecoder().decode(ListBody.self, from: Data(body)) {
                self = .channels(answer.channels)
            } else {
                self = .rejected(status: status, reason: .unknown("unreadable channel list"))
            }
        default:
            // APNs' error body, read as for notifications; a success status that does not fit
            // the operation reads as an unknown reason.
            if status != 200, case let .rejected(_, reason, _) = APNSResult(status: status, apnsID: nil, body: body, sentID: UUID()) {
                self = .rejected(status: status, reason: reason)
            } else {
                self = .rejected(status: status, reason: .unknown("unexpected \(status) answer"))
            }
        }
    }

    init(operation: APNSChannelRequest.Operation, answer: HTTP2Answer) {
        switch answer {
        case let .response(response):
            self.init(operation: operation, status: response.status, channelID: response.channelID, body: response.body)
        case let .failed(failure):
            self = .failed(failure)
        }
    }

    private struct ConfigurationBody: Decodable {
        var policy: Int
        var pushType: String

        enum CodingKeys: String, CodingKey {
            case policy = "message-storage-policy", pushType = "push-type"
        }
    }

    private struct ListBody: Decodable {
        var channels: [String]
    }
}
