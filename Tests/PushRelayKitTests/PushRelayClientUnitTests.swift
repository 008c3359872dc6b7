import Foundation
import PushRelayKit
import Testing

/// The backend client's wire shapes and retry rules, against a scripted transport.
@Suite struct PushRelayClientUnitTests {
    func client(_ transport: ScriptedTransport, sleeper: ManualSleeper = ManualSleeper(), maxAttempts: Int = 3) -> PushRelayClient {
        PushRelayClient(baseURL: URL(string: "http://relay.test/base/")!, appKey: "key1", masterSecret: "s3cret",
                        maxAttempts: maxAttempts, backoff: Backoff(initial: .seconds(1), jitter: 0), transport: transport,
                        sleeper: sleeper, random: { 0 })
    }

    static let accepted = ScriptedTransport.Answer.reply(200, #"{"sendno":"0","msg_id":"123"}"#)

    @Test func aPushIsWrittenInJPushsShape() async throws {
        let transport = ScriptedTransport([Self.accepted])
        let push = Push(
            platform: .ios,
            audience: Audience(tag: ["vip"], tagAnd: ["eu"], tagNot: ["muted"], alias: ["user_42"], registrationID: []),
            notification: PushNotification(alert: "fallback", ios: IOSNotification(
                alert: .rich(title: "Trade filled", subtitle: nil, body: "100 AAPL @ 190"), sound: .critical(name: "ping.caf", volume: 0.5),
                badge: .add(1), contentAvailable: true, mutableContent: true, category: "TRADE", threadID: "trades",
                interruptionLevel: .timeSensitive, pushType: .alert, extras: ["route": "trade", "id": "T-42", "qty": 100])),
            message: PushMessage(content: "sync", title: "t", contentType: "text", extras: ["k": true]),
            options: PushOptions(sendno: 7, timeToLive: 60, apnsProduction: false, apnsCollapseID: "c1", overrideMsgID: "9", bigPushDuration: 5,
                                 apnsPriority: 5),
            cid: "my-cid")
        let result = try await client(transport).push(push)
        #expect(result.msgID == "123" && result.sendno == "0")

        let sent = try #require(transport.sent.first)
        #expect(sent.method == "POST")
        #expect(sent.url == "http://relay.test/base/v3/push")
        #expect(sent.headers["Authorization"] == "Basic " + Data("key1:s3cret".utf8).base64EncodedString())
        let expected: [String: Any] = [
            "platform": ["ios"],
            "audience": ["tag": ["vip"], "tag_and": ["eu"], "tag_not": ["muted"], "alias": ["user_42"]],
            "notification": [
                "alert": "fallback",
                "ios": [
                    "alert": ["title": "Trade filled", "body": "100 AAPL @ 190"],
                    "sound": ["critical": 1, "name": "ping.caf", "volume": 0.5],
                    "badge": "+1", "content-available": true, "mutable-content": true, "category": "TRADE",
                    "thread-id": "trades", "interruption-level": "time-sensitive", "push_type": "alert",
                    "extras": ["route": "trade", "id": "T-42", "qty": 100],
                ],
            ],
            "message": ["msg_content": "sync", "title": "t", "content_type": "text", "extras": ["k": true]],
            "options": ["sendno": 7, "time_to_live": 60, "apns_production": false, "apns_collapse_id": "c1",
                        "override_msg_id": "9", "big_push_duration": 5, "apns_priority": 5],
            "cid": "my-cid",
        ]
        #expect(NSDictionary(dictionary: sent.json) == NSDictionary(dictionary: expected))
    }

    @Test func aCallbackIsWrittenInJPushsShape() async throws {
        let transport = ScriptedTransport([Self.accepted, Self.accepted])
        let callback = PushCallback(url: "https://backend.example.com/cb", params: ["order": "7731", "n": 1], types: [.clicked, .accepted])
        _ = try await client(transport).push(Push(audience: .all, notification: PushNotification(alert: "hi"), cid: "c", callback: callback))
        let json = try #require(transport.sent.first).json
        let expected: [String: Any] = ["url": "https://backend.example.com/cb", "params": ["order": "7731", "n": 1], "type": 10]
        #expect(NSDictionary(dictionary: json["callback"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: expected))

        _ = try await client(transport).push(Push(audience: .all, notification: PushNotification(alert: "hi"), cid: "d", callback: PushCallback()))
        #expect(NSDictionary(dictionary: transport.sent[1].json["callback"] as? [String: Any] ?? ["x": 1]) == NSDictionary(dictionary: [:]))
    }

    @Test func broadcastsAndBadgeDecrementsAreWrittenAsJPushWantsThem() async throws {
        let transport = ScriptedTransport([Self.accepted])
        _ = try await client(transport).push(Push(audience: .all, notification: PushNotification(ios: IOSNotification(alert: "hi", badge: .add(-2)))))
        let json = try #require(transport.sent.first).json
        #expect(json["audience"] as? String == "all")
        #expect(json["platform"] as? String == "all")
        #expect(((json["notification"] as? [String: Any])?["ios"] as? [String: Any])?["badge"] as? String == "-2")
        #expect((json["cid"] as? String)?.hasPrefix("key1-") == true, "a cid is generated")
    }

    @Test func aPushIsRetriedOnTransientFailuresWithTheSameCID() async throws {
        let transport = ScriptedTransport([
            .offline,
            .reply(503, #"{"error":{"code":1030,"message":"storage unavailable"}}"#),
            Self.accepted,
        ])
        let sleeper = ManualSleeper()
        let client = client(transport, sleeper: sleeper)
        let task = Task { try await client.push(Push(audience: .alias("user_42"), notification: PushNotification(alert: "hi"))) }
        try await sleeper.waitForSleepers()
        sleeper.fireNext()
        try await poll("second retry") { sleeper.requested.count == 2 && sleeper.waitingCount == 1 ? true : nil }
        sleeper.fireNext()
        let result = try await task.value
        #expect(result.msgID == "123")
        #expect(sleeper.requested == [.seconds(1), .seconds(2)])
        let cids = transport.sent.map { $0.json["cid"] as? String }
        #expect(cids.count == 3)
        #expect(Set(cids).count == 1 && cids[0] != nil, "every attempt carries the same cid")
    }

    @Test func refusalsAreNotRetriedAndCarryTheJPushCode() async throws {
        let transport = ScriptedTransport([.reply(400, #"{"error":{"code":1011,"message":"no target"},"msg_id":"555"}"#)])
        await #expect(throws: PushRelayError.api(status: 400, code: 1011, message: "no target", msgID: "555")) {
            try await client(transport).push(Push(audience: .alias("nobody"), notification: PushNotification(alert: "hi")))
        }
        #expect(transport.sent.count == 1)
    }

    @Test func writesThatAreNotIdempotentAreNotRetried() async throws {
        let transport = ScriptedTransport([.reply(503, #"{"error":{"code":7030,"message":"busy"}}"#), .reply(200, "")])
        do {
            try await client(transport).updateDevice("rid", DeviceUpdate(addTags: ["a"]))
            Issue.record("expected an error")
        } catch {
            #expect(error.code == 7030 && error.isTransient)
        }
        #expect(transport.sent.count == 1)
    }

    @Test func readsGiveUpAfterMaxAttemptsAndNonJSONErrorsAreReported() async throws {
        let transport = ScriptedTransport([.reply(502, "<html>bad gateway</html>"), .reply(502, "<html>bad gateway</html>")])
        let sleeper = ManualSleeper()
        let client = client(transport, sleeper: sleeper, maxAttempts: 2)
        let task = Task { try await client.tags() }
        try await sleeper.waitForSleepers()
        sleeper.fireNext()
        await #expect(throws: PushRelayError.unreadableResponse(status: 502, body: "<html>bad gateway</html>")) { try await task.value }
        #expect(transport.sent.count == 2)
    }

    @Test func pathSegmentsArePercentEncodedAndQueriesWritten() async throws {
        let transport = ScriptedTransport([.reply(200, #"{"registration_ids":[]}"#), .reply(200, #"[{"msg_id":7,"ios_apns_sent":1}]"#)])
        let client = client(transport)
        _ = try await client.alias("用户#1")
        let reports = try await client.received(msgIDs: ["7", "8"])
        #expect(transport.sent[0].url == "http://relay.test/base/v3/aliases/%E7%94%A8%E6%88%B7%231")
        #expect(transport.sent[1].url == "http://relay.test/base/v3/received?msg_ids=7,8")
        #expect(reports.first?.msgID == "7" && reports.first?.iosApnsSent == 1)
    }
}
