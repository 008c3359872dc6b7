import Foundation
import PushCore
import PushPipeline
import RelayCore
import RelayStore

/// The JSON answers of the group routes.
enum GroupShapes {
    /// `/v3/grouppush`: `group_msgid`, and per app key that app's push answer (`{sendno,
    /// msg_id}`, with `ignored` as `/v3/push` says it) or JPush's error object (with the
    /// msg_id when the error has one).
    struct PushAnswer: Encodable {
        var groupMsgID: MessageID
        var outcomes: [GroupPushStore.Outcome]
        /// `PushRequest.ignored` by app key: the same for every app, but for `callback` in
        /// those without a webhook.
        var ignored: [String: [String]]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(groupMsgID.description, forKey: AnswerKey("group_msgid"))
            for outcome in outcomes {
                switch outcome.result {
                case .success(let accepted):
                    try container.encode(PushReply(sendno: accepted.sendno, msgID: accepted.msgID, ignored: ignored[outcome.appKey] ?? []), forKey: AnswerKey(outcome.appKey))
                case .failure(let error):
                    try container.encode(error, forKey: AnswerKey(outcome.appKey))
                }
            }
        }
    }

    /// One app's part of a group push: its message's counters, or the error its push got.
    struct Part: Encodable {
        var part: GroupPushRecord.Part

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(part.appKey, forKey: AnswerKey("app_key"))
            switch part.result {
            case .failure(let error):
                try GroupShapes.encode(error, into: &container)
            case .success(let counters):
                try container.encode(counters.id.description, forKey: AnswerKey("msg_id"))
                try container.encode(counters.state.rawValue, forKey: AnswerKey("state"))
                for (key, value) in [("target", counters.target), ("sent", counters.sent), ("failed", counters.failed),
                                     ("invalidated_tokens", counters.invalidated), ("expired", counters.expired),
                                     ("pending", counters.pending), ("withdrawn", counters.withdrawn), ("retries", counters.retries)] {
                    try container.encode(value, forKey: AnswerKey(key))
                }
                try container.encode(counters.createdAt, forKey: AnswerKey("created_at"))
                try container.encode(counters.finishedAt, forKey: AnswerKey("finished_at"))
            }
        }
    }

    /// An element of `GET /admin/v1/groups/{group_key}/messages`.
    struct Push: Encodable {
        var record: GroupPushRecord

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(record.groupMsgID.description, forKey: AnswerKey("group_msgid"))
            try container.encode(record.createdAt, forKey: AnswerKey("created_at"))
            try container.encode(record.target, forKey: AnswerKey("target"))
            try container.encode(record.sent, forKey: AnswerKey("sent"))
            try container.encode(record.parts.map(Part.init), forKey: AnswerKey("apps"))
        }
    }

    /// `GET /admin/v1/groups/{group_key}/messages`: a page of the group's pushes, newest first.
    struct PushPage: Encodable {
        var groupKey: String
        var pushes: [Push]
        var next: String?

        enum CodingKeys: String, CodingKey { case groupKey = "group_key", pushes = "messages", next = "next_cursor" }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(groupKey, forKey: .groupKey)
            try container.encode(pushes, forKey: .pushes)
            try container.encode(next, forKey: .next)
        }
    }

    /// `DELETE /admin/v1/groups/{group_key}`.
    struct Deleted: Encodable {
        var groupKey: String
        var deleted = true

        enum CodingKeys: String, CodingKey { case groupKey = "group_key", deleted }
    }

    /// An element of `GET /v3/group/messages/detail`: JPush's group message statistics, the
    /// iOS and Android figures summed over the group's apps (APNs accepted = `apns_sent`, FCM
    /// accepted = `pns_sent`, the devices' receipts = `*_received` and `*_click`; what no
    /// receipt says (display) or another channel could count is null), and the apps' parts
    /// beside them.
    struct MessageDetail: Encodable {
        var record: GroupPushRecord

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encode(record.groupMsgID.description, forKey: AnswerKey("group_msgid"))
            try container.encodeNil(forKey: AnswerKey("jpush"))
            let counters = record.counters
            var android = container.nestedContainer(keyedBy: AnswerKey.self, forKey: AnswerKey("android_pns"))
            try android.encode(counters.reduce(0) { $0 + $1.androidTarget }, forKey: AnswerKey("pns_target"))
            try android.encode(counters.reduce(0) { $0 + $1.androidSent }, forKey: AnswerKey("pns_sent"))
            try android.encode(counters.reduce(0) { $0 + $1.androidReceived }, forKey: AnswerKey("pns_received"))
            try android.encode(counters.reduce(0) { $0 + $1.androidOpened }, forKey: AnswerKey("pns_click"))
            try android.encodeNil(forKey: AnswerKey("pns_display"))
            var ios = container.nestedContainer(keyedBy: AnswerKey.self, forKey: AnswerKey("ios"))
            try ios.encode(counters.reduce(0) { $0 + $1.iosTarget }, forKey: AnswerKey("apns_target"))
            try ios.encode(counters.reduce(0) { $0 + $1.iosSent }, forKey: AnswerKey("apns_sent"))
            try ios.encode(counters.reduce(0) { $0 + $1.iosReceived }, forKey: AnswerKey("apns_received"))
            try ios.encode(counters.reduce(0) { $0 + $1.iosOpened }, forKey: AnswerKey("apns_click"))
            for key in ["apns_display", "msg_target", "msg_received", "msg_click", "msg_display"] {
                try ios.encodeNil(forKey: AnswerKey(key))
            }
            try container.encode(record.parts.map(Part.init), forKey: AnswerKey("apps"))
        }
    }

    /// Adds JPush's `{"error":{"code":…,"message":…}}` to an object that says more beside it.
    private static func encode(_ error: JPushError, into container: inout KeyedEncodingContainer<AnswerKey>) throws {
        var inner = container.nestedContainer(keyedBy: AnswerKey.self, forKey: "error")
        try inner.encode(error.code, forKey: "code")
        try inner.encode(error.message, forKey: "message")
    }
}
