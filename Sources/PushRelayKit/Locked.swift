import Foundation

/// A value behind an `NSLock` (Synchronization's `Mutex` needs iOS 18; this library runs on iOS 16).
final class Locked<Value>: @unchecked Sendable {
    // Thread rule: `value` is only touched inside `withLock`.
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
