import CSystem
import Foundation

/// Runs a program to completion, optionally as another user, capturing its output.
///
/// Blocks the calling thread: call it from a thread of your own, never the concurrency pool.
public struct ProgramRunner: Sendable {
    /// The unprivileged user to run as (through `runuser`), or nil to run as ourselves.
    let user: String?
    let workingDirectory: String

    public init(user: String? = nil, workingDirectory: String = FileManager.default.currentDirectoryPath) {
        self.user = user
        self.workingDirectory = workingDirectory
    }

    public struct Outcome: Sendable {
        public let status: Int32
        /// Standard output and standard error, interleaved.
        public let output: String
    }

    public func run(_ executable: String, _ arguments: [String]) throws -> Outcome {
        // Output goes to a file rather than a pipe: `pg_ctl start` leaves a server running,
        // and nothing it spawns can then hold a pipe of ours open.
        let outputPath = FileManager.default.temporaryDirectory
            .appending(path: "pushrelay-\(UUID().uuidString).out").path
        let outputFD = open(outputPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard outputFD >= 0 else {
            throw PostgresError.unavailable("cannot create \(outputPath) to capture \(executable)'s output")
        }
        defer { unlink(outputPath) }

        let command = user.map { [Self.runuser, "-u", $0, "--", executable] + arguments } ?? [executable] + arguments
        let copies = command.map { strdup($0) } + [nil]
        defer { copies.forEach { free($0) } }
        let status = CSystem_store_run(command[0], copies, workingDirectory, outputFD)
        close(outputFD)
        guard status >= 0 else {
            throw PostgresError.unavailable("cannot run \(command[0]): \(String(cString: strerror(-status)))")
        }
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Outcome(status: status, output: text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    private static var runuser: String {
        ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"]
            .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/runuser"
    }
}
