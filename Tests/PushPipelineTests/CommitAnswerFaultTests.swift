import Foundation
import PostgresStore
import Testing
import TestSupport

/// A crash between commit and answer (issue 25): a batch of pushes whose transaction committed
/// but whose answers never reached the client. Each push must then be delivered exactly once
/// and the client's retry with the same cids answered with the msg_ids already stored.
///
/// The moment is made, not hoped for: the relay's sessions run with `synchronous_commit = on`
/// while PostgreSQL is told to wait for a synchronous standby that does not exist
/// (`CommitHold`). A COMMIT then writes its WAL record and waits; the relay cannot answer
/// until it returns. The relay is SIGKILLed (or the client hangs up) during that wait, the
/// hold is released, and the transaction becomes visible: committed, never answered.
@Suite(.serialized) struct CommitAnswerFaultTests {
    /// What ends the request while its COMMIT waits.
    enum Interruption: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case relayKilled = "relay SIGKILLed between commit and answer"
        case clientHungUp = "client hung up between commit and answer"

        var testDescription: String { rawValue }
    }

    @Test(arguments: Interruption.allCases) func committedButNeverAnswered(_ interruption: Interruption) async throws {
        let pushes = 20
        let relay = try await PipelineHarness.start(worker: false)
        let group = ProcessGroup()
        let hold = CommitHold(pool: relay.pool)
        try await group.cleaningUp(relay, also: { await hold.release() }) {
            let started = ContinuousClock.now
            var node = try await group.start(relay, synchronousCommit: true)
            let app = try await relay.createApp(base: node.base)
            let tokens = try await relay.insertDevices(app, count: pushes, prefix: "cc")
            let rids = try await relay.pool.query("""
                SELECT token, replace(registration_id::text, '-', '') AS rid FROM devices WHERE app_id = $1
                """, [app.id]).reduce(into: [String: String]()) { $0[try $1.string("token")] = try $1.string("rid") }
            // One batch call: every push in one transaction, one COMMIT.
            let pushlist = Dictionary(uniqueKeysWithValues: tokens.enumerated().map { index, token in
                ("crash-\(index)", ["platform": "ios", "target": rids[token]!, "notification": ["alert": "once \(index)"]] as [String: Any])
            })
            let body = try JSONSerialization.data(withJSONObject: ["pushlist": pushlist])
            @Sendable func send(to base: String) async throws -> PipelineHarness.Reply {
                try await relay.request("POST", "/v3/push/batch/regid/single", auth: app.auth, body: body, base: base)
            }

            try await hold.begin()
            let base = node.base
            let unanswered = Task { try await send(to: base) }
            try await hold.holdOnly(writing: "messages")
            switch interruption {
            case .relayKilled: group.kill(node.process)
            case .clientHungUp: unanswered.cancel()
            }
            let answer = try? await unanswered.value
            #expect(answer == nil, "the request got no answer (\(answer.map { "\($0.status) \($0.text)" } ?? ""))")
            let visible = try await relay.pool.query("SELECT count(*) AS n FROM messages WHERE app_id = $1", [app.id])[0].int("n")
            #expect(visible == 0, "nothing is visible while its commit is held")
            await hold.release()
            let stored = try await poll(timeout: .seconds(30), "the held COMMIT to finish") { () -> [String: Int64]? in
                let rows = try await relay.pool.query("SELECT cid, id FROM messages WHERE app_id = $1", [app.id])
                return rows.isEmpty ? nil : try rows.reduce(into: [:]) { $0[try $1.string("cid")] = Int64(try $1.int("id")) }
            }
            #expect(stored.count == pushes, "the whole batch committed")

            if interruption == .relayKilled { node = try await group.start(relay) }
            let retried = try await send(to: node.base)
            #expect(retried.status == 200)
            for cid in pushlist.keys {
                let answer = retried.json[cid] as? [String: Any]
                #expect((answer?["msg_id"] as? String).flatMap { Int64($0) } == stored[cid], "\(cid): the stored msg_id again")
            }
            for id in stored.values { try await relay.waitUntilFinished(id, timeout: .seconds(60)) }
            let messages = try await relay.pool.query("SELECT count(*) AS n FROM messages WHERE app_id = $1", [app.id])[0]
            #expect(try messages.int("n") == pushes, "the retry stored nothing new")
            let arrived = Arrivals(relay.simulator.deliveries(), tokens: tokens)
            #expect(arrived.delivered == pushes, "every push delivered")
            #expect(arrived.duplicates == 0, "none twice")
            FaultReport.record(interruption.rawValue, sent: pushes, delivered: arrived.delivered, duplicates: arrived.duplicates,
                               collapsed: arrived.collapsed, elapsed: ContinuousClock.now - started,
                               notes: "one batch of \(pushes), retried with the same cids: the same msg_ids")
        }
    }
}

