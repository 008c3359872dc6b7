import Foundation
import Testing

/// Every malformed request gets a 4xx and a JSON error in JPush's shape.
@Suite struct BadInputTests {
    @Test func malformedJSONWrongTypesAndUnknownFields() async throws {
        try await RelayHarness.with { relay in
            let broken = try await relay.request("POST", "/admin/v1/apps", body: Data("{\"name\": ".utf8))
            #expect(broken.status == 400 && broken.errorCode == 1003)
            #expect(broken.headers["content-type"]?.hasPrefix("application/json") == true)

            let wrongType = try await relay.request("POST", "/admin/v1/apps", json: ["name": 42])
            #expect(wrongType.status == 400 && wrongType.errorCode == 1003)
            #expect(wrongType.errorMessage == "name must be a string, got a number")

            let unknown = try await relay.request("POST", "/admin/v1/apps", json: ["name": "x", "colour": "red"])
            #expect(unknown.status == 400 && unknown.errorCode == 1009)
            #expect(unknown.errorMessage?.contains("colour") == true)

            let missing = try await relay.request("POST", "/admin/v1/apps", json: [String: String]())
            #expect(missing.status == 400 && missing.errorCode == 1002)

            let empty = try await relay.request("POST", "/admin/v1/apps", json: ["name": "  "])
            #expect(empty.status == 400 && empty.errorCode == 1003)

            let array = try await relay.request("POST", "/admin/v1/apps", body: Data("[]".utf8))
            #expect(array.status == 400 && array.errorCode == 1003)

            let badCount = try await relay.request("GET", "/v3/push/cid?count=5000", auth: .basic("x", "y"))
            #expect(badCount.status == 401, "authentication comes before validation")
            let app = try await relay.createApp()
            let tooMany = try await relay.request("GET", "/v3/push/cid?count=5000", auth: .basic(app.key, app.secret))
            #expect(tooMany.status == 400 && tooMany.errorCode == 1003)
            let badType = try await relay.request("GET", "/v3/push/cid?type=email", auth: .basic(app.key, app.secret))
            #expect(badType.status == 400 && badType.errorCode == 1003)
        }
    }

    @Test func oversizedBodyIs413WithJSON() async throws {
        try await RelayHarness.with(maxBodySize: 4096) { relay in
            let big = Data(("{\"name\":\"" + String(repeating: "a", count: 10_000) + "\"}").utf8)
            let reply = try await relay.request("POST", "/admin/v1/apps", body: big)
            #expect(reply.status == 413)
            #expect(reply.errorCode == 1005)
            #expect(reply.headers["content-type"]?.hasPrefix("application/json") == true)
            // The server is still serving.
            #expect(try await relay.request("GET", "/healthz", auth: .none).status == 200)
        }
    }

    @Test func unknownRoutesAndMethods() async throws {
        try await RelayHarness.with { relay in
            let notFound = try await relay.request("GET", "/v3/nothing-here")
            #expect(notFound.status == 404 && notFound.errorCode != nil)
            let wrongMethod = try await relay.request("PATCH", "/admin/v1/apps")
            #expect(wrongMethod.status == 405 && wrongMethod.errorCode == 1001)
            let noApp = try await relay.request("GET", "/admin/v1/apps/0123456789abcdef01234567")
            #expect(noApp.status == 404 && noApp.errorCode == 1008)
        }
    }

    @Test func everyResponseCarriesARequestID() async throws {
        try await RelayHarness.with { relay in
            let reply = try await relay.request("GET", "/healthz", auth: .none)
            #expect(reply.status == 200)
            #expect(reply.headers["x-request-id"]?.isEmpty == false)
            let error = try await relay.request("GET", "/admin/v1/apps", auth: .none)
            #expect(error.headers["x-request-id"]?.isEmpty == false)
        }
    }
}
