import EventLoops
import Foundation
import RelayCore
import Synchronization

/// Sends notifications to APNs over a bounded pool of HTTP/2 connections.
///
/// At most a window of sends wait for an answer at once (from `minInFlight`, growing with
/// the bandwidth-delay product up to `maxInFlight`: `InFlightWindow`), and at most a quarter
/// of `minInFlight` urgent ones besides; further `send` calls suspend, so a full APNs pipe
/// slows the caller rather than growing a queue. Requests on a connection
/// that dies, or that the server refuses or sends GOAWAY past, go out again on another
/// connection with the same `apns-id`; every `send` returns exactly once.
///
/// The connections run on loops of an `EventLoopGroup` (the process's shared one unless
/// given another): a client adds no thread of its own, however many clients there are.
/// They open when there is something to send and close after `idleTimeout` without any;
/// clients sharing `APNSClientResources` share provider tokens, TLS sessions and a bound on
/// their connections together.
public final class APNSClient: Sendable {
    private let configuration: APNSClientConfiguration
    private let clock: any APNSClock
    /// Each confined to its loop: reached only through jobs run there.
    private let pools: [LoopBound<ConnectionPool>]
    private let limiter: AsyncLimiter
    /// The urgent sends' window: they never wait for the others' slots.
    private let urgentLimiter: AsyncLimiter
    /// The fewest free slots a batch waits for before handing requests to the loops.
    private let handOver: Int
    private let counters = StatisticsCounters()
    private let nextPool = Atomic<Int>(0)
    private let isShutDown = Atomic<Bool>(false)

    /// - Parameters:
    ///   - configuration: endpoint, credentials, bounds.
    ///   - logger: for connection events; secrets are never logged.
    ///   - clock: the time for provider tokens, expirations, timeouts and backoff.
    ///   - group: the event loops the connections run on.
    ///   - resources: what it shares with the process's other clients.
    /// - Throws: on a bad key, certificate, CA file or bound.
    public init(
        configuration: APNSClientConfiguration, logger: Logger, clock: any APNSClock = SystemClock(),
        group: EventLoopGroup = .shared, resources: APNSClientResources = APNSClientResources()
    ) throws {
        for (name, value) in [("connections", configuration.connections), ("maxConnections", configuration.maxConnections),
                              ("minInFlight", configuration.minInFlight), ("maxInFlight", configuration.maxInFlight),
                              ("eventLoopCount", configuration.eventLoopCount), ("maxAttempts", configuration.maxAttempts)]
        where value < 1 {
            throw APNSConfigurationError.badBound(name)
        }
        self.configuration = configuration
        self.clock = clock
        let tokens: ProviderTokenManager?
        let tls: TLSContext
        switch configuration.authentication {
        case let .token(keyPEM, keyID, teamID):
            tokens = try resources.tokenManager(keyPEM: keyPEM, keyID: keyID, teamID: teamID, clock: clock)
            tls = try resources.tokenTLSContext(caFile: configuration.caFile)
        case let .certificate(certificatePEM, keyPEM):
            tokens = nil
            tls = try TLSContext(caFile: configuration.caFile, clientCertificatePEM: certificatePEM, clientKeyPEM: keyPEM)
        case .perRequest:
            tokens = nil
            tls = try resources.tokenTLSContext(caFile: configuration.caFile)
        }
        let floor = min(configuration.minInFlight, configuration.maxInFlight)
        let loopCount = min(configuration.eventLoopCount, configuration.maxConnections, floor)
        // Each pool's window starts at its share of the floor and resizes the limiter as it moves.
        let limiter = AsyncLimiter(limit: floor)
        self.limiter = limiter
        urgentLimiter = AsyncLimiter(limit: max(1, floor / 4))
        handOver = max(1, floor / 4)
        let logger = logger.with(["component": "apns-client", "apns_host": configuration.host])
        var pools: [LoopBound<ConnectionPool>] = []
        for index in 0..<loopCount {
            // Spread the bounds over the loops; the first loops take the remainders.
            func share(_ total: Int) -> Int { max(1, total / loopCount + (index < total % loopCount ? 1 : 0)) }
            let window = InFlightWindow.Limits(
                floor: share(floor), ceiling: share(configuration.maxInFlight),
                baseConnections: share(min(configuration.connections, configuration.maxConnections)),
                maxConnections: share(configuration.maxConnections))
            let loop = group.next()
            let pool = LoopBound(handingOver: ConnectionPool(
                loop: loop, configuration: configuration, window: window, limiter: limiter, tls: tls, tokens: tokens,
                clock: clock, logger: logger, counters: counters), to: loop)
            pool.execute { $0.start(allowance: resources.allowance, member: pool) }
            pools.append(pool)
        }
        self.pools = pools
    }

