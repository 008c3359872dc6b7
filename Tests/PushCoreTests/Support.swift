import Foundation
import Testing
import RelayCore
@testable import PushCore

/// Parses a push body given as text.
func push(_ body: String) throws(JPushError) -> PushRequest {
    try PushRequest.parse(Array(body.utf8))
}

/// The error a push body is rejected with, or nil when it is accepted.
func rejection(_ body: String) -> JPushError? {
    do {
        _ = try push(body)
        return nil
    } catch {
        return error
    }
}

/// A minimal valid body with `fragment` (e.g. `"options":{…}`) added.
func body(_ fragment: String = "", audience: String = #""all""#, platform: String = #""ios""#,
          notification: String? = #"{"alert":"hi"}"#) -> String {
    var parts = [#""platform":\#(platform)"#, #""audience":\#(audience)"#]
    if let notification { parts.append(#""notification":\#(notification)"#) }
    if !fragment.isEmpty { parts.append(fragment) }
    return "{" + parts.joined(separator: ",") + "}"
}

/// A body whose `notification.ios` is `ios`.
func iosBody(_ ios: String, _ fragment: String = "") -> String {
    body(fragment, notification: #"{"ios":\#(ios)}"#)
}

let sampleMsgID = MessageID(rawValue: 42)!

/// The payload of `request` for a device with `storedBadge`, as text.
func payloadText(_ request: PushRequest, storedBadge: Int = 0, msgID: MessageID = sampleMsgID) throws(JPushError) -> String {
    let prepared = try APNSPayloadBuilder.prepare(request, msgID: msgID, topic: "com.example.app", acceptedAt: 1_800_000_000)
    return String(decoding: prepared.notification(deviceID: 7, storedBadge: storedBadge).payload, as: UTF8.self)
}

func payloadText(_ body: String, storedBadge: Int = 0) throws -> String {
    try payloadText(push(body), storedBadge: storedBadge)
}

/// A JSON document as Foundation objects, to check that our bytes are valid JSON.
func foundationJSON(_ bytes: [UInt8]) throws -> NSDictionary {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
}
