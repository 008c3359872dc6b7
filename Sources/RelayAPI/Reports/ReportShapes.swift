import Foundation
import RelayStore

/// The JSON of each report call, in JPush's shapes. PushRelay delivers through APNs only:
/// `ios_apns_sent` / `sent` is what APNs accepted, and what only a JPush client SDK could
/// know (receipt on the device, display, click) or other platforms' channels are null.
enum ReportShapes {
    /// One element of `GET /v3/received`.
    static func received(_ counters: MessageCounters) -> [String: Any] {
        [
            "msg_id": counters.id.description,
            "android_received": NSNull(),
            "ios_apns_sent": counters.sent,
            "ios_apns_received": NSNull(),
            "ios_msg_received": NSNull(),
            "wp_mpns_sent": NSNull(),
        ]
    }

    /// One element of `GET /v3/received/detail`: the fields of `received` and JPush's
    /// per-channel detail counters (its `live_acivity` spelling included).
    static func receivedDetail(_ counters: MessageCounters) -> [String: Any] {
        var json = received(counters)
        for key in ["jpush_received", "android_pns_sent", "android_pns_received", "live_acivity_sent", "live_acivity_received",
                    "quickapp_jpush_received", "quickapp_pns_sent", "hmos_hmpns_sent", "hmos_hmpns_received", "hmos_msg_received"] {
            json[key] = NSNull()
        }
        return json
    }

    /// One element of `GET /v3/messages/detail`: JPush's `details.notification` with
    /// `sub_ios.apns`, and PushRelay's own figures beside `details` (with the push's
    /// `ignored` parts).
    ///
    /// - Parameters:
    ///   - failures: outcomes other than sent by reason, as the pipeline recorded them.
    static func messageDetail(_ counters: MessageCounters, failures: [String: Int]) -> [String: Any] {
        let apns: [String: Any] = [
            "target": counters.target,
            "sent": counters.sent,
            "received": NSNull(),
            "display": NSNull(),
            "click": NSNull(),
        ]
        var notification = apns
        notification["sub_ios"] = ["apns": apns]
        return [
            "msg_id": counters.id.description,
            "details": ["notification": notification],
            "state": counters.state.rawValue,
            "failed": counters.failed,
            "failed_by_reason": failures,
            "invalidated_tokens": counters.invalidated,
            "expired": counters.expired,
            "pending": counters.pending,
            "withdrawn": counters.withdrawn,
            "retries": counters.retries,
            "created_at": counters.createdAt,
            "first_sent_at": counters.firstSentAt as Any? ?? NSNull(),
            "last_sent_at": counters.lastSentAt as Any? ?? NSNull(),
            "finished_at": counters.finishedAt as Any? ?? NSNull(),
            "duration_seconds": counters.durationSeconds as Any? ?? NSNull(),
            "throughput_per_second": counters.throughputPerSecond as Any? ?? NSNull(),
            "ignored": counters.ignored,
        ]
    }
}
