import HTTPServer
import RelayAPI
import RelayCore
import Testing

@Suite("Router")
struct RouterTests {
    private func request(_ method: String, _ uri: String) throws -> HTTPRequest {
        try HTTPRequest(method: method, uri: uri, requestID: "test")
    }

    private func named(_ name: String) -> Router.Handler {
        { _, parameters in HTTPResponse(status: 200, body: Array((name + ":" + (parameters["app_key"] ?? "")).utf8)) }
    }

    @Test("literal segments beat parameters whatever the order routes were added")
    func literalBeatsParameter() async throws {
        var router = Router(rejections: JPushRejection.responder)
        router.add("GET", "/admin/v1/apps/{app_key}", named("param"))
        router.add("GET", "/admin/v1/apps/stats", named("literal"))
        let literal = await router.respond(to: try request("GET", "/admin/v1/apps/stats"))
        #expect(String(decoding: literal.body, as: UTF8.self) == "literal:")
        let parameter = await router.respond(to: try request("GET", "/admin/v1/apps/k123"))
        #expect(String(decoding: parameter.body, as: UTF8.self) == "param:k123")
    }

    @Test("parameters are captured from decoded segments")
    func parameters() async throws {
        var router = Router(rejections: JPushRejection.responder)
        router.add("PUT", "/admin/v1/apps/{app_key}/apns") { _, parameters in
            HTTPResponse(status: 200, body: Array((parameters["app_key"] ?? "-").utf8))
        }
        let response = await router.respond(to: try request("PUT", "/admin/v1/apps/my%20app/apns"))
        #expect(String(decoding: response.body, as: UTF8.self) == "my app")
    }

    @Test("a segment starting with an emoji modifier or a combining mark still splits from the slash before it")
    func slashBeforeAGraphemeExtender() async throws {
        var router = Router(rejections: JPushRejection.responder)
        router.add("POST", "/v3/aliases/{app_key}", named("alias"))
        for (encoded, decoded) in [("%F0%9F%8F%BB", "\u{1F3FB}"), ("%CC%81x", "\u{301}x")] {
            let response = await router.respond(to: try request("POST", "/v3/aliases/\(encoded)"))
            #expect(response.status == 200 && String(decoding: response.body, as: UTF8.self) == "alias:\(decoded)", "\(encoded)")
        }
    }

    @Test("a trailing slash on the request path is tolerated")
    func trailingSlash() async throws {
        var router = Router(rejections: JPushRejection.responder)
        router.add("GET", "/v3/schedules", named("list"))
        #expect(await router.respond(to: try request("GET", "/v3/schedules/")).status == 200)
        #expect(await router.respond(to: try request("GET", "/v3/schedules")).status == 200)
        #expect(await router.respond(to: try request("GET", "/v3/schedules/x")).status == 404)
    }

    @Test("a path matched under other methods answers 405 with Allow")
    func methodNotAllowed() async throws {
        var router = Router(rejections: JPushRejection.responder)
        router.add("GET", "/v3/devices/{id}", named("get"))
        router.add("POST", "/v3/devices/{id}", named("post"))
        let response = await router.respond(to: try request("DELETE", "/v3/devices/abc"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "GET, HEAD, POST")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.body == JPushError.methodNotAllowed().body)
    }

    @Test("Allow names the methods of the most specific pattern the path fits")
    func allowFollowsTheMostSpecificPattern() async throws {
        var router = Router(rejections: JPushRejection.responder)
        router.add("GET", "/v3/devices/{id}", named("get"))
        router.add("POST", "/v3/devices/{id}", named("post"))
        router.add("POST", "/v3/devices/import", named("import"))
        let response = await router.respond(to: try request("DELETE", "/v3/devices/import"))
        #expect(response.status == 405)
        #expect(response.headers["Allow"] == "POST")
        #expect(await router.respond(to: try request("DELETE", "/v3/devices/abc")).headers["Allow"] == "GET, HEAD, POST")
    }

    @Test("nothing matching answers the JPush 404")
    func notFound() async throws {
        var router = Router(rejections: JPushRejection.responder)
        router.add("GET", "/v3/push", named("push"))
        let response = await router.respond(to: try request("GET", "/v3/pus"))
        #expect(response.status == 404)
        #expect(response.body == JPushError.notFound().body)
        let root = await router.respond(to: try request("GET", "/"))
        #expect(root.status == 404)
    }

    @Test("custom noRoute and methodNotAllowed responses are used")
    func customFallbacks() async throws {
        var router = Router(rejections: { rejection in HTTPResponse(status: rejection == .noRoute ? 418 : 409) })
        router.add("GET", "/a", named("a"))
        #expect(await router.respond(to: try request("GET", "/b")).status == 418)
        let wrongMethod = await router.respond(to: try request("POST", "/a"))
        #expect(wrongMethod.status == 409)
        #expect(wrongMethod.headers["Allow"] == "GET, HEAD")
    }

    @Test("HEAD falls back to the GET route")
    func headFallsBackToGet() async throws {
        var router = Router(rejections: JPushRejection.responder)
        router.add("GET", "/v3/push", named("get"))
        #expect(await router.respond(to: try request("HEAD", "/v3/push")).status == 200)
    }
}

@Suite struct RouterTableTests {
    @Test func listsEveryRouteWithItsPattern() {
        var router = Router(rejections: JPushRejection.responder)
        router.add("get", "/v3/devices/{registration_id}") { _, _ in .json(200, []) }
        router.add("POST", "/admin/v1/apps") { _, _ in .json(200, []) }
        #expect(router.table.map { "\($0.method) \($0.pattern)" } == ["GET /v3/devices/{registration_id}", "POST /admin/v1/apps"])
    }
}
