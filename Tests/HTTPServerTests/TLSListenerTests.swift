import Foundation
import Testing
@testable import HTTPServer

/// The optional TLS listener: HTTPS with the configured certificate, nothing in clear text,
/// and a clear error at start when the files do not load.
@Suite struct TLSListenerTests {
    static func tool(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = Pipe()
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func servesHTTPSWithTheConfiguredCertificate() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushrelay-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cert = directory.appendingPathComponent("cert.pem").path, key = directory.appendingPathComponent("key.pem").path
        let made = try Self.tool("/usr/bin/openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                                                      "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                                                      "-addext", "subjectAltName=IP:127.0.0.1"])
        #expect(made.status == 0)

        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2)
        configuration.tls = .init(certificatePath: cert, keyPath: key)
        let server = HTTPServer(configuration: configuration, responder: testRouter(), logger: LogCapture().logger)
        let port = try server.start()
        let https = try await offPool { try Self.tool("/usr/bin/curl", ["-sS", "--cacert", cert, "https://127.0.0.1:\(port)/fast"]) }
        #expect(https.status == 0 && https.output == "fast", "\(https)")
        let clear = try await offPool { try Self.tool("/usr/bin/curl", ["-sS", "-m", "5", "http://127.0.0.1:\(port)/fast"]) }
        #expect(clear.output != "fast", "nothing is served in clear text on a TLS listener")
        await server.shutdown()

        configuration.tls = .init(certificatePath: cert, keyPath: cert)
        let broken = HTTPServer(configuration: configuration, responder: testRouter(), logger: LogCapture().logger)
        #expect(throws: HTTPServerError.self) { try broken.start() }
    }
}
