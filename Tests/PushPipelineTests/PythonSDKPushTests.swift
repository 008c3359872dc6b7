import Foundation
import Testing
import TestSupport

/// The official Python SDK (`jpush`) sends pushes through PushRelay, and they reach the
/// APNs simulator. Without python3 or the package the test fails: `make deps` installs them.
@Suite struct PythonSDKPushTests {
    static let script = #"""
import json

port, key, secret, rid = sys.argv[1:5]
relay_zone(port)
client = jpush.JPush(key, secret, zone="PUSHRELAY")

push = client.create_push()
push.platform = jpush.all_
push.audience = jpush.audience(jpush.registration_id(rid))
push.notification = jpush.notification(alert="from python", ios=jpush.ios(alert="from python", badge="+1", sound="default", extras={"order": 7}))
push.options = {"apns_production": True, "time_to_live": 600}
r = push.send_validate()
check(r.status_code == 200 and "msg_id" in r.payload, "send_validate: %s" % r.payload)
r = push.send()
check(r.status_code == 200 and r.payload["sendno"] == "0", "send: %s" % r.payload)
print("MSGID=" + r.payload["msg_id"])

nobody = client.create_push()
nobody.platform = jpush.all_
nobody.audience = jpush.audience(jpush.tag("nobody"))
nobody.notification = jpush.notification(alert="x")
try:
    nobody.send()
    raise SystemExit("FAILED: a push to nobody was accepted")
except common.JPushFailure as failure:
    check(failure.error_code == 1011 and failure.response.status_code == 400, "1011: %s" % failure.error_code)
print("jpush push ok")
"""#

    /// A body with every part JPush documents for a mixed Android and iOS app: what the SDK
    /// builds (android, ios, hmos, voip, message, sms_message, options with vendor channels,
    /// cid) and, through a subclass of its `Push`, the parts it has no helper for (callback,
    /// inapp_message).
    static let fullBodyScript = #"""
import json

port, key, secret, rid = sys.argv[1:5]
relay_zone(port)
client = jpush.JPush(key, secret, zone="PUSHRELAY")

class FullPush(jpush.Push):
    @property
    def payload(self):
        data = jpush.Push.payload.fget(self)
        data["callback"] = {"url": "https://example.com/jpush-callback", "params": {"order": "7"}, "type": 3}
        data["inapp_message"] = {"inapp_message": False}
        return data

push = FullPush(client)
push.platform = jpush.all_
push.audience = jpush.audience(jpush.registration_id(rid))
ios = jpush.ios(alert={"title": "Order 7", "body": "shipped"}, badge="+1", sound="default", mutable_content=True,
                category="order", thread_id="orders", interruption_level="time-sensitive", extras={"order": 7})
ios["relevance-score"] = 0.8
ios["target-content-id"] = "order-7"
push.notification = jpush.notification(
    alert="Order 7 shipped", ios=ios,
    android=jpush.android(alert="Order 7 shipped", title="Shop", builder_id=1, channel_id="orders", priority=1,
                          intent={"url": "intent:#Intent;component=com.example/.Order;end"}, extras={"order": 7}),
    hmos=jpush.hmos(alert="Order 7 shipped", title="Shop", category="EXPRESS", intent={"url": "scheme://order/7"}),
    voip=jpush.voip({"call": "none"}))
push.message = jpush.message("order 7 shipped", title="Shop", content_type="text", extras={"order": "7"})
push.smsmessage = jpush.smsmessage(3600, 1250, temp_para={"order": "7"}, signid=1, active_filter=False)
push.options = {"apns_production": True, "time_to_live": 600, "sendno": 77, "classification": 1,
                "third_party_channel": {"xiaomi": {"distribution": "ospush", "channel_id": "123"},
                                        "huawei": {"importance": "NORMAL", "category": "EXPRESS"},
                                        "vivo": {"classification": 1}}}
push.cid = push.get_cid(1, "push").payload["cidlist"][0]

ignored = ["callback", "inapp_message", "notification.android.builder_id", "notification.hmos", "notification.voip",
           "options.classification", "options.third_party_channel.huawei", "options.third_party_channel.vivo",
           "options.third_party_channel.xiaomi", "sms_message"]
r = push.send_validate()
check(r.status_code == 200 and r.payload.get("ignored") == ignored, "send_validate: %s" % r.payload)
r = push.send()
check(r.status_code == 200 and r.payload["sendno"] == "77" and r.payload.get("ignored") == ignored, "send: %s" % r.payload)
print("MSGID=" + r.payload["msg_id"])
print("jpush full body ok")
"""#

    /// Runs `script` with the relay's port, the app and `rid`; returns the msg_id it printed.
    static func runScript(_ script: String, relay: PipelineHarness, app: PipelineHarness.App, rid: String,
                          success: String) async throws -> Int64 {
        let (status, text) = try await JPushPythonSDK.run(script, [String(relay.port), app.key, app.secret, rid])
        #expect(status == 0, "python3 with the jpush package (make deps installs it):\n\(text)")
        #expect(text.contains(success), "\(text)")
        return try #require(text.split(separator: "\n").first { $0.hasPrefix("MSGID=") }.flatMap { Int64($0.dropFirst(6)) })
    }

    /// The registration id of the device with `token`, as the SDK writes it.
    static func registrationID(_ relay: PipelineHarness, token: String) async throws -> String {
        try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE token = $1",
                                   [token]).first!.string("rid")
    }

    @Test func officialPythonSDKSendsAPushThatReachesTheSimulator() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "f9", badge: 2)[0]
            let rid = try await Self.registrationID(relay, token: token)
            let msgID = try await Self.runScript(Self.script, relay: relay, app: app, rid: rid, success: "jpush push ok")
            try await relay.waitUntilFinished(msgID)
            let delivery = try #require(relay.simulator.deliveries(token: token).first)
            #expect(delivery.alert == "from python")
            #expect(delivery.badge == 3)
            #expect(delivery.json["order"] as? Int == 7)
            #expect(delivery.msgID == msgID)
        }
    }

    @Test func officialPythonSDKSendsAFullJPushBodyThatReachesItsIOSAudience() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "fb", badge: 2)[0]
            let rid = try await Self.registrationID(relay, token: token)
            let msgID = try await Self.runScript(Self.fullBodyScript, relay: relay, app: app, rid: rid,
                                                 success: "jpush full body ok")
            try await relay.waitUntilFinished(msgID)

            let delivery = try #require(relay.simulator.deliveries(token: token).first)
            #expect(delivery.msgID == msgID)
            #expect(delivery.pushType == "alert")
            let aps = try #require(delivery.json["aps"] as? [String: Any])
            #expect(aps["alert"] as? [String: String] == ["title": "Order 7", "body": "shipped"])
            #expect(delivery.badge == 3)
            #expect(aps["sound"] as? String == "default")
            #expect(aps["mutable-content"] as? Int == 1)
            #expect(aps["category"] as? String == "order")
            #expect(aps["thread-id"] as? String == "orders")
            #expect(aps["interruption-level"] as? String == "time-sensitive")
            #expect(aps["relevance-score"] as? Double == 0.8)
            #expect(aps["target-content-id"] as? String == "order-7")
            #expect(delivery.json["order"] as? Int == 7)
            #expect((delivery.json["_j_message"] as? [String: Any])?["msg_content"] as? String == "order 7 shipped")
            // Nothing of the parts for others reaches the phone.
            let payload = String(decoding: delivery.payload, as: UTF8.self)
            for key in ["android", "hmos", "voip", "sms_message", "callback", "third_party_channel"] {
                #expect(!payload.contains(key), "\(key) in \(payload)")
            }

            // Kept with the message, and named by its report (but `callback`, which the body
            // alone cannot tell ignored: that depends on the app's webhook, docs/callback.md).
            let body = try await relay.pool.query("SELECT body FROM messages WHERE id = $1", [msgID]).first!.string("body")
            for part in ["\"sms_message\"", "\"callback\"", "\"third_party_channel\"", "\"android\"", "\"inapp_message\""] {
                #expect(body.contains(part))
            }
            let report = try await relay.request("GET", "/admin/v1/messages/\(msgID)")
            #expect(report.json["ignored"] as? [String] == [
                "inapp_message", "notification.android.builder_id", "notification.hmos", "notification.voip",
                "options.classification", "options.third_party_channel.huawei", "options.third_party_channel.vivo",
                "options.third_party_channel.xiaomi", "sms_message",
            ])
        }
    }
}