    /// Sends one notification and returns what became of it.
    ///
    /// Suspends while the in-flight window is full. Never throws: a notification
    /// that breaks a rule, or that cannot reach APNs, comes back as `.failed`. Task
    /// cancellation is not observed: a notification handed over is always answered, once.
    public func send(_ notification: APNSNotification) async -> APNSResult {
        if let problem = notification.validate() {
            counters.failed.add(1, ordering: .relaxed)
            return .failed(.invalid(problem))
        }
        await limiter.acquire()
        defer { limiter.release() }
        guard !isShutDown.load(ordering: .acquiring) else { return .failed(.shutdown) }
        let pool = pools[nextPool.wrappingAdd(1, ordering: .relaxed).oldValue % pools.count]
        let answer = await withCheckedContinuation { continuation in
            let request = PendingRequest(message: notification, recipient: .caller(continuation), queuedAt: clock.monotonicSeconds)
            if !pool.execute({ $0.enqueue(request) }) {
                request.finish(.failed(.shutdown))
            }
        }
        return APNSResult(answer, sentID: notification.apnsID)
    }

    /// Sends many notifications and returns what became of each, in the same order.
    ///
    /// The same as `send(_:)` for each, at a fraction of the cost: slots of the window are
    /// taken a chunk at a time (suspending while the pipe is full, so a large batch is
    /// handed over as answers free room), and each chunk reaches the loop threads in one
    /// hop. Never throws; every notification gets exactly one result.
    ///
    /// `urgent` ones (a single user's push) take slots of their own and go out before every
    /// other waiting notification, however many a broadcast has queued.
    public func send(_ notifications: [APNSNotification], urgent: Bool = false) async -> [APNSResult] {
        let problems = notifications.map { $0.validate() }
        let invalid = problems.count { $0 != nil }
        counters.failed.add(invalid, ordering: .relaxed)
        let sendable = invalid == 0 ? notifications : notifications.indices.compactMap { problems[$0] == nil ? notifications[$0] : nil }
        let answers = await send(messages: sendable, urgent: urgent)
        var next = 0
        return problems.map { problem in
            if let problem { return .failed(.invalid(problem)) }
            defer { next += 1 }
            return APNSResult(answers[next], sentID: sendable[next].apnsID)
        }
    }

    /// Sends messages of any kind (APNs notifications, FCM messages) through the pools and
    /// returns each one's answer, in order: the batch `send` without the APNs specifics.
    package func send(messages: [some HTTP2Message], urgent: Bool) async -> [HTTP2Answer] {
        guard !messages.isEmpty else { return [] }
        let limiter = urgent ? urgentLimiter : limiter
        let batch = SendBatch(count: messages.count, limiter: limiter)
        var next = 0
        while next < messages.count {
            // Wait for a quarter of the window's floor to be free, so the loops get messages in
            // bulk rather than one freed slot at a time. (A quarter of the window itself kept up
            // to a quarter of a wide window idle: 1,625 requests of 6,500, APNs 150 ms away.)
            let chunk = min(handOver, limiter.limit)
            let granted = await limiter.acquire(upTo: messages.count - next, atLeast: min(chunk, messages.count - next))
            let now = clock.monotonicSeconds
            let requests = (next..<(next + granted)).map { index in
                PendingRequest(message: messages[index], recipient: .batch(batch, index: index), queuedAt: now, urgent: urgent)
            }
            next += granted
            guard !isShutDown.load(ordering: .acquiring) else {
                for request in requests { request.finish(.failed(.shutdown)) }
                continue
            }
            // Split the chunk over the loops, one hand-over each.
            let share = (requests.count + pools.count - 1) / pools.count
            for start in stride(from: 0, to: requests.count, by: share) {
                let slice = Array(requests[start..<min(start + share, requests.count)])
                let pool = pools[nextPool.wrappingAdd(1, ordering: .relaxed).oldValue % pools.count]
                if !pool.execute({ $0.enqueue(contentsOf: slice) }) {
                    for request in slice { request.finish(.failed(.shutdown)) }
                }
            }
        }
        return await batch.wait()
    }

    /// Counters since the client started.
    public var statistics: APNSClientStatistics {
        let (usage, urgent) = (limiter.usage, urgentLimiter.usage)
        // The two windows' high waters added: a bound, as they need not have peaked together.
        return counters.snapshot(inFlight: usage.inUse + urgent.inUse, inFlightHighWater: usage.highWater + urgent.highWater,
                                 window: limiter.limit)
    }

    /// Fails sends that have not gone out, waits for the answers to those that have (at
    /// most `responseTimeout`) and closes every connection; the loops run on for others.
    public func shutdown() async {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for pool in pools {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if !pool.execute({ $0.shutdown { continuation.resume() } }) { continuation.resume() }
            }
        }
    }

    /// A client dropped without `shutdown()` still winds down: its pools close their connections.
    deinit {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for pool in pools {
            pool.execute { $0.shutdown {} }
        }
    }
}
