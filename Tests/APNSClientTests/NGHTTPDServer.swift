import CSystem
import Foundation
import TestSupport

/// `nghttpd`, a real HTTP/2 + TLS server, serving empty files at `/3/device/<token>` on
/// 127.0.0.1 with a self-signed certificate made for the test.
///
/// It answers 200 to a POST for a token it has a file for and 404 for any other.
final class NGHTTPDServer: @unchecked Sendable {
    let directory: TemporaryDirectory
    let port: Int
    let maxConcurrentStreams: Int
    private var process: Process?

    var caFile: String { directory.path("cert.pem") }

    /// Makes the certificate and the document root; call `start()` to serve.
    init(tokens: [String], maxConcurrentStreams: Int = 100) async throws {
        directory = try TemporaryDirectory()
        port = try freePort()
        self.maxConcurrentStreams = maxConcurrentStreams
        do {
            try await makeFiles(tokens: tokens)
        } catch {
            directory.remove()
            throw error
        }
    }

    private func makeFiles(tokens: [String]) async throws {
        try await run(try executable("openssl"), [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", directory.path("key.pem"), "-out", directory.path("cert.pem"), "-days", "2",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        let devices = directory.url.appendingPathComponent("doc/3/device")
        try FileManager.default.createDirectory(at: devices, withIntermediateDirectories: true)
        for token in tokens {
            _ = FileManager.default.createFile(atPath: devices.appendingPathComponent(token).path, contents: Data())
        }
    }

    /// Starts nghttpd and waits until it accepts connections.
    func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try executable("nghttpd"))
        process.arguments = [
            "-d", directory.path("doc"), "-m", String(maxConcurrentStreams), String(port),
            directory.path("key.pem"), directory.path("cert.pem"),
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        try await poll { TestProcess.accepts(port: port) }
    }

    /// Freezes nghttpd (SIGSTOP): connections stay open, nothing is answered.
    func pause() {
        if let process { Foundation.kill(process.processIdentifier, SIGSTOP) }
    }

    /// Kills nghttpd (SIGKILL: connections drop without GOAWAY) and waits until it is gone.
    func kill() async throws {
        guard let process else { return }
        self.process = nil
        Foundation.kill(process.processIdentifier, SIGKILL)
        try await poll { !process.isRunning }
    }

    /// Stops nghttpd and removes its files.
    func stop() async {
        try? await kill()
        directory.remove()
    }
}

/// Runs `body` with a started nghttpd, and stops it and removes its files however `body` ends.
func withNGHTTPD(tokens: [String], maxConcurrentStreams: Int = 100, _ body: (NGHTTPDServer) async throws -> Void) async throws {
    let server = try await NGHTTPDServer(tokens: tokens, maxConcurrentStreams: maxConcurrentStreams)
    do {
        try await server.start()
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}
