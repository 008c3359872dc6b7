import RelayCore
import RelayStore

/// The JSON of each report call, in JPush's shapes. PushRelay delivers through APNs (iOS) and
/// FCM (Android): `ios_apns_sent` / `sub_ios.apns` is what APNs accepted, `android_pns_sent` /
/// `sub_android.android_pns` what FCM accepted, `sent` both. Received and click come from the
/// receipts the app reports (`POST /client/v1/receipts`): iOS devices' in `ios_apns_received`
/// and `sub_ios.apns`, Android devices' in `android_received` / `android_pns_received` and
/// `sub_android.android_pns` (FCM is this relay's only Android channel), both in
/// `notification`; numbers from the start (0 until a device reports). What no receipt says
/// (display) and other channels are null.
enum ReportShapes {
    /// One element of `GET /v3/received`, or with `detail` of `GET /v3/received/detail`:
    /// the same fields and JPush's per-channel detail counters (its `live_acivity` spelling
    /// included).
    struct Received: Encodable {
        var counters: MessageCounters
        var detail = false

        private static let unknown = ["ios_msg_received", "wp_mpns_sent"]
        private static let unknownInDetail = [
            "jpush_received", "live_acivity_sent", "live_acivity_received",
            "quickapp_jpush_received", "quickapp_pns_sent", "hmos_hmpns_sent", "hmos_hmpns_received", "hmos_msg_received",
        ]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(counters.id.description, forKey: "msg_id")
            try container.encode(counters.iosSent, forKey: "ios_apns_sent")
            try container.encode(counters.iosReceived, forKey: "ios_apns_received")
            try container.encode(counters.androidReceived, forKey: "android_received")
            if detail {
                try container.encode(counters.androidSent, forKey: "android_pns_sent")
                try container.encode(counters.androidReceived, forKey: "android_pns_received")
            }
            try container.encodeNulls(Self.unknown + (detail ? Self.unknownInDetail : []))
        }
    }

    /// One element of `GET /v3/messages/detail`: JPush's `details.notification` (both
    /// platforms) with `sub_ios.apns` and `sub_android.android_pns`, and PushRelay's own
    /// figures beside `details` (with the push's `ignored` parts).
    struct MessageDetail: Encodable {
        var counters: MessageCounters
        /// Outcomes other than sent by reason, as the pipeline recorded them.
        var failures: [String: Int]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(counters.id.description, forKey: "msg_id")
            var details = container.nestedContainer(keyedBy: AnswerKey.self, forKey: "details")
            var notification = details.nestedContainer(keyedBy: AnswerKey.self, forKey: "notification")
            try encodeChannel(target: counters.target, sent: counters.sent, received: counters.received, click: counters.opened,
                              into: &notification)
            var subIOS = notification.nestedContainer(keyedBy: AnswerKey.self, forKey: "sub_ios")
            var apns = subIOS.nestedContainer(keyedBy: AnswerKey.self, forKey: "apns")
            try encodeChannel(target: counters.iosTarget, sent: counters.iosSent, received: counters.iosReceived, click: counters.iosOpened,
                              into: &apns)
            var subAndroid = notification.nestedContainer(keyedBy: AnswerKey.self, forKey: "sub_android")
            var pns = subAndroid.nestedContainer(keyedBy: AnswerKey.self, forKey: "android_pns")
            try encodeChannel(target: counters.androidTarget, sent: counters.androidSent, received: counters.androidReceived,
                              click: counters.androidOpened, into: &pns)
            try container.encode(counters.state.rawValue, forKey: "state")
            try container.encode(failures, forKey: "failed_by_reason")
            for (key, count) in [("failed", counters.failed), ("invalidated_tokens", counters.invalidated), ("expired", counters.expired),
                                 ("pending", counters.pending), ("withdrawn", counters.withdrawn), ("retries", counters.retries)] {
                try container.encode(count, forKey: AnswerKey(key))
            }
            try counters.encodeTiming(into: &container)
            try container.encode(counters.ignored, forKey: "ignored")
        }

        private func encodeChannel(target: Int, sent: Int, received: Int, click: Int,
                                   into container: inout KeyedEncodingContainer<AnswerKey>) throws {
            for (key, count) in [("target", target), ("sent", sent), ("received", received), ("click", click)] {
                try container.encode(count, forKey: AnswerKey(key))
            }
            try container.encodeNulls(["display"])
        }
    }
}

extension MessageCounters {
    /// `created_at`, `first_sent_at`, `last_sent_at`, `finished_at`, `duration_seconds` and
    /// `throughput_per_second`, null until known: the timing every message answer shows.
    func encodeTiming(into container: inout KeyedEncodingContainer<AnswerKey>) throws {
        try container.encode(createdAt, forKey: "created_at")
        try container.encode(firstSentAt, forKey: "first_sent_at")
        try container.encode(lastSentAt, forKey: "last_sent_at")
        try container.encode(finishedAt, forKey: "finished_at")
        try container.encode(durationSeconds, forKey: "duration_seconds")
        try container.encode(throughputPerSecond, forKey: "throughput_per_second")
    }
}
