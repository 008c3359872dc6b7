import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PushRelayKit
import Synchronization

/// A clock driven by the test: `sleep` suspends until the test fires it.
final class ManualSleeper: Sleeper {
    private struct State {
        var requested: [Duration] = []
        var waiting: [(id: Int, duration: Duration, continuation: CheckedContinuation<Void, any Error>)] = []
        var nextID = 0
    }
    private let state = Mutex(State())

    /// Every delay asked for, in order.
    var requested: [Duration] { state.withLock { $0.requested } }
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    func sleep(for duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                state.withLock { state in
                    state.requested.append(duration)
                    state.waiting.append((id, duration, continuation))
                }
                // Cancelled before the continuation was stored: onCancel found nothing to end.
                if Task.isCancelled { cancel(id) }
            }
        } onCancel: {
            cancel(id)
        }
    }

    private func cancel(_ id: Int) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiting.remove(at: index).continuation
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// Waits (polling, bounded) until `count` sleepers are suspended.
    func waitForSleepers(_ count: Int = 1) async throws {
        try await poll("\(count) sleepers") { self.waitingCount >= count ? true : nil }
    }

    /// Ends the oldest sleep.
    func fireNext() {
        let continuation = state.withLock { state in state.waiting.isEmpty ? nil : state.waiting.removeFirst().continuation }
        continuation?.resume()
    }

    /// Durations of the sleeps under way, oldest first.
    var waitingDurations: [Duration] { state.withLock { $0.waiting.map(\.duration) } }

    /// Waits (polling, bounded) until a sleep of `duration` is under way, then ends the oldest such.
    func fire(_ duration: Duration) async throws {
        try await poll("a sleep of \(duration)") { self.waitingDurations.contains(duration) ? true : nil }
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard let index = state.waiting.firstIndex(where: { $0.duration == duration }) else { return nil }
            return state.waiting.remove(at: index).continuation
        }
        continuation?.resume()
    }
}

/// Polls `body` until it returns a value, for at most `timeout`.
@discardableResult
func poll<T>(_ what: String, timeout: Duration = .seconds(30), _ body: () async throws -> T?) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let value = try await body() { return value }
        guard ContinuousClock.now < deadline else { throw TestFailure("timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A registration service that records calls and answers from a script.
final class FakeRegistrationService: DeviceRegistrationService {
    struct Registration: Equatable {
        var token: String
        var environment: APNsEnvironment
        var alias: String?
        var tags: [String]
    }
    private struct State {
        var registrations: [Registration] = []
        var updates: [(String, DeviceUpdate)] = []
        /// Errors the next registrations throw, in order.
        var registerFailures: [any Error] = []
        var nextID = 0
    }
    private let state = Mutex(State())

    var registrations: [Registration] { state.withLock { $0.registrations } }
    var updates: [(String, DeviceUpdate)] { state.withLock { $0.updates } }

    func failNextRegistrations(_ errors: [any Error]) {
        state.withLock { $0.registerFailures.append(contentsOf: errors) }
    }

    func register(token: String, environment: APNsEnvironment, alias: String?, tags: [String]) async throws -> String {
        try state.withLock { state in
            state.registrations.append(Registration(token: token, environment: environment, alias: alias, tags: tags))
            if !state.registerFailures.isEmpty { throw state.registerFailures.removeFirst() }
            state.nextID += 1
            return "rid-\(state.nextID)"
        }
    }

    func update(registrationID: String, _ update: DeviceUpdate) async throws {
        state.withLock { $0.updates.append((registrationID, update)) }
    }
}

/// Records the badge the registrar sets on the "OS".
final class FakeBadge: Sendable {
    private let values = Mutex<[Int]>([])
    var set: [Int] { values.withLock { $0 } }
    func setter() -> @Sendable (Int) async throws -> Void {
        { value in self.values.withLock { $0.append(value) } }
    }
}

/// An HTTP transport that answers from a script and records the requests.
final class ScriptedTransport: HTTPTransport {
    struct Sent {
        var method: String
        var url: String
        var headers: [String: String]
        var body: Data?
        var json: [String: Any] { body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:] }
    }
    enum Answer {
        case reply(Int, String)
        case offline
        /// No answer until the request is cancelled.
        case silent
    }
    private let state = Mutex<(answers: [Answer], sent: [Sent])>(([], []))

    init(_ answers: [Answer]) {
        state.withLock { $0.answers = answers }
    }

    var sent: [Sent] { state.withLock { $0.sent } }

    /// Answers after those already scripted.
    func answer(_ more: [Answer]) {
        state.withLock { $0.answers.append(contentsOf: more) }
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let answer = state.withLock { state in
            state.sent.append(Sent(method: request.httpMethod ?? "GET", url: request.url!.absoluteString,
                                   headers: request.allHTTPHeaderFields ?? [:], body: request.httpBody))
            return state.answers.isEmpty ? Answer.offline : state.answers.removeFirst()
        }
        switch answer {
        case .offline: throw URLError(.notConnectedToInternet)
        case .silent:
            try await Task.sleep(for: .seconds(3600))
            throw URLError(.timedOut)
        case .reply(let status, let body):
            return (Data(body.utf8), HTTPURLResponse(url: request.url!, statusCode: status, httpVersion: "HTTP/1.1", headerFields: [:])!)
        }
    }
}
