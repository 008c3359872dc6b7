import RelayCore
import Testing
@testable import PushCore

@Suite struct BatchPushListTests {
    func parse(_ text: String, _ target: BatchPushList.Target = .registrationID) throws(JPushError) -> [BatchPushList.Entry] {
        try BatchPushList.parse(Array(text.utf8), target: target)
    }

    @Test func entriesSucceedOrFailOnTheirOwn() throws {
        let entries = try parse(#"""
            {"pushlist":{
              "c2":{"platform":"all","target":"0123456789abcdef0123456789abcdef","notification":{"ios":{"alert":"x","badge":"+1"}},
                    "options":{"time_to_live":60}},
              "c1":{"platform":"ios","target":"r","notification":{"ios":{"alert":"x","badge":"nope"}}},
              "c3":{"platform":"ios","audience":"all","notification":{"alert":"x"}},
              "c4":{"platform":"ios","notification":{"alert":"x"}}
            }}
            """#)
        #expect(entries.map(\.cid) == ["c1", "c2", "c3", "c4"])
        guard case .rejected(let badge) = entries[0].outcome else { Issue.record("c1 accepted"); return }
        #expect(badge.code == 1003)
        #expect(badge.message.hasPrefix("pushlist.c1.notification.ios.badge must be"))
        guard case .accepted(let request, let stored) = entries[1].outcome else { Issue.record("c2 rejected"); return }
        #expect(request.audience == .filter(AudienceFilter(registrationIDs: ["0123456789abcdef0123456789abcdef"])))
        #expect(request.audience.isTargeted)
        #expect(request.cid == "c2")
        #expect(request.options.timeToLive == 60)
        // The stored body is a plain push body that gives the same request back.
        #expect(try PushRequest.parse(stored) == request)
        #expect(entries[2].outcome == .rejected(JPushError(status: 400, code: 1009, message: "unknown field \"pushlist.c3.audience\"")))
        #expect(entries[3].outcome == .rejected(JPushError(status: 400, code: 1002, message: "pushlist.c4.target is required")))
    }

    @Test func aliasTargets() throws {
        let entries = try parse(#"{"pushlist":{"a":{"platform":"ios","target":"用户_1","notification":{"alert":"x"}},"b":{"platform":"ios","target":"no way","notification":{"alert":"x"}}}}"#, .alias)
        guard case .accepted(let request, let stored) = entries[0].outcome else { Issue.record("a rejected"); return }
        #expect(request.audience == .filter(AudienceFilter(aliases: ["用户_1"])))
        #expect(try PushRequest.parse(stored) == request)
        guard case .rejected(let error) = entries[1].outcome else { Issue.record("b accepted"); return }
        #expect(error.message.hasPrefix("pushlist.b.target \"no way\" contains \" \""))
    }

    @Test func wholeBodyErrors() throws {
        #expect(throws: JPushError.missingParameter("pushlist is required and must name at least one cid")) { try parse("{}") }
        #expect(throws: JPushError.missingParameter("pushlist is required and must name at least one cid")) { try parse(#"{"pushlist":{}}"#) }
        #expect(throws: JPushError(status: 400, code: 1009, message: "unknown field \"platform\"")) { try parse(#"{"pushlist":{},"platform":"all"}"#) }
        #expect(throws: JPushError.illegalValue("pushlist must be an object, got an array")) { try parse(#"{"pushlist":[]}"#) }
        let entry = #"{"platform":"ios","target":"r","notification":{"alert":"x"}}"#
        let thousand = "{\"pushlist\":{" + (0..<1000).map { "\"c\($0)\":\(entry)" }.joined(separator: ",") + "}}"
        #expect(try parse(thousand).count == 1000)
        let tooMany = "{\"pushlist\":{" + (0..<1001).map { "\"c\($0)\":\(entry)" }.joined(separator: ",") + "}}"
        #expect(throws: JPushError.illegalValue("pushlist has 1001 entries; at most 1000 are allowed")) { try parse(tooMany) }
    }

    @Test func cidKeysAreChecked() throws {
        let long = String(repeating: "k", count: 129)
        let entries = try parse("{\"pushlist\":{\"\(long)\":{\"platform\":\"ios\",\"target\":\"r\",\"notification\":{\"alert\":\"x\"}}}}")
        #expect(entries[0].outcome == .rejected(JPushError.illegalValue(
            "pushlist key \"\(long.prefix(100))…\" (129 bytes) must be 1 to 128 bytes without control characters")))
    }
}
