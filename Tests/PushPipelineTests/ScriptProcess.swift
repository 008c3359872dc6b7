import Foundation

/// A Python script from scripts/ as a child process, spoken to line by line: tests run
/// clients that must not share the test process's file limit or cores this way.
final class ScriptProcess: @unchecked Sendable {
    // Process and Pipe are not Sendable; this object only starts, writes to and stops them.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(script: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Closes its standard input: the scripts take that as "stop".
    func closeInput() {
        try? input.fileHandleForWriting.close()
    }

    /// The next line it prints; read on a thread of its own (a dead script ends it with EOF).
    func line() async throws -> String {
        let handle = output.fileHandleForReading
        return await withCheckedContinuation { continuation in
            Thread {
                var bytes: [UInt8] = []
                while true {
                    let data = handle.readData(ofLength: 1)
                    guard let byte = data.first, byte != UInt8(ascii: "\n") else { break }
                    bytes.append(byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }.start()
        }
    }

    func stop() {
        closeInput()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