/// Holds commits between their WAL record and their answer: `synchronous_standby_names`
/// names a standby that never connects, so every COMMIT of a session with `synchronous_commit
/// = on` waits (`SyncRep`) after it is written and before it is visible or answered. The
/// test cluster runs with it off, so nobody else's commits are held.
struct CommitHold {
    let pool: PostgresPool

    /// Holds commits from now on: returns once a probe commit of our own was held (the
    /// checkpointer applies the setting a moment after the reload).
    func begin() async throws {
        _ = try await pool.query("ALTER SYSTEM SET synchronous_standby_names = 'pushrelay_absent_standby'")
        _ = try await pool.query("SELECT pg_reload_conf()")
        try await poll(timeout: .seconds(30), "commits to be held") { try await probeHeld() ? true : nil }
    }

    /// Returns once a held commit has written to `table` (it holds the table's lock while it
    /// waits); every other commit held meanwhile (the rate limit's count of the request, a
    /// worker's lease) is let go, by a cancel that ends its wait: it stays committed.
    func holdOnly(writing table: String) async throws {
        try await poll(timeout: .seconds(30), "a commit writing \(table) to be held") { () -> Bool? in
            let rows = try await pool.query("""
                SELECT a.pid, EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.relation = $1::regclass
                                      AND l.mode = 'RowExclusiveLock') AS writes
                FROM pg_stat_activity a WHERE a.wait_event = 'SyncRep'
                """, [table])
            var found = false
            for row in rows {
                if try row.bool("writes") {
                    found = true
                } else {
                    _ = try await pool.query("SELECT pg_cancel_backend($1::integer)", [try row.int("pid")])
                }
            }
            return found ? true : nil
        }
    }

    /// Lets every held commit finish (they are committed already; now they are visible).
    func release() async {
        _ = try? await pool.query("ALTER SYSTEM RESET synchronous_standby_names")
        _ = try? await pool.query("SELECT pg_reload_conf()")
    }

    /// Whether a commit of ours waits for the standby; a held one is let go by a cancel (its
    /// wait ends, it stays committed).
    private func probeHeld() async throws -> Bool {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await pool.withConnection { connection in
                    try connection.transaction { connection in
                        try connection.query("SET LOCAL synchronous_commit = on")
                        try connection.query("SET LOCAL application_name = 'commit-hold-probe'")
                        try connection.query("CREATE TEMPORARY TABLE commit_hold_probe () ON COMMIT DROP")
                    }
                }
                return false
            }
            group.addTask {
                do {
                    return try await poll(timeout: .seconds(30), "the probe commit") {
                        try await pool.query("""
                            SELECT pg_cancel_backend(pid) FROM pg_stat_activity
                            WHERE application_name = 'commit-hold-probe' AND wait_event = 'SyncRep'
                            """).isEmpty ? nil : true
                    }
                } catch is CancellationError {
                    return false
                }
            }
            var held = try await group.next() ?? false
            group.cancelAll()
            for try await other in group { held = held || other }
            return held
        }
    }
}
