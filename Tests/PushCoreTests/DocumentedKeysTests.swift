import RelayCore
import Testing
@testable import PushCore

/// Every key JPush documents is accepted, the ones this relay does not deliver are listed as
/// ignored by their path, and any other key is refused with 1009.
@Suite struct DocumentedKeysTests {
    /// A valid value for each documented key, by path.
    static let samples: [String: String] = [
        "platform": #""all""#, "audience": #"{"alias":["a"]}"#, "notification": #"{"alert":"n"}"#,
        "message": #"{"msg_content":"m"}"#, "options": "{}", "cid": #""c-1""#,
        "sms_message": #"{"delay_time":3600,"signid":1,"temp_id":1250,"temp_para":{"code":"123456"},"active_filter":false}"#,
        "callback": #"{"url":"https://example.com/cb","params":{"k":"v"},"type":3}"#,
        "notification_3rd": #"{"title":"t","content":"c","channel_id":"ch","uri_activity":"a","extras":{"k":1}}"#,
        "inapp_message": #"{"inapp_message":true}"#,
        "live_activity": #"{"ios":{"event":"update","content-state":{"eta":5},"dismissal-date":1700000000}}"#,
        "notification.alert": #""a""#, "notification.ios": #"{"alert":"i"}"#,
        "notification.android": #"{"alert":"a","title":"t","builder_id":1,"channel_id":"c","intent":{"url":"u"}}"#,
        "notification.hmos": #"{"alert":"h","title":"t","category":"IM","intent":{"url":"u"},"badge_add_num":1}"#,
        "notification.quickapp": #"{"alert":"q","title":"t","page":"/p"}"#,
        "notification.winphone": #"{"alert":"w","title":"t","_open_page":"/p.xaml"}"#,
        "notification.voip": #"{"key":"value"}"#, "notification.ai_opportunity": "true",
        "notification.ios.alert": #"{"title":"T","body":"B"}"#, "notification.ios.sound": #""s.caf""#,
        "notification.ios.badge": #""+1""#, "notification.ios.content-available": "1", "notification.ios.mutable-content": "true",
        "notification.ios.category": #""c""#, "notification.ios.thread-id": #""t""#,
        "notification.ios.interruption-level": #""time-sensitive""#, "notification.ios.relevance-score": "0.25",
        "notification.ios.target-content-id": #""w-1""#, "notification.ios.extras": #"{"k":1}"#,
        "notification.ios.filter-criteria": #""work""#, "notification.ios.push_type": #""alert""#,
        "message.msg_content": #""m""#, "message.title": #""t""#, "message.content_type": #""text""#,
        "message.extras": #"{"k":"v"}"#, "message.test_message": "false",
        "options.sendno": "7", "options.time_to_live": "60", "options.apns_production": "false",
        "options.apns_collapse_id": #""c""#, "options.apns_priority": "5", "options.override_msg_id": #""12345""#, "options.big_push_duration": "10",
        "options.third_party_channel": #"{"xiaomi":{"distribution":"ospush","channel_id":"1"},"vivo":{"classification":1}}"#,
        "options.classification": "1", "options.notification_3rd_ver": #""v2""#, "options.alternate_set": "true",
    ]

    /// A minimal body with `key` of the object at `path` set to `value`.
    static func bodyWith(_ path: String, _ key: String, _ value: JSONValue) -> [UInt8] {
        var top: [String: JSONValue] = ["platform": .string("ios"), "audience": .string("all"), "notification": .object(["alert": .string("hi")])]
        switch path {
        case "":
            top[key] = value
        case "notification.ios.":
            var ios: [String: JSONValue] = ["alert": .string("i")]
            ios[key] = value
            top["notification"] = .object(["ios": .object(ios)])
        default:
            let name = String(path.dropLast())
            var object: [String: JSONValue] = name == "message" ? ["msg_content": .string("m")] : [:]
            if case .object(let fields)? = top[name] { object = fields }
            object[key] = value
            top[name] = .object(object)
        }
        return CanonicalJSON.bytes(.object(top))
    }

    @Test func everyDocumentedKeyHasASample() {
        let documented = PushBodyKeys.all.flatMap { keys in keys.documented.map { keys.path + $0 } }
        #expect(Set(documented) == Set(Self.samples.keys))
    }

    @Test(arguments: PushBodyKeys.all.flatMap { keys in CanonicalJSON.sorted(keys.documented).map { (keys.path, $0) } })
    func documentedKeyIsAccepted(path: String, key: String) throws {
        let keys = try #require(PushBodyKeys.all.first { $0.path == path })
        let value = try JSONValue.parse(Array(Self.samples[path + key]!.utf8))
        let bytes = Self.bodyWith(path, key, value)
        let request = try PushRequest.parse(bytes)
        // The Android block (here with platform ios) and the vendor channels name their parts.
        let parts: [String: [String]] = [
            "notification.android": ["notification.android", "notification.android.builder_id"],
            "options.third_party_channel": ["options.third_party_channel.vivo", "options.third_party_channel.xiaomi"],
        ]
        let expected = parts[path + key] ?? (keys.ignored[key] == nil ? [] : [path + key])
        #expect(request.ignored == expected)
        #expect(PushBodyKeys.ignoredParts(ofBody: bytes) == expected)
    }

