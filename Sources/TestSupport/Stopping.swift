/// Runs `body` with `resource` and always `stop`s it afterwards, whether `body` threw or not:
/// the `with` of every harness.
public func withStopping<Resource>(_ resource: Resource, stop: (Resource) async -> Void,
                                   _ body: (Resource) async throws -> Void) async throws {
    do {
        try await body(resource)
    } catch {
        await stop(resource)
        throw error
    }
    await stop(resource)
}
