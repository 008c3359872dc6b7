import Foundation
import Testing
@testable import RelayCore

@Suite struct JPushErrorTests {
    @Test func bodyHasJPushShape() throws {
        let error = JPushError.authenticationFailed("bad secret")
        let object = try JSONSerialization.jsonObject(with: Data(error.body)) as? [String: Any]
        let inner = object?["error"] as? [String: Any]
        #expect(inner?["code"] as? Int == 1004)
        #expect(inner?["message"] as? String == "bad secret")
        #expect(object?["msg_id"] == nil)
    }

    @Test func pushErrorsCarryTheirMessageID() throws {
        let error = JPushError(status: 400, code: 1011, message: "no target", msgID: "42")
        let object = try JSONSerialization.jsonObject(with: Data(error.body)) as? [String: Any]
        #expect(object?["msg_id"] as? String == "42")
    }
}

@Suite struct LoggerTests {
    @Test func writesOneJSONObjectPerLineAtOrAboveItsLevel() throws {
        let lines = LineCollector()
        let logger = Logger(label: "test", level: .info, sink: { lines.append($0) }).with(["request_id": "r1"])
        logger.debug("hidden")
        logger.warning("shown", ["k": "v"])
        let all = lines.all
        #expect(all.count == 1)
        let object = try JSONSerialization.jsonObject(with: Data(all[0].utf8)) as? [String: String]
        #expect(object?["msg"] == "shown")
        #expect(object?["level"] == "warning")
        #expect(object?["request_id"] == "r1")
        #expect(object?["k"] == "v")
    }

    @Test func parsesLevelNames() {
        #expect(Logger.Level(name: "DEBUG") == .debug)
        #expect(Logger.Level(name: "warn") == .warning)
        #expect(Logger.Level(name: "loud") == nil)
    }
}

final class LineCollector: @unchecked Sendable {
    private var lines: [String] = []
    private let lock = NSLock()
    func append(_ line: String) { lock.lock(); lines.append(line); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}
