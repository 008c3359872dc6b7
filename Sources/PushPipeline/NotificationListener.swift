import CSystem
import Foundation
import RelayCore
import Synchronization

/// LISTENs on a channel (`PushChannel.name` unless told otherwise) on a libpq connection of its own, on a thread of its own,
/// and calls `onNotify` with the payloads of the notifications that arrived together (and
/// with nil after every reconnect: anything may have been missed while disconnected).
///
/// Thread rule: the `PGconn` is opened, used and closed only on the listener's thread.
final class NotificationListener: Sendable {
    private let connectionString: String
    private let channel: String
    private let logger: Logger
    private let onNotify: @Sendable ([String]?) -> Void
    private let stopped = Atomic<Bool>(false)
    private let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let done = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)

    init(connectionString: String, channel: String = PushChannel.name, logger: Logger, onNotify: @escaping @Sendable ([String]?) -> Void) {
        self.connectionString = connectionString
        self.channel = channel
        self.logger = logger
        self.onNotify = onNotify
    }

    func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            CSystem_set_thread_name("pushrelay-listen")
            run()
            let waiter = finished.withLock { waiter -> CheckedContinuation<Void, Never>? in
                done.store(true, ordering: .releasing)
                defer { waiter = nil }
                return waiter
            }
            waiter?.resume()
        }
        thread.start()
    }

    /// Stops the thread and waits for it (it notices within a second); at once when it was
    /// never started.
    func stop() async {
        stopped.store(true, ordering: .releasing)
        // Never started: marking it started keeps a later start() from running a thread.
        guard started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        await waitForThread()
    }

    private func waitForThread() async {
        await withCheckedContinuation { continuation in
            let already = finished.withLock { waiter -> Bool in
                if done.load(ordering: .acquiring) { return true }
                waiter = continuation
                return false
            }
            if already { continuation.resume() }
        }
    }

    private func run() {
        while !stopped.load(ordering: .acquiring) {
            guard let connection = PQconnectdb(connectionString) else { return }
            defer { PQfinish(connection) }
            if PQstatus(connection) == CONNECTION_OK, let result = PQexec(connection, "LISTEN \(channel)") {
                let ok = PQresultStatus(result) == PGRES_COMMAND_OK
                PQclear(result)
                if ok {
                    onNotify(nil)
                    listen(connection)
                }
            }
            if stopped.load(ordering: .acquiring) { return }
            logger.warning("LISTEN connection lost; reconnecting", [
                "error": String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines),
            ])
            Thread.sleep(forTimeInterval: 1)
        }
    }

    /// Waits on the socket (a second at a time, to notice `stop`) until the connection breaks.
    private func listen(_ connection: OpaquePointer) {
        let socket = PQsocket(connection)
        while !stopped.load(ordering: .acquiring) {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 1000)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0 else { continue }
            guard PQconsumeInput(connection) == 1 else { return }
            var payloads: [String] = []
            while let notification = PQnotifies(connection) {
                payloads.append(String(cString: notification.pointee.extra))
                PQfreemem(notification)
            }
            if !payloads.isEmpty { onNotify(payloads) }
            if PQstatus(connection) != CONNECTION_OK { return }
        }
    }
}
