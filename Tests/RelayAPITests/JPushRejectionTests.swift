import HTTPServer
import RelayAPI
import RelayCore
import Testing

/// What the HTTP server refuses on its own is answered in JPush's shape, with the codes and
/// messages the server wrote itself before it was given `JPushRejection`.
@Suite struct JPushRejectionTests {
    @Test func eachRejectionKeepsItsStatusCodeAndMessage() {
        let cases: [(HTTPRejection, JPushError)] = [
            (.malformedRequest(detail: nil), JPushError(status: 400, code: 1003, message: "malformed HTTP request")),
            (.malformedRequest(detail: "header lines must end with CRLF"),
             JPushError(status: 400, code: 1003, message: "malformed HTTP request: header lines must end with CRLF")),
            (.bodyTooLarge(limit: 1024), JPushError(status: 413, code: 1005, message: "request body exceeds 1024 bytes")),
            (.malformedTarget(part: "query string"), JPushError(status: 400, code: 1003, message: "malformed percent-encoding in query string")),
            (.methodNotSupported, JPushError(status: 405, code: 1001, message: "method not supported")),
            (.refused(status: 431), JPushError(status: 431, code: 1000, message: "request rejected")),
            (.busy, JPushError(status: 503, code: 1030, message: "server busy, try again")),
            (.connectionRefused(reason: "too many open connections"),
             JPushError(status: 503, code: 1030, message: "too many open connections, try again")),
            (.noRoute, .notFound()),
            (.methodNotAllowed, .methodNotAllowed()),
        ]
        for (rejection, expected) in cases {
            #expect(JPushRejection.error(for: rejection) == expected, "\(rejection)")
            #expect(rejection.status == expected.status, "the server's status and the body's agree: \(rejection)")
            let response = JPushRejection.responder(rejection)
            #expect(response.status == expected.status && response.body == expected.body)
            #expect(response.headers["Content-Type"] == "application/json")
        }
    }
}
