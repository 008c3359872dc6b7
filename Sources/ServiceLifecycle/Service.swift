/// A long-running part of a process (the HTTP server, a push worker, the database), run
/// by a `ServiceGroup`.
///
/// `run()` works until the group asks for a graceful shutdown (see
/// `withGracefulShutdownHandler` and `gracefulShutdown()`), then finishes its work in
/// flight and returns. Returning or throwing before that is a failure: the group stops
/// the others and the process exits non-zero.
public protocol Service: Sendable {
    /// What the logs call it.
    var name: String { get }

    func run() async throws
}

extension Service {
    public var name: String { String(describing: Self.self) }
}
