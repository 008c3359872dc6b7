import APNSClient
import EventLoops
import Foundation
import RelayCore
import RelayCrypto

/// Sends messages to FCM HTTP v1 for one service account: one POST per device on HTTP/2
/// connections of the same machinery as APNs (the process's loop group, the in-flight
/// window, urgent lanes ahead of broadcasts, connections opened on demand and closed when
/// idle), each request carrying the account's OAuth2 access token (`AccessTokenSource`).
///
/// A 401 makes the client drop the token, fetch a new one and send the refused messages
/// again, once; what FCM then answers goes to the caller (`FCMAction` says what it means).
public final class FCMClient: Sendable {
    private let transport: APNSClient
    private let tokens: AccessTokenSource
    private let path: [UInt8]

    /// - Parameters:
    ///   - configuration: endpoint and bounds.
    ///   - account: the checked service account (`FCMServiceAccount.parse`).
    ///   - logger: for connection and token events; tokens and keys are never logged.
    ///   - clock: the time for access-token expiry, message expiry and timeouts.
    ///   - resources: shared with the process's other clients (the bound on connections, TLS sessions).
    /// - Throws: on a key that cannot sign, a bad endpoint or CA file.
    public init(
        configuration: FCMClientConfiguration, account: FCMServiceAccount, logger: Logger,
        clock: any APNSClock = SystemClock(), group: EventLoopGroup = .shared, resources: APNSClientResources = APNSClientResources()
    ) throws {
        let logger = logger.with(["fcm_project": account.projectID])
        transport = try APNSClient(configuration: try configuration.transport(to: configuration.endpoint), logger: logger,
                                   clock: clock, group: group, resources: resources)
        tokens = try AccessTokenSource(account: account, configuration: configuration, clock: clock, logger: logger,
                                       group: group, resources: resources)
        path = Array("/v1/projects/\(account.projectID)/messages:send".utf8)
    }

    /// Sends each message and returns what became of it, in the same order. Never throws.
    ///
    /// `urgent` ones (a single user's push) take in-flight slots of their own and go out
    /// before every other waiting message.
    public func send(_ messages: [FCMMessage], urgent: Bool = false) async -> [FCMResult] {
        var results = messages.map { message in message.validate().map { FCMResult.failed(.invalid($0)) } }
        var pending = results.indices.filter { results[$0] == nil }
        var refreshed = false
        while !pending.isEmpty {
            let token: String
            switch await tokens.token() {
            case let .success(value):
                token = value
            case let .failure(failure):
                for index in pending { results[index] = .failed(failure) }
                return results.map { $0 ?? .failed(.transport(.shutdown)) }
            }
            let authorization = Array("Bearer \(token)".utf8)
            let requests = pending.map { index in
                FCMRequest(path: path, authorization: authorization, contentType: "application/json",
                           body: messages[index].body(), expiration: messages[index].expiration)
            }
            let answers = await transport.send(messages: requests, urgent: urgent)
            var unauthorized: [Int] = []
            for (index, answer) in zip(pending, answers) {
                if !refreshed, case let .response(response) = answer, response.status == 401 {
                    unauthorized.append(index)
                } else {
                    results[index] = FCMResult(answer)
                }
            }
            if !unauthorized.isEmpty { tokens.rejected(token) }
            refreshed = true
            pending = unauthorized
        }
        return results.map { $0 ?? .failed(.transport(.shutdown)) }
    }

    /// The connections' counters (the token endpoint's are apart).
    public var statistics: APNSClientStatistics { transport.statistics }

    /// Fails what has not gone out, waits for what has, closes every connection.
    public func shutdown() async {
        await transport.shutdown()
        await tokens.shutdown()
    }
}

extension FCMResult {
    /// What the pools answered, in FCM's terms.
    init(_ answer: HTTP2Answer) {
        switch answer {
        case let .response(response):
            self.init(status: response.status, body: response.body, retryAfter: response.retryAfter)
        case let .failed(failure):
            self = .failed(.transport(failure))
        }
    }
}
