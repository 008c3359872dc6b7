import APNSClient
import Testing
@testable import APNSSimulator

@Suite struct ScriptedBehaviourTests {
    static let token = String(repeating: "ab", count: 32)

    @Test func unregisteredPrefixAnswers410WithTimestamp() {
        var behaviour = ScriptedBehaviour(unregisteredPrefix: "DEAD")
        let response = behaviour.response(forToken: "dead" + Self.token.dropFirst(4), nowMilliseconds: 42)
        #expect(response == APNSResponse(reason: .unregistered, timestamp: 42))
        #expect(behaviour.response(forToken: Self.token, nowMilliseconds: 42) == nil)
    }

    @Test func badTokenPrefixAnswers400BadDeviceToken() {
        var behaviour = ScriptedBehaviour(badTokenPrefix: "ab")
        #expect(behaviour.response(forToken: Self.token, nowMilliseconds: 0) == APNSResponse(reason: .badDeviceToken))
    }

    @Test func ratesSplitOneDrawInOrder() {
        var behaviour = ScriptedBehaviour(rate429: 0.1, rate500: 0.2, rate503: 0.3, seed: 7)
        var counts: [Int: Int] = [:]
        for _ in 0..<100_000 {
            let status = behaviour.response(forToken: Self.token, nowMilliseconds: 0)?.status ?? 200
            counts[status, default: 0] += 1
        }
        #expect(abs(counts[429, default: 0] - 10_000) < 1_000)
        #expect(abs(counts[500, default: 0] - 20_000) < 1_000)
        #expect(abs(counts[503, default: 0] - 30_000) < 1_000)
        #expect(abs(counts[200, default: 0] - 40_000) < 1_000)
    }

    @Test func sameSeedSameFailures() {
        func run(seed: UInt64) -> [Int] {
            var behaviour = ScriptedBehaviour(rate500: 0.5, seed: seed)
            return (0..<64).map { _ in behaviour.response(forToken: Self.token, nowMilliseconds: 0)?.status ?? 200 }
        }
        #expect(run(seed: 1) == run(seed: 1))
        #expect(run(seed: 1) != run(seed: 2))
    }

    @Test func noRatesNoFailures() {
        var behaviour = ScriptedBehaviour()
        for _ in 0..<1000 { #expect(behaviour.response(forToken: Self.token, nowMilliseconds: 0) == nil) }
    }
}
