import CSystem
import Foundation

/// Stops the embedded postmaster when the process that runs the relay dies, however it dies
/// (SIGKILL and crashes included), so no orphaned PostgreSQL outlives it.
///
/// A small shell, in a session of its own, reads a pipe whose only writer is this process
/// and which nothing is ever written to. When this process dies the kernel closes the
/// pipe, the read ends, and the shell sends the postmaster SIGINT (PostgreSQL's fast
/// shutdown) if that PID is still a postgres process. A deliberate stop takes the shell
/// away first (`standDown()`).
final class PostmasterWatchdog: Sendable {
    /// The postmaster's PID.
    let postmaster: Int32
    /// The shell's PID.
    private let pid: pid_t
    private let pipe: Int32

    private static let script = #"read -r _; [ "$(cat /proc/$1/comm 2>/dev/null)" = postgres ] && kill -INT "$1""#

    /// Starts watching `postmaster`.
    ///
    /// - Throws: `PostgresError.unavailable` when the shell cannot be started.
    init(postmaster: Int32) throws {
        let arguments = ["/bin/sh", "-c", Self.script, "pushrelay-postgres-watchdog", String(postmaster)]
        let copies = arguments.map { strdup($0) } + [nil]
        defer { copies.forEach { free($0) } }
        var pipe: Int32 = -1
        let pid = CSystem_store_spawn_watcher(arguments[0], copies, &pipe)
        guard pid > 0 else {
            throw PostgresError.unavailable("cannot start the embedded PostgreSQL watchdog: \(String(cString: strerror(-pid)))")
        }
        self.postmaster = postmaster
        self.pid = pid
        self.pipe = pipe
    }

    /// Ends the watch without touching the postmaster: the shell is killed and reaped
    /// before the pipe closes. Call once.
    func standDown() {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        close(pipe)
    }
}
