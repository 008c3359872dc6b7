import Foundation

/// Runs a program we did not write (h2load, nghttp, openssl, curl) and collects its output.
public enum ExternalTool {
    public struct Result: Sendable {
        public var status: Int32
        public var output: String
    }

    /// Runs `path` with `arguments` on a thread of its own (waiting blocks), killing it after
    /// `timeout` seconds; stdout and stderr together.
    public static func run(_ path: String, _ arguments: [String], timeout: TimeInterval = 60) async throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return await withCheckedContinuation { continuation in
            Thread {
                let deadline = DispatchTime.now() + timeout
                let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
                DispatchQueue.global().asyncAfter(deadline: deadline, execute: watchdog)
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                watchdog.cancel()
                continuation.resume(returning: Result(
                    status: process.terminationStatus, output: String(decoding: data, as: UTF8.self)
                ))
            }.start()
        }
    }
}
