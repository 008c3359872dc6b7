import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps the receipt queue where the app and its Notification Service Extension (another
/// process) both reach it.
public protocol ReceiptQueueStore: Sendable {
    /// Reads the queue, changes it and writes it back as one step, also against the other process.
    func update<Result>(_ body: (inout ReceiptQueue) -> Result) throws -> Result
}

/// The queue in memory: tests, or an app without an extension.
public final class InMemoryReceiptQueueStore: ReceiptQueueStore {
    private let queue = Locked(ReceiptQueue())

    public init() {}

    public func update<Result>(_ body: (inout ReceiptQueue) -> Result) throws -> Result {
        queue.withLock { body(&$0) }
    }
}

/// The queue as a JSON file, changed under an exclusive `flock` of a lock file beside it, so
/// the app and its extension never lose each other's receipts. In an app, put it in the App
/// Group container both share: `FileReceiptQueueStore(appGroup: "group.com.example.app")`.
public struct FileReceiptQueueStore: ReceiptQueueStore {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    #if canImport(Darwin)
    /// `PushRelayReceipts.json` in the App Group's container; nil when the app is not entitled
    /// to that group.
    public init?(appGroup: String) {
        guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup) else { return nil }
        self.init(url: container.appendingPathComponent("PushRelayReceipts.json"))
    }
    #endif

    public func update<Result>(_ body: (inout ReceiptQueue) -> Result) throws -> Result {
        let lock = open(url.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw StoreError("cannot open \(url.path).lock: errno \(errno)") }
        defer { close(lock) }
        guard flock(lock, LOCK_EX) == 0 else { throw StoreError("cannot lock \(url.path).lock: errno \(errno)") }
        // Closing the descriptor releases the lock.
        let before = read()
        var queue = before
        let result = body(&queue)
        if queue != before {
            // Written whole to a temporary file and renamed: a crash leaves the old queue or the new one.
            try JSONEncoder().encode(queue).write(to: url, options: .atomic)
        }
        return result
    }

    private func read() -> ReceiptQueue {
        guard let data = FileManager.default.contents(atPath: url.path) else { return ReceiptQueue() }
        // A file this version cannot read is replaced rather than blocking every receipt after it.
        return (try? JSONDecoder().decode(ReceiptQueue.self, from: data)) ?? ReceiptQueue()
    }

    struct StoreError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
