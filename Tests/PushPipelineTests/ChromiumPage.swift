import Foundation
import Synchronization

/// Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
/// JSON messages separated by NUL on file descriptors 3 and 4), so a test needs no
/// WebSocket client and no outside package: one page, navigate, evaluate, screenshot.
final class ChromiumPage: @unchecked Sendable {
    // `process` and the pipes are set once in init; `pending` and `nextID` are behind `state`.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let profile: URL
    private struct State {
        var nextID = 1
        var pending: [Int: CheckedContinuation<Data, any Error>] = [:]
        var closed = false
    }
    private let state = Mutex(State())
    private var sessionID = ""

    static func executable() -> URL? {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].map(URL.init(fileURLWithPath:))
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    init(executable: URL, scratch: URL, width: Int = 1280, height: Int = 1400) throws {
        profile = scratch.appendingPathComponent("chromium-profile-\(UUID().uuidString)")
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // fd 3 reads our commands (stdin), fd 4 carries the answers (stdout); Chromium's own
        // chatter goes nowhere.
        process.arguments = ["-c", "exec \"$0\" \"$@\" 3<&0 4>&1 >/dev/null 2>&1", executable.path,
                             "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                             "--disable-extensions", "--disable-background-networking", "--remote-debugging-pipe",
                             "--user-data-dir=\(profile.path)", "--window-size=\(width),\(height)", "about:blank"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let reader = Thread { [self] in readLoop() }
        reader.name = "chromium-cdp"
        reader.start()
    }

    /// Opens the page target and attaches to it.
    func open() async throws {
        let target = try await send("Target.createTarget", ["url": "about:blank"], session: false)
        guard let targetID = target["targetId"] as? String else { throw HarnessError("no targetId: \(target)") }
        let attached = try await send("Target.attachToTarget", ["targetId": targetID, "flatten": true], session: false)
        guard let session = attached["sessionId"] as? String else { throw HarnessError("no sessionId: \(attached)") }
        sessionID = session
        _ = try await send("Page.enable", [:])
    }

    func navigate(_ url: String) async throws {
        _ = try await send("Page.navigate", ["url": url])
    }

    /// The value of a JavaScript expression (promises awaited).
    func evaluate(_ expression: String) async throws -> Any? {
        let answer = try await send("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = answer["exceptionDetails"] { throw HarnessError("script failed: \(exception)") }
        return (answer["result"] as? [String: Any])?["value"]
    }

    /// Polls `expression` until it is true.
    func waitFor(_ expression: String, timeout: Duration = .seconds(30)) async throws {
        try await poll(timeout: timeout, interval: .milliseconds(100), expression) {
            (try? await self.evaluate(expression)) as? Bool == true ? true : nil
        }
    }

    /// A PNG of the page as laid out, whole length.
    func screenshot(to file: URL) async throws {
        let shot = try await send("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
        guard let base64 = shot["data"] as? String, let data = Data(base64Encoded: base64) else { throw HarnessError("no screenshot") }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    func close() async {
        _ = try? await send("Browser.close", [:], session: false)
        state.withLock { $0.closed = true }
        if process.isRunning { process.terminate() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread { [process] in
                process.waitUntilExit()
                continuation.resume()
            }.start()
        }
        try? FileManager.default.removeItem(at: profile)
    }

    private func send(_ method: String, _ params: [String: Any], session: Bool = true) async throws -> [String: Any] {
        let data: Data = try await withCheckedThrowingContinuation { continuation in
            let id = state.withLock { state -> Int? in
                guard !state.closed else { return nil }
                let id = state.nextID
                state.nextID += 1
                state.pending[id] = continuation
                return id
            }
            guard let id else { return continuation.resume(throwing: HarnessError("browser closed")) }
            var message: [String: Any] = ["id": id, "method": method, "params": params]
            if session { message["sessionId"] = sessionID }
            do {
                try input.fileHandleForWriting.write(contentsOf: try JSONSerialization.data(withJSONObject: message) + Data([0]))
            } catch {
                if let waiting = state.withLock({ $0.pending.removeValue(forKey: id) }) { waiting.resume(throwing: error) }
            }
        }
        guard let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw HarnessError("bad CDP answer") }
        if let error = answer["error"] { throw HarnessError("\(method) failed: \(error)") }
        return answer["result"] as? [String: Any] ?? [:]
    }

    /// Reads NUL-separated messages and hands each answer to its caller; events are ignored.
    private func readLoop() {
        var buffer = Data()
        let handle = output.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let end = buffer.firstIndex(of: 0) {
                let message = buffer[buffer.startIndex..<end]
                buffer = Data(buffer[buffer.index(after: end)...])
                guard let object = try? JSONSerialization.jsonObject(with: message) as? [String: Any],
                      let id = object["id"] as? Int else { continue }
                let waiting = state.withLock { $0.pending.removeValue(forKey: id) }
                waiting?.resume(returning: Data(message))
            }
        }
        let left = state.withLock { state in
            state.closed = true
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
        for waiting in left { waiting.resume(throwing: HarnessError("browser exited")) }
    }
}
