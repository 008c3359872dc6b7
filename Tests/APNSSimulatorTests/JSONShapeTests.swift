import Testing
@testable import APNSSimulator

@Suite struct JSONShapeTests {
    func check(_ text: String) -> Bool { JSONShape.isObjectWithAPS(Array(text.utf8)) }

    @Test func acceptsObjectsWhoseApsIsAnObject() {
        #expect(check(#"{"aps":{}}"#))
        #expect(check(#" { "aps" : { "alert" : { "title" : "t\u00e9\n" }, "badge": 3, "sound": null } , "x": [1, -2.5e3, true, false, {"aps": 1}] } "#))
        #expect(check(#"{"custom":"v","aps":{"content-available":1}}"#))
    }

    @Test func refusesOtherShapes() {
        #expect(!check(#"{}"#))
        #expect(!check(#"{"x":{"aps":{}}}"#), "aps must be at the top level")
        #expect(!check(#"{"aps":[]}"#))
        #expect(!check(#"[{"aps":{}}]"#))
    }

    @Test func refusesMalformedJSON() {
        for text in [
            #"{"aps":{},}"#, #"{"aps":{}"#, #"{aps:{}}"#, #"{"aps":{"a":01}}"#, #"{"aps":{"a":1.}}"#,
            #"{"aps":{"a":"\x"}}"#, #"{"aps":{"a":tru}}"#, "{\"aps\":{\"a\":\"\u{01}\"}}", #"{"aps":{}}{}"#,
        ] {
            #expect(!check(text), "\(text)")
        }
    }

    @Test func refusesNestingDeeperThanTheLimit() {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(!check(#"{"aps":{},"d":"# + deep + "}"))
        let shallow = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        #expect(check(#"{"aps":{},"d":"# + shallow + "}"))
    }
}