    @Test(arguments: PushBodyKeys.all.map(\.path))
    func undocumentedKeyIs1009(path: String) {
        for key in ["colour", "smsMessage", "third-party-channel", "Alert"] {
            let bytes = Self.bodyWith(path, key, .string("x"))
            #expect(throws: JPushError(status: 400, code: 1009, message: "unknown field \"\(path)\(key)\"")) {
                try PushRequest.parse(bytes)
            }
        }
    }

    @Test func undocumentedKeysInsideBatchEntriesAre1009() throws {
        let text = #"{"pushlist":{"c1":{"platform":"ios","target":"alias1","notification":{"alert":"a"},"sms_message":{"temp_id":1},"callback":{"url":"https://example.com/cb"}},"c2":{"platform":"ios","target":"alias1","notification":{"alert":"a"},"audience":"all"}}}"#
        let entries = try BatchPushList.parse(Array(text.utf8), target: .alias)
        guard case .accepted(let request, let body) = entries[0].outcome else { Issue.record("c1 rejected"); return }
        #expect(request.ignored == ["sms_message"])
        #expect(request.callback?.url?.text == "https://example.com/cb")
        #expect(PushBodyKeys.ignoredParts(ofBody: body) == ["sms_message"])
        #expect(entries[1].outcome == .rejected(JPushError(status: 400, code: 1009, message: "unknown field \"pushlist.c2.audience\"")))
    }

    @Test func ignoredPartsHaveTheirTypeChecked() {
        let cases: [(String, String, JSONValue, String)] = [
            ("", "sms_message", .string("x"), "sms_message must be an object, got a string"),
            ("", "callback", .array([]), "callback must be an object, got an array"),
            ("notification.", "android", .string("a"), "notification.android must be an object, got a string"),
            ("notification.", "ai_opportunity", .string("yes"), "notification.ai_opportunity must be true, false, 0 or 1, got \"yes\""),
            ("options.", "third_party_channel", .int(1), "options.third_party_channel must be an object, got a number"),
            ("options.", "classification", .string("1"), "options.classification must be an integer, got a string"),
            ("options.", "notification_3rd_ver", .int(2), "options.notification_3rd_ver must be a string, got a number"),
            ("message.", "test_message", .int(2), "message.test_message must be true, false, 0 or 1, got 2"),
        ]
        for (path, key, value, message) in cases {
            #expect(throws: JPushError(status: 400, code: 1003, message: message)) { try PushRequest.parse(Self.bodyWith(path, key, value)) }
        }
    }

    @Test func nullIgnoredPartsAreAbsent() throws {
        #expect(try push(body(#""sms_message":null,"options":{"third_party_channel":null}"#)).ignored == [])
    }

    @Test func fullJPushBodyListsEveryIgnoredPart() throws {
        let text = #"""
            {"platform":"all","audience":{"alias":["u1"]},
             "notification":{"alert":"Hello","android":{"alert":"A","title":"T","builder_id":1},"ios":{"alert":"I","badge":"+1",
               "sound":"default","thread-id":"chat","interruption-level":"active","relevance-score":1,"target-content-id":"w"},
               "hmos":{"alert":"H","category":"IM"},"voip":{"k":"v"},"ai_opportunity":false},
             "message":{"msg_content":"m","title":"t"},
             "sms_message":{"delay_time":60,"temp_id":1,"temp_para":{"code":"1"}},
             "callback":{"url":"https://example.com/cb","params":{"a":1},"type":3},
             "options":{"sendno":3,"apns_production":false,"third_party_channel":{"huawei":{"importance":"NORMAL"}},"classification":1},
             "cid":"c-9"}
            """#
        let request = try push(text)
        let expected = [
            "notification.ai_opportunity", "notification.android.builder_id", "notification.hmos", "notification.voip",
            "options.classification", "options.third_party_channel.huawei", "sms_message",
        ]
        #expect(request.ignored == expected)
        #expect(PushBodyKeys.ignoredParts(ofBody: Array(text.utf8)) == expected)
        #expect(request.deliversToIOS && request.deliversToAndroid)
        #expect(try payloadText(request, storedBadge: 1) == #"""
            {"_j_message":{"msg_content":"m","title":"t"},"_j_msgid":42,"aps":{"alert":"I","badge":2,"interruption-level":"active","relevance-score":1.0,"sound":"default","target-content-id":"w","thread-id":"chat"}}
            """#)
    }

    @Test func contentOnlyForIgnoredPartsIsAcceptedAndSendsNothingToIOS() throws {
        // (`voip` alone is a VoIP push to iOS since issue 29: PushTypeTests.)
        for notification in [#"{"android":{"alert":"a"}}"#, #"{"hmos":{"alert":"h"}}"#] {
            let request = try push(body(platform: #""all""#, notification: notification))
            #expect(!request.deliversToIOS)
            #expect(request.deliversToAndroid == notification.contains("android"))
        }
        // An Android block on an iOS-only push is kept and named, not delivered.
        let iosOnly = try push(body(platform: #""ios""#, notification: #"{"android":{"alert":"a"}}"#))
        #expect(!iosOnly.deliversToIOS && !iosOnly.deliversToAndroid && iosOnly.ignored == ["notification.android"])
        let sms = try push(iosBody(#"{"extras":{"k":"v"}}"#, #""sms_message":{"temp_id":1,"delay_time":0}"#))
        #expect(!sms.deliversToIOS)
        #expect(try push(body()).deliversToIOS)
        // Options of a delivery are no content: nothing for anyone is still an error.
        let nothing = "nothing to deliver to iOS: give notification.alert, notification.ios with alert, sound, badge or content-available, or a message"
        #expect(rejection(iosBody(#"{"extras":{"k":"v"}}"#, #""callback":{"url":"https://example.com/cb"},"options":{"classification":1}"#))
            == JPushError(status: 400, code: 1002, message: nothing))
        #expect(rejection(body(notification: #"{"ai_opportunity":true}"#))?.code == 1002)
    }
}
