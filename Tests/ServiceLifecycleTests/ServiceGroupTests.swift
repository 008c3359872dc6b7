import Foundation
import RelayCore
import ServiceLifecycle
import Synchronization
import Testing

/// The group running services in this process, with signals it owns (SIGUSR1, SIGUSR2),
/// so the test runner's own SIGTERM and SIGINT are left alone.
@Suite(.serialized) struct ServiceGroupTests {
    static let logger = Logger(label: "test", level: .error)

    @Test func theServicesStopInReverseOrderAfterTheSignal() async throws {
        let journal = Journal()
        let services = ["database", "worker", "api"].map { StoppingService(name: $0, journal: journal) }
        let group = Task { await ServiceGroup(services: services, signals: [SIGUSR1], logger: Self.logger).run() }
        try await journal.waitFor(count: 3)
        kill(getpid(), SIGUSR1)
        #expect(await group.value == 0)
        #expect(journal.entries.dropFirst(3) == [
            "api stopping", "api stopped", "worker stopping", "worker stopped", "database stopping", "database stopped",
        ])
    }

    @Test func aServiceEndingOnItsOwnStopsTheOthersAndTheCodeIsOne() async throws {
        let journal = Journal()
        let services: [any Service] = [StoppingService(name: "database", journal: journal), EndingService()]
        let code = await ServiceGroup(services: services, signals: [SIGUSR1], logger: Self.logger).run()
        #expect(code == 1)
        #expect(journal.entries.last == "database stopped")
    }

    @Test func aSecondSignalEndsTheGroupWithoutWaiting() async throws {
        let journal = Journal()
        let services: [any Service] = [StoppingService(name: "database", journal: journal), StuckService(journal: journal)]
        let group = Task { await ServiceGroup(services: services, signals: [SIGUSR2], logger: Self.logger).run() }
        try await journal.waitFor(count: 2)
        kill(getpid(), SIGUSR2)
        try await journal.waitFor(count: 3)
        kill(getpid(), SIGUSR2)
        #expect(await group.value == 128 + SIGUSR2)
        #expect(!journal.entries.contains("database stopping"))
    }
}

/// What the services did, in order.
final class Journal: Sendable {
    private let lines = Mutex<[String]>([])

    var entries: [String] { lines.withLock { $0 } }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Polls (bounded) until there are `count` entries.
    func waitFor(count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while entries.count < count {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}

/// Runs until its graceful shutdown (or its cancellation).
struct StoppingService: Service {
    let name: String
    let journal: Journal

    func run() async {
        journal.append("\(name) started")
        await gracefulShutdown()
        journal.append(Task.isCancelled ? "\(name) cancelled" : "\(name) stopping")
        await Task.yield()
        journal.append("\(name) stopped")
    }
}

/// Returns at once, as a service whose loop died would.
struct EndingService: Service {
    func run() async {}
}

/// Hears the graceful shutdown and never finishes its work in flight.
struct StuckService: Service {
    let journal: Journal

    func run() async {
        journal.append("stuck started")
        await gracefulShutdown()
        journal.append("stuck stopping")
        try? await Task.sleep(for: .seconds(3600))
    }
}
