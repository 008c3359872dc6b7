import FCMSimulator
import Foundation
import RelayCrypto
import Testing
import TestSupport
@testable import FCMClient

/// fcm-sim for clients that offer only `http/1.1` in ALPN, as Google's endpoints serve them:
/// curl gets an access token and sends on one kept-alive connection; bad bytes are refused
/// with a 400 and the connection closed.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct FCMSimulatorHTTP1Tests {
    typealias Fixture = FCMClientSimulatorTests.Fixture

    private static func curl(_ fixture: Fixture, _ arguments: [String]) async throws -> String {
        let result = try await ExternalTool.run("/usr/bin/curl", [
            "--silent", "--show-error", "--http1.1", "--cacert", fixture.configuration.caFile!,
            "--write-out", "\n%{http_version} %{http_code} %{num_connects}\n",
        ] + arguments)
        #expect(result.status == 0, "\(result.output)")
        return result.output
    }

    @Test func curlGetsATokenAndSendsOnOneConnection() async throws {
        let fixture = try Fixture.start()
        let base = fixture.configuration.endpoint.absoluteString
        let assertion = try OAuthAssertion.make(account: fixture.account, scope: AccessTokenSource.scope, issuedAt: Date(),
                                                signer: try RS256Signer(pem: fixture.account.privateKeyPEM))
        let granted = try await Self.curl(fixture, [
            "--data-urlencode", "grant_type=\(OAuthAssertion.jwtBearerGrant)", "--data-urlencode", "assertion=\(assertion)",
            fixture.account.tokenURI,
        ])
        #expect(granted.hasSuffix("\n1.1 200 1\n"), "\(granted)")
        struct Grant: Decodable { var access_token: String }
        let token = try JSONDecoder().decode(Grant.self, from: Data(granted.split(separator: "\n")[0].utf8)).access_token

        // Two sends on one connection.
        let data = String(repeating: "x", count: 1500)
        let message = #"{"message":{"token":"tok1","data":{"k":"\#(data)"}}}"#
        let sent = try await Self.curl(fixture, [
            "--header", "Authorization: Bearer \(token)", "--header", "Content-Type: application/json",
            "--data", message,
            "\(base)/v1/projects/\(fixture.account.projectID)/messages:send",
            "\(base)/v1/projects/\(fixture.account.projectID)/messages:send",
        ])
        let lines = sent.split(separator: "\n")
        #expect(lines.count == 4 && lines[0].contains(#""name":"projects/demo-project/messages/"#), "\(sent)")
        #expect(lines[1] == "1.1 200 1" && lines[3] == "1.1 200 0", "\(sent)")
        // A body sent only after `100 Continue`.
        let continued = try await Self.curl(fixture, [
            "--verbose", "--header", "Authorization: Bearer \(token)", "--header", "Expect: 100-continue", "--data", message,
            "\(base)/v1/projects/\(fixture.account.projectID)/messages:send",
        ])
        #expect(continued.contains("< HTTP/1.1 100 Continue") && continued.contains("< HTTP/1.1 200 OK"), "\(continued)")
        #expect(fixture.simulator.stats.accepted == 3)
        #expect(fixture.simulator.deliveries(token: "tok1").first?.payload == Array(message.utf8))

        // FCM's answers, as over HTTP/2.
        let refused = try await Self.curl(fixture, [
            "--header", "Authorization: Bearer \(token)", "--data", #"{"message":{"token":"dead-1"}}"#,
            "\(base)/v1/projects/\(fixture.account.projectID)/messages:send",
        ])
        #expect(refused.contains(#""errorCode":"UNREGISTERED""#) && refused.hasSuffix("\n1.1 404 1\n"), "\(refused)")
        await fixture.stop()
    }

    /// Raw bytes over TLS (python's ssl): a bare LF is answered 400, then the server closes.
    @Test func badInputIsRefusedAndTheConnectionClosed() async throws {
        let fixture = try Fixture.start()
        let port = try #require(fixture.configuration.endpoint.port)
        let script = """
        import socket, ssl, sys
        context = ssl.create_default_context(cafile=sys.argv[2])
        context.set_alpn_protocols(["http/1.1"])
        with context.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10), server_hostname="127.0.0.1") as tls:
            tls.sendall(b"POST /token HTTP/1.1\\nHost: x\\r\\n\\r\\n")
            answer = b""
            try:
                while chunk := tls.recv(4096):
                    answer += chunk
            except ssl.SSLEOFError:
                pass  # closed without close_notify: closed all the same
            print(tls.selected_alpn_protocol())
            print(answer.decode())
        """
        let result = try await ExternalTool.run("/usr/bin/python3", ["-c", script, String(port), fixture.configuration.caFile!])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.hasPrefix("http/1.1\nHTTP/1.1 400 Bad Request\r\n"), "\(result.output)")
        #expect(result.output.contains("Connection: close\r\n") && result.output.contains("must end with CRLF"), "\(result.output)")
        await fixture.stop()
    }
}
