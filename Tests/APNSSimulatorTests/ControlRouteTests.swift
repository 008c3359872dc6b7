import Testing
@testable import APNSSimulator

@Suite struct ControlRouteTests {
    @Test func routes() {
        #expect(ControlRoute(method: "GET", uri: "/stats") == .stats)
        #expect(ControlRoute(method: "GET", uri: "/deliveries") == .deliveries(token: nil))
        #expect(ControlRoute(method: "GET", uri: "/deliveries?x=1&token=abcd") == .deliveries(token: "abcd"))
        #expect(ControlRoute(method: "POST", uri: "/reset") == .reset)
        #expect(ControlRoute(method: "GET", uri: "/reset") == .methodNotAllowed)
        #expect(ControlRoute(method: "POST", uri: "/stats") == .methodNotAllowed)
        #expect(ControlRoute(method: "GET", uri: "/other") == .notFound)
        #expect(ControlRoute(method: "GET", uri: "/rates") == .rates)
        #expect(ControlRoute(method: "PUT", uri: "/rates") == .setRates)
        #expect(ControlRoute(method: "POST", uri: "/rates") == .methodNotAllowed)
    }

    @Test func ratesAreReadFromJSONAndChecked() throws {
        #expect(try FailureRates(json: Array(#"{"rate_429":0.9}"#.utf8)) == FailureRates(rate429: 0.9))
        #expect(try FailureRates(json: Array(#"{"rate_429":0,"rate_500":0.25,"rate_503":0.5}"#.utf8))
            == FailureRates(rate500: 0.25, rate503: 0.5))
        #expect(try FailureRates(json: Array("{}".utf8)) == FailureRates(), "left out means 0: {} clears them")
        for bad in [#"{"rate_429":1.5}"#, #"{"rate_429":-0.1}"#, #"{"rate_429":"0.5"}"#, #"{"rate_404":0.1}"#,
                    #"{"rate_429":0.6,"rate_503":0.6}"#, "[0.5]", "nonsense"] {
            #expect(throws: APNSSimulatorError.self, "\(bad)") { try FailureRates(json: Array(bad.utf8)) }
        }
        let rates = FailureRates(rate429: 0.5, rate503: 0.25)
        #expect(try FailureRates(json: rates.json) == rates, "the answer reads back as what was set")
    }
}
