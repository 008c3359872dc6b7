/// A value confined to one event loop: read and changed only on the loop's thread (checked
/// in debug builds), yet `Sendable`, so it can travel to that thread inside `execute` jobs.
///
/// Like swift-nio's `NIOLoopBound`. The loop-confined objects of the servers and clients
/// (pools, listeners, connections' owners) are plain non-Sendable classes; whoever holds
/// one from another thread holds it through a `LoopBound`.
///
/// `@unchecked Sendable`: the value is only reached through `value`, which asserts that
/// the caller is on `loop`'s thread.
public struct LoopBound<Value>: @unchecked Sendable {
    public let loop: EventLoop
    private let stored: Value

    /// Binds a value made on the loop's thread.
    public init(_ value: Value, loop: EventLoop) {
        loop.assertInEventLoop()
        self.loop = loop
        stored = value
    }

    /// Binds a value made elsewhere that nothing else refers to (the compiler checks that
    /// through `sending`), handing it over to the loop.
    public init(handingOver value: sending Value, to loop: EventLoop) {
        self.loop = loop
        stored = value
    }

    /// The value; on the loop's thread only.
    public var value: Value {
        loop.assertInEventLoop()
        return stored
    }

    /// Runs `body` with the value on its loop's thread.
    ///
    /// - Returns: false when the loop has stopped and `body` will never run.
    @discardableResult
    public func execute(_ body: @escaping @Sendable (Value) -> Void) -> Bool {
        loop.execute { body(self.value) }
    }
}
