/// The PostgreSQL NOTIFY channel workers LISTEN on: a push was accepted, a chunk became
/// ready, or a paused app got a new credential.
public enum PushChannel {
    public static let name = "pushrelay_push"
    /// The statement that wakes the workers (delivered when the transaction commits).
    public static let notify = "NOTIFY \(name)"
    /// The payload of a notification that only made chunks ready: workers lease, their
    /// resolvers stay asleep.
    static let chunksReady = "chunks"
}
