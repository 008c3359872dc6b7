import Synchronization

/// A setting every loop reads and the control endpoint changes at run time (the failure
/// rates, the network's shape): a loop compares `generation` (one atomic load per request)
/// and copies the value only when it changed.
final class LiveSetting<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    private let changes = Atomic<Int>(0)

    init(_ value: Value) {
        self.value = Mutex(value)
    }

    /// Bumped by every `set`.
    var generation: Int { changes.load(ordering: .acquiring) }

    var current: Value { value.withLock { $0 } }

    func set(_ new: Value) {
        value.withLock { $0 = new }
        changes.add(1, ordering: .releasing)
    }
}
