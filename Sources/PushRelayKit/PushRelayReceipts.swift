import Foundation

/// Reports what the phone saw of the relay's notifications: "received" from the
/// Notification Service Extension, "opened" from `NotificationRouter` taps.
///
/// Each receipt is queued first (in storage the app and the extension share), then the
/// queue is sent in batches. What cannot be sent now (offline, relay busy, the extension's
/// time up, not registered yet) stays queued, bounded, and goes with the next receipt, the
/// next `flush()` or the backoff's retry. A refused receipt is dropped, never retried; a
/// refused device secret is renewed once, then sending goes on.
///
/// In the extension, from `didReceive(_:withContentHandler:)`:
/// ```swift
/// _ = await receipts.didReceive(request.content.userInfo)   // at most 5 s
/// contentHandler(request.content)
/// ```
public actor PushRelayReceipts {
    /// Where a reported receipt stands when the call returns.
    public enum Delivery: Sendable, Equatable {
        /// Nothing left queued: the relay has it, and everything queued before it (or refused
        /// one for good, as malformed: that one is dropped, never retried).
        case sent
        /// Kept for later: offline, relay busy, time up, not registered, or another send under way.
        case queued
        /// The notification carries no `_j_msgid`: not the relay's.
        case notFromRelay
        /// The queue's storage failed (an App Group the process is not entitled to, a full disk).
        case storeUnavailable(String)
    }

    private let registration: ClientKeyRegistration
    private let store: any ReceiptQueueStore
    private let capacity: Int
    private let sleeper: any Sleeper
    private let now: @Sendable () -> Date

    private var retries: RetrySchedule
    /// One batch in flight per process: a receipt reported meanwhile goes with the running send.
    private var sending = false

    /// - Parameters:
    ///   - registration: the device's client-key registration (its credentials, and their renewal).
    ///   - store: `FileReceiptQueueStore(appGroup:)` in the app and the extension alike.
    ///   - capacity: the most receipts kept; past it the oldest are dropped.
    ///   - sleeper, random, now: the clock of time budgets and retries, the backoff's jitter, the receipts' time.
    public init(registration: ClientKeyRegistration, store: any ReceiptQueueStore, capacity: Int = 500,
                backoff: Backoff = Backoff(initial: .seconds(5), maximum: .seconds(600)), sleeper: any Sleeper = TaskSleeper(),
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.registration = registration
        self.store = store
        self.capacity = capacity
        self.sleeper = sleeper
        self.retries = RetrySchedule(backoff: backoff, sleeper: sleeper, random: random)
        self.now = now
    }

    /// The Notification Service Extension's one call: reports "received" for the notification
    /// whose `userInfo` this is, waiting at most `budget` (the extension has about 30 s in all).
    public nonisolated func didReceive(_ userInfo: [AnyHashable: Any], within budget: Duration = .seconds(5)) async -> Delivery {
        guard let msgID = (try? NotificationPayload(userInfo: userInfo))?.messageID else { return .notFromRelay }
        return await report(.received, msgID: msgID, within: budget)
    }

    /// Queues a receipt and sends the queue, waiting at most `budget` (nil: until it is sent or
    /// kept for later).
    public func report(_ event: ReceiptEvent, msgID: String, within budget: Duration? = nil) async -> Delivery {
        let receipt = Receipt(msgID: msgID, event: event, at: now())
        do {
            try store.update { _ = $0.add(receipt, capacity: capacity) }
        } catch {
            return .storeUnavailable(String(describing: error))
        }
        return await flush(within: budget)
    }

    /// Sends what is queued: call it at launch, once registered, and when the app comes to the foreground.
    @discardableResult
    public func flush(within budget: Duration? = nil) async -> Delivery {
        guard let budget else { return await send() }
        return await withTaskGroup(of: Delivery?.self) { group in
            group.addTask { await self.send() }
            group.addTask { [sleeper] in
                try? await sleeper.sleep(for: budget)
                return nil
            }
            // The first to end wins: the send, or the budget (nil), which cancels the request in flight.
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? .queued
        }
    }

    /// Sends batches until the queue is empty or a batch cannot go now.
    private func send() async -> Delivery {
        guard !sending else { return .queued }
        sending = true
        defer { sending = false }
        var renewed = false
        while !Task.isCancelled {
            guard let credentials = await registration.credentials else { return .queued }
            let batch: [Receipt]
            do {
                batch = try store.update { $0.nextBatch() }
            } catch {
                return .storeUnavailable(String(describing: error))
            }
            guard !batch.isEmpty else { return .sent }
            let outcome: ReceiptQueue.Outcome
            do {
                _ = try await registration.client.sendReceipts(batch, as: credentials)
                outcome = .accepted
                retries.succeeded()
            } catch {
                // Cut off by the budget: the batch stays queued as it is.
                if Task.isCancelled { return .queued }
                outcome = ReceiptQueue.Outcome(error)
            }
            let next: ReceiptQueue.Next
            do {
                next = try store.update { $0.settle(batch, outcome) }
            } catch {
                return .storeUnavailable(String(describing: error))
            }
            switch next {
            case .send:
                continue
            case .renewSecret where !renewed:
                renewed = true
                do {
                    _ = try await registration.renewSecret()
                } catch {
                    if Task.isCancelled { return .queued }
                    if error.isTransient { retryLater() }
                    return .queued
                }
            case .renewSecret, .retryLater:
                retryLater()
                return .queued
            }
        }
        return .queued
    }

    /// Sends again after the backoff's delay.
    private func retryLater() {
        retries.retry { await self.flush() }
    }
}
