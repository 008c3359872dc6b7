import Foundation
import Testing
@testable import FCMClient

/// The request body splices the device's token into the shared `message` object.
@Suite struct FCMMessageTests {
    @Test func tokenIsSplicedIntoTheObject() throws {
        let shared = Array(#" {"notification":{"title":"Hi"},"data":{"k":"v"}} "#.utf8)
        let message = FCMMessage(token: "abc:DEF-1_2", message: shared)
        #expect(message.validate() == nil)
        let body = try JSONSerialization.jsonObject(with: Data(message.body())) as? [String: Any]
        let object = try #require(body?["message"] as? [String: Any])
        #expect(object["token"] as? String == "abc:DEF-1_2")
        #expect((object["notification"] as? [String: String])?["title"] == "Hi")
        #expect(String(decoding: FCMMessage(token: "t", message: Array("{}".utf8)).body(), as: UTF8.self)
            == #"{"message":{"token":"t"}}"#)
    }

    @Test func badTokensAndMessagesAreRefusedBeforeSending() {
        let object = Array("{}".utf8)
        #expect(FCMMessage(token: "", message: object).validate() == .badToken)
        #expect(FCMMessage(token: "a\"b", message: object).validate() == .badToken)
        #expect(FCMMessage(token: String(repeating: "a", count: 4097), message: object).validate() == .badToken)
        #expect(FCMMessage(token: "t", message: Array("[1]".utf8)).validate() == .notAnObject)
        #expect(FCMMessage(token: "t", message: Array(repeating: UInt8(ascii: " "), count: 20_000)).validate()
            == .messageTooLarge(size: 20_000, limit: FCMMessage.maxMessageSize))
    }
}
