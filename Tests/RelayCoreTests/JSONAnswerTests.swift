import Foundation
import RelayCore
import Testing

/// `JSONAnswer`, the one encoding of answers: keys ordered by their bytes, `null` only where
/// an answer writes it, integers written as integers.
@Suite struct JSONAnswerTests {
    /// Writes one nil with `encode` and one with `encodeIfPresent`, a whole Double, a slash
    /// and a key that sorts first by its bytes only.
    private struct Sample: Encodable {
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnswerKey.self)
            try container.encodeNulls(["z"])
            try container.encode(["a/b"], forKey: "a")
            try container.encode(1.0, forKey: "B")
            try container.encodeIfPresent(String?.none, forKey: "left_out")
            try container.encode(String?.none, forKey: "written")
        }
    }

    @Test func keysSortByBytesAndNullIsOnlyWhatIsWritten() throws {
        let text = String(decoding: try JSONAnswer.bytes(Sample()), as: UTF8.self)
        #expect(text == #"{"B":1,"a":["a/b"],"written":null,"z":null}"#)
    }

    @Test func freeFormValuesKeepIntegersBeyondDoublePrecision() throws {
        let value = try JSONValue.parse(Array(#"{"n":9007199254740993,"f":1.5,"t":[true,null,"x"]}"#.utf8))
        #expect(String(decoding: try JSONAnswer.bytes(value), as: UTF8.self) == #"{"f":1.5,"n":9007199254740993,"t":[true,null,"x"]}"#)
    }

    @Test func aJPushErrorEncodesAsItsBody() throws {
        let error = JPushError(status: 400, code: 1003, message: "a/b", msgID: "7")
        #expect(try JSONAnswer.bytes(error) == error.body)
        #expect(String(decoding: error.body, as: UTF8.self) == #"{"error":{"code":1003,"message":"a/b"},"msg_id":"7"}"#)
    }
}
