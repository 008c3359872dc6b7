// An app backend in Swift sending a trade alert to one user's devices through PushRelay.
// Add PushRelayKit to your server package:
//   .package(url: "<this repository>", branch: "main")
//   .product(name: "PushRelayKit", package: "PushRelay")
// (Tests/PushRelayKitTests/EndToEndTests.swift runs the same calls against a live relay.)
import Foundation
import PushRelayKit

struct TradeAlerts {
    let relay = PushRelayClient(
        baseURL: URL(string: ProcessInfo.processInfo.environment["PUSHRELAY_URL"] ?? "http://127.0.0.1:8080")!,
        appKey: ProcessInfo.processInfo.environment["PUSHRELAY_APP_KEY"]!,
        masterSecret: ProcessInfo.processInfo.environment["PUSHRELAY_MASTER_SECRET"]!)

    /// The app registered itself with the client key and reports its registration id after the
    /// user signed in: the backend, which authenticated the user, attaches the alias (a phone
    /// may not: it could claim anyone's).
    func attachDevice(userID: String, registrationID: String) async throws {
        try await relay.updateDevice(registrationID, DeviceUpdate(alias: userID))
    }

    /// The user opened the app: their badge count starts again at 0 (the next "+1" shows 1).
    func resetBadge(registrationID: String) async throws {
        try await relay.updateDevice(registrationID, DeviceUpdate(badge: 0))
    }

    /// Every device attached to the user gets it. The push asks for the app's Notification
    /// Service Extension (mutableContent), which reports "received".
    func tradeFilled(userID: String, tradeID: String, text: String) async throws -> String {
        let push = Push(
            platform: .ios,
            audience: .alias(userID),
            notification: PushNotification(ios: IOSNotification(
                alert: .rich(title: "Trade filled", subtitle: nil, body: text),
                sound: "default",
                badge: .add(1),                      // the relay counts each device's badge
                mutableContent: true,                // the extension reports "received"
                threadID: "trades",
                interruptionLevel: .timeSensitive,
                extras: ["route": "trade", "id": .string(tradeID)])),  // what the app's router reads
            options: PushOptions(timeToLive: 300))
        do {
            // A cid is generated and kept across retries: a timeout never sends the alert twice.
            let result = try await relay.push(push)
            return result.msgID
        } catch PushRelayError.api(_, 1011, _, _) {
            return ""  // the user has no registered device
        }
    }

    /// How many devices APNs accepted it for.
    func sent(msgID: String) async throws -> Int {
        try await relay.received(msgIDs: [msgID]).first?.iosApnsSent ?? 0
    }
}
