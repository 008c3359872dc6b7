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
    }
}
