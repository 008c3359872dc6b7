import APNSClient
import Testing
@testable import APNSSimulator

@Suite struct APNSRequestHandlerTests {
    let signer = TestSigningKey()
    static let token = String(repeating: "ab", count: 32)

    func handler(behaviour: ScriptedBehaviour = ScriptedBehaviour()) throws -> APNSRequestHandler {
        APNSRequestHandler(
            verifier: try ProviderTokenVerifier(pemKeys: ["KEY1": signer.publicPEM], acceptAnyToken: false),
            behaviour: behaviour
        )
    }

    func handle(_ handler: inout APNSRequestHandler, _ request: APNSRequest) -> APNSRequestHandler.Decision {
        var cache = ProviderTokenCache()
        return handler.handle(request, nowMilliseconds: 1_800_000_000_000, tokenCache: &cache)
    }

    var authorization: String { "bearer \(signer.jwt(keyID: "KEY1", issuedAt: 1_800_000_000))" }

    @Test func acceptsAValidRequest() throws {
        var handler = try handler()
        let request = APNSRequest(path: "/3/device/\(Self.token)", authorization: authorization, topic: "t", body: Array(#"{"aps":{}}"#.utf8))
        #expect(handle(&handler, request) == .init(response: .accepted, acceptedToken: Self.token))
    }

    @Test func pathComesBeforeAuthenticationWhichComesBeforeHeaders() throws {
        var handler = try handler()
        #expect(handle(&handler, APNSRequest(path: "/x")).response.reason == .badPath)
        #expect(handle(&handler, APNSRequest(path: "/3/device/\(Self.token)")).response.reason == .missingProviderToken)
        let noTopic = APNSRequest(path: "/3/device/\(Self.token)", authorization: authorization, body: Array(#"{"aps":{}}"#.utf8))
        #expect(handle(&handler, noTopic).response.reason == .missingTopic)
    }

    @Test func scriptedBehavioursApplyOnlyToValidRequests() throws {
        var handler = try handler(behaviour: ScriptedBehaviour(unregisteredPrefix: "ab"))
        let invalid = APNSRequest(path: "/3/device/\(Self.token)", authorization: authorization, topic: "t")
        #expect(handle(&handler, invalid).response.reason == .payloadEmpty)
        let valid = APNSRequest(
            path: "/3/device/\(Self.token)", authorization: authorization, topic: "t", body: Array(#"{"aps":{}}"#.utf8)
        )
        #expect(handle(&handler, valid) == .init(response: APNSResponse(reason: .unregistered, timestamp: 1_800_000_000_000)))
    }
}
