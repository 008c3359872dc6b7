import APNSClient
import Foundation
import Synchronization

/// One APNs client per (app, environment), built on first use and rebuilt when the app's
/// credential changes (its `version`); the replaced client is shut down.
final class SenderCache: Sendable {
    private struct Key: Hashable {
        var appID: Int64
        var environment: String
    }

    private struct Entry {
        var version: String
        var sender: any NotificationSender
    }

    /// Builds the client of a credential in an environment (`APNSClientSender.make`; a fake in tests).
    ///
    /// - Throws: when the credential cannot make a client (bad key or certificate).
    typealias MakeSender = @Sendable (_ credential: AppCredential, _ environment: String) throws -> any NotificationSender

    private let makeSender: MakeSender
    private let entries = Mutex<[Key: Entry]>([:])

    init(makeSender: @escaping MakeSender) {
        self.makeSender = makeSender
    }

    /// The sender for the app's credential in this environment.
    ///
    /// - Throws: when the credential cannot make a client (bad key or certificate).
    func sender(for credential: AppCredential, environment: String) throws -> any NotificationSender {
        let key = Key(appID: credential.appID, environment: environment)
        var replaced: (any NotificationSender)?
        // Built under the lock: rare (first use, new credential), and two chunks of one app
        // must not build two clients.
        let sender = try entries.withLock { entries throws -> any NotificationSender in
            if let entry = entries[key], entry.version == credential.version { return entry.sender }
            let sender = try makeSender(credential, environment)
            replaced = entries[key]?.sender
            entries[key] = Entry(version: credential.version, sender: sender)
            return sender
        }
        if let replaced { Task { await replaced.shutdown() } }
        return sender
    }

    /// The counters of every client alive now.
    var statistics: [APNSClientStatistics] {
        entries.withLock { $0.values.compactMap(\.sender.statistics) }
    }

    func shutdown() async {
        let all = entries.withLock { entries in
            defer { entries = [:] }
            return entries.values.map(\.sender)
        }
        for sender in all { await sender.shutdown() }
    }
}
