import RelayCore
import Testing
@testable import PushCore

@Suite struct AudienceTests {
    func audience(_ json: String) throws(JPushError) -> Audience {
        try push(body(audience: json)).audience
    }

    func error(_ json: String) -> JPushError? {
        rejection(body(audience: json))
    }

    func list(_ count: Int, _ make: (Int) -> String = { "t\($0)" }) -> String {
        "[" + (0..<count).map { "\"\(make($0))\"" }.joined(separator: ",") + "]"
    }

    @Test func allAndEveryKey() throws {
        #expect(try audience(#""all""#) == .all)
        let full = try audience(#"{"tag":["a","b"],"tag_and":["c"],"tag_not":["d"],"alias":["u1"],"registration_id":["0123456789abcdef0123456789abcdef"]}"#)
        #expect(full == .filter(AudienceFilter(
            tags: ["a", "b"], tagsAnd: ["c"], tagsNot: ["d"], aliases: ["u1"], registrationIDs: ["0123456789abcdef0123456789abcdef"])))
    }

    @Test func emptyListsAreAbsentAndAllEmptyIsAnError() throws {
        #expect(try audience(#"{"tag":[],"alias":["u"]}"#) == .filter(AudienceFilter(aliases: ["u"])))
        let expected = JPushError(
            status: 400, code: 1003,
            message: "audience must be \"all\" or name at least one of tag, tag_and, tag_not, alias, registration_id")
        #expect(error("{}") == expected)
        #expect(error(#"{"tag":[],"tag_and":[],"tag_not":[],"alias":[],"registration_id":[]}"#) == expected)
        #expect(error(#"{"tag":null}"#) == expected)
    }

    @Test func wrongShapes() throws {
        #expect(error(#""everyone""#)?.message == "audience must be \"all\" or an object, got \"everyone\"")
        #expect(error("[]")?.message == "audience must be \"all\" or an object, got an array")
        #expect(error(#"{"tag":"a"}"#)?.message == "audience.tag must be an array, got a string")
        #expect(error(#"{"alias":["a",1]}"#)?.message == "audience.alias[1] must be a string, got a number")
        #expect(error(#"{"abtest":["x"]}"#) == JPushError(status: 400, code: 1009, message:
            "audience.abtest is JPush's and cannot be resolved by PushRelay; use tag, tag_and, tag_not, alias or registration_id"))
        for key in ["segment", "live_activity_id"] {
            #expect(error("{\"\(key)\":[\"x\"],\"alias\":[\"a\"]}")?.message.hasPrefix("audience.\(key) is JPush's") == true)
        }
        #expect(try audience(#"{"segment":null,"alias":["a"]}"#) == .filter(AudienceFilter(aliases: ["a"])))
        #expect(error(#"{"segments":["x"]}"#) == JPushError(status: 400, code: 1009, message: "unknown field \"audience.segments\""))
    }

    @Test func listLimitsAtAndPastTheEdge() throws {
        for key in ["tag", "tag_and", "tag_not"] {
            #expect(try audience("{\"\(key)\":\(list(20))}") != .all)
            #expect(error("{\"\(key)\":\(list(21))}") == JPushError(
                status: 400, code: 1003, message: "audience.\(key) has 21 entries; at most 20 are allowed"))
        }
        #expect(try audience("{\"alias\":\(list(1000))}") != .all)
        #expect(error("{\"alias\":\(list(1001))}")?.message == "audience.alias has 1001 entries; at most 1000 are allowed")
        let rids = { (i: Int) in String(format: "%032x", i) }
        #expect(try audience("{\"registration_id\":\(list(1000, rids))}") != .all)
        #expect(error("{\"registration_id\":\(list(1001, rids))}")?.message
            == "audience.registration_id has 1001 entries; at most 1000 are allowed")
    }

    @Test func repeatsAreDroppedKeepingOrder() throws {
        #expect(try audience(#"{"tag":["b","a","b"]}"#) == .filter(AudienceFilter(tags: ["b", "a"])))
    }

    @Test func labelLengthIsCountedInUTF8Bytes() throws {
        let forty = String(repeating: "a", count: 40)
        #expect(try audience("{\"tag\":[\"\(forty)\"]}") == .filter(AudienceFilter(tags: [forty])))
        #expect(error("{\"tag\":[\"\(forty)a\"]}") == JPushError(
            status: 400, code: 1003, message: "audience.tag \"\(forty)a\" is 41 bytes; at most 40 bytes of UTF-8 are allowed"))
        // 13 ideographs are 39 bytes, 14 are 42.
        let thirteen = String(repeating: "中", count: 13)
        #expect(try audience("{\"alias\":[\"\(thirteen)a\"]}") == .filter(AudienceFilter(aliases: [thirteen + "a"])))
        #expect(error("{\"alias\":[\"\(thirteen)中\"]}")?.message
            == "audience.alias \"\(thirteen)中\" is 42 bytes; at most 40 bytes of UTF-8 are allowed")
    }

    @Test func labelCharacters() throws {
        let allowed = ["user_1", "VIP", "北京", "東京", "@!#$&*+=.|￥", "𠀀x"]
        for label in allowed {
            #expect(try audience("{\"tag\":[\"\(label)\"]}") == .filter(AudienceFilter(tags: [label])), "\(label)")
        }
        let refused: [(String, String)] = [
            ("a b", " "), ("a-b", "-"), ("a/b", "/"), ("é", "\\u{00E9}"), ("한국", "\\u{D55C}"), ("😀", "\\u{0001F600}"),
            ("a%b", "%"), ("a,b", ","),
        ]
        for (label, shown) in refused {
            #expect(error("{\"alias\":[\"\(label)\"]}") == JPushError(
                status: 400, code: 1003,
                message: "audience.alias \"\(label)\" contains \"\(shown)\"; allowed are letters, digits, _, CJK characters and @!#$&*+=.|￥"),
                "\(label)")
        }
        #expect(error(#"{"tag":[""]}"#)?.message == "audience.tag contains an empty string")
    }

    @Test func registrationIDsAreOpaqueButBounded() throws {
        #expect(try audience(#"{"registration_id":["1a0018970a8b1234"]}"#) == .filter(AudienceFilter(registrationIDs: ["1a0018970a8b1234"])))
        let sixtyFour = String(repeating: "f", count: 64)
        #expect(try audience("{\"registration_id\":[\"\(sixtyFour)\"]}") != .all)
        #expect(error("{\"registration_id\":[\"\(sixtyFour)f\"]}")?.message
            == "audience.registration_id \"ffffffffffffffff…\" is longer than 64 bytes")
        #expect(error(#"{"registration_id":[""]}"#)?.message == "audience.registration_id contains an empty string")
    }

    @Test func targetedMeansAliasOrRegistrationID() throws {
        #expect(!Audience.all.isTargeted)
        #expect(!(try audience(#"{"tag":["a"],"tag_and":["b"],"tag_not":["c"]}"#)).isTargeted)
        #expect(try audience(#"{"alias":["u"]}"#).isTargeted)
        #expect(try audience(#"{"registration_id":["r"]}"#).isTargeted)
        #expect(try audience(#"{"tag":["a"],"alias":["u"]}"#).isTargeted)
        #expect(!(try audience(#"{"tag":["a"],"alias":[]}"#)).isTargeted)
    }
}
