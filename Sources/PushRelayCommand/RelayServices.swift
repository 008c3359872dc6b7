import APNSSimulator
import HTTPServer
import PushPipeline
import ServiceLifecycle

// The relay's components as `Service`s, each run until a graceful shutdown, whatever verb
// the component itself uses to stop.

/// The database: the pool, and the embedded cluster when there is one. Stopped last, it
/// closes the pool and stops the cluster; an embedded cluster that dies under the relay
/// ends it with an error, so the process exits non-zero and its supervisor restarts both.
struct DatabaseService: Service {
    let environment: RelayEnvironment
    /// How often to look whether the embedded cluster still runs.
    var checkInterval: Duration = .seconds(1)

    struct ClusterDied: Error, CustomStringConvertible {
        var description: String { "the embedded PostgreSQL cluster stopped" }
    }

    func run() async throws {
        let died = await clusterDiesBeforeShutdown()
        await environment.stop()
        if died { throw ClusterDied() }
    }

    /// Waits for the graceful shutdown or the embedded cluster's death, whichever comes first.
    private func clusterDiesBeforeShutdown() async -> Bool {
        guard let cluster = environment.embedded else {
            await gracefulShutdown()
            return false
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await gracefulShutdown()
                return false
            }
            group.addTask {
                while cluster.isServing {
                    do { try await Task.sleep(for: checkInterval) } catch { return false }
                }
                return true
            }
            let died = await group.next() ?? false
            group.cancelAll()
            return died
        }
    }
}

/// The push worker: leases and sends until the shutdown, then finishes the chunks in hand.
struct WorkerService: Service {
    let worker: PushWorker

    func run() async {
        await withGracefulShutdownHandler { await worker.run() } onGracefulShutdown: { worker.stop() }
    }
}

/// The webhook outbox's delivery: POSTs until the shutdown, then finishes the requests in flight.
struct WebhookDeliveryService: Service {
    let worker: WebhookDeliveryWorker

    func run() async {
        await withGracefulShutdownHandler { await worker.run() } onGracefulShutdown: { worker.stop() }
    }
}

/// The scheduler: fires schedules until the shutdown, then finishes the one in hand.
struct SchedulerService: Service {
    let scheduler: Scheduler

    func run() async {
        await withGracefulShutdownHandler { await scheduler.run() } onGracefulShutdown: { scheduler.stop() }
    }
}

/// The deliveries' day partitions, kept hourly; the pass in hand is abandoned at the shutdown.
struct PartitionService: Service {
    let partitions: DeliveryPartitions

    func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await partitions.run() }
            await gracefulShutdown()
            group.cancelAll()
        }
    }
}

/// The HTTP server on `PUSHRELAY_LISTEN` (the API, or only health and metrics), already
/// listening: at the shutdown it stops accepting, finishes the requests in flight and writes
/// their replies.
struct ListenerService: Service {
    let server: HTTPServer

    func run() async {
        await gracefulShutdown()
        await server.shutdown()
    }
}

/// A simulator (APNs or FCM), already listening, stopped on shutdown.
struct SimulatorService: Service {
    let stop: @Sendable () async -> Void

    func run() async {
        await gracefulShutdown()
        await stop()
    }
}
