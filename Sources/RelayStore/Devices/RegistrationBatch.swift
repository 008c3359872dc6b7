import PostgresStore

/// Many device registrations in one statement (`DeviceStatements.registerBatch`), inside a
/// group commit's transaction (`DeviceRegistrar`): the registrations that arrive together
/// under load cost a statement per batch, not one each. Each still gets its own answer.
///
/// The upsert may change a row only once per statement, so a batch runs in rounds: a token
/// registered again in the same batch (same app) goes to the next round, so the later
/// registration is applied after the earlier, as one after another, and both are answered
/// with the device's one registration id. Within a round the rows go in (app, token) order:
/// concurrent batches lock the devices they share in one order.
enum RegistrationBatch {
    /// One registration to write.
    struct Entry: Sendable {
        var appID: Int64
        var registration: DeviceRegistration
    }

    /// The rounds of `entries`: their indices, each (app, token) at most once per round and
    /// in the rounds in arrival order, every round sorted by (app, token).
    static func rounds(_ entries: [Entry]) -> [[Int]] {
        struct Key: Hashable {
            var appID: Int64
            var token: String
        }
        var registered: [Key: Int] = [:]
        var rounds: [[Int]] = []
        for (index, entry) in entries.enumerated() {
            let key = Key(appID: entry.appID, token: entry.registration.token.text)
            let round = registered[key, default: 0]
            registered[key] = round + 1
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(index)
        }
        return rounds.map { round in
            round.sorted { (entries[$0].appID, entries[$0].registration.token.text) < (entries[$1].appID, entries[$1].registration.token.text) }
        }
    }

    /// Registers `entries` on `connection` (inside the caller's transaction), a round per
    /// statement; each one's registration id, in order.
    ///
    /// - Throws: when a statement fails (the transaction is then unusable: the group commit
    ///   runs each registration alone instead, so a bad one fails alone).
    static func register(_ entries: [Entry], on connection: PostgresConnection) throws -> [String] {
        var rids = [String?](repeating: nil, count: entries.count)
        for round in rounds(entries) {
            for row in try connection.preparedQuery(DeviceStatements.registerBatch, parameters(round.map { entries[$0] })) {
                rids[round[try row.int("ord") - 1]] = try row.string("rid")
            }
        }
        return try rids.map { rid in
            guard let rid else { throw PostgresError.protocolViolation("a registration of the batch has no answer") }
            return rid
        }
    }

    /// The statement's arrays, a place per entry (as `DeviceRepository.register` binds one).
    static func parameters(_ entries: [Entry]) -> [(any PostgresBindable)?] {
        let registrations = entries.map(\.registration)
        return [
            SQLArray.bigint(entries.map(\.appID)),
            SQLArray.text(registrations.map(\.token.text)),
            SQLArray.text(registrations.map(\.environment?.rawValue)),
            SQLArray.bool(registrations.map { $0.alias != nil }),
            SQLArray.text(registrations.map { $0.alias ?? "" }),
            SQLArray.int(registrations.map(\.badge)),
            SQLArray.bool(registrations.map { $0.tags != nil }),
            SQLArray.text(registrations.map { SQLArray.text($0.tags ?? []) }),
            SQLArray.text(registrations.map(\.platform.rawValue)),
        ]
    }
}
