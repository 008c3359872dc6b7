import Testing
@testable import RelayCore

@Suite struct JSONObjectReaderTests {
    func reader(_ text: String) throws(JPushError) -> JSONObjectReader { try JSONObjectReader(Array(text.utf8)) }

    @Test func readsTypedFields() throws {
        let body = try reader(#"{"name":"a","n":3,"on":true,"gone":null}"#)
        #expect(try body.string("name") == "a")
        #expect(try body.optionalInt("n") == 3)
        #expect(try body.optionalBool("on") == true)
        #expect(try body.optionalString("gone") == nil)
        #expect(!body.has("gone"))
    }

    @Test func malformedJSONIsIllegalValue() {
        #expect(throws: JPushError.illegalValue("request body is not valid JSON: unexpected end of text at byte 8")) { try reader("{\"name\":") }
    }

    @Test func emptyBodyIsMissingParameter() {
        #expect { try reader("") } throws: { ($0 as? JPushError)?.code == 1002 }
    }

    @Test func nonObjectBodyIsRejected() {
        #expect { try reader("[1,2]") } throws: { ($0 as? JPushError)?.message == "request body must be a JSON object, got an array" }
    }

    @Test func wrongTypesSayWhatWasExpected() throws {
        let body = try reader(#"{"name":5,"n":"3","on":1,"f":1.5}"#)
        #expect(throws: JPushError.illegalValue("name must be a string, got a number")) { try body.string("name") }
        #expect(throws: JPushError.illegalValue("n must be an integer, got a string")) { try body.optionalInt("n") }
        #expect(throws: JPushError.illegalValue("on must be true or false, got a number")) { try body.optionalBool("on") }
        #expect(throws: JPushError.illegalValue("f must be an integer, got a number")) { try body.optionalInt("f") }
    }

    @Test func booleansAreNotIntegers() throws {
        let body = try reader(#"{"n":true}"#)
        #expect(throws: JPushError.self) { try body.optionalInt("n") }
    }

    @Test func missingRequiredField() throws {
        #expect(throws: JPushError.missingParameter("name is required")) { try reader("{}").string("name") }
    }

    @Test func unknownKeysAreCode1009WithTheirPath() throws {
        let nested = try JSONObjectReader(.object(["bogus": .int(1)]), path: "options.")
        #expect { try nested.rejectUnknownKeys(allowed: ["sendno"]) } throws: {
            let error = $0 as? JPushError
            return error?.code == 1009 && error?.status == 400 && error?.message == "unknown field \"options.bogus\""
        }
    }
}
