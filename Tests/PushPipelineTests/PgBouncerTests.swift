import Foundation
import PostgresStore
import Testing
import TestSupport

/// PushRelay behind a real PgBouncer (Debian 12: 1.18, no protocol-level prepared statements):
/// what docs/scaling.md, "Connection pooling (PgBouncer)", states was tested.
@Suite(.serialized, .enabled(if: PgBouncer.executable != nil,
                             "pgbouncer is not installed (apt-get install pgbouncer; `make test` installs it)"))
struct PgBouncerTests {
    /// Session mode carries `pushrelay serve` with every role: it migrates an empty database
    /// at start through PgBouncer (session advisory lock), registers devices (a named prepared
    /// statement) again and again on several connections, and its worker (LISTEN, prepared
    /// statements) sends a targeted push and a broadcast to the simulator, each device once.
    @Test func sessionModeCarriesServeWithEveryRole() async throws {
        let database = try await TestDatabase.fresh()
        let bouncer = try await PgBouncer.start(mode: .session, serverConnections: 40, for: database)
        var processes: [Process] = []
        var harness: PipelineHarness?
        do {
            // A first `serve` migrates the empty database through PgBouncer; /readyz answers
            // 200 only once every migration is applied.
            let firstPort = try TestProcess.freePort()
            var first = ProcessInfo.processInfo.environment
            first["PUSHRELAY_DATABASE_URL"] = bouncer.url(for: database)
            first["PUSHRELAY_LISTEN"] = "127.0.0.1:\(firstPort)"
            first["PUSHRELAY_ADMIN_TOKEN"] = PipelineHarness.adminToken
            first["PUSHRELAY_DATA_DIR"] = bouncer.directory.appendingPathComponent("first-data").path
            first["PUSHRELAY_THREADS"] = "2"
            first["PUSHRELAY_LOG_LEVEL"] = "error"
            let migrating = try await RelayProcess.start(arguments: ["serve", "--role", "api"], environment: first,
                                                         base: "http://127.0.0.1:\(firstPort)")
            RelayProcess.stop([migrating])
            #expect(migrating.terminationStatus == 0, "the first serve stopped cleanly (it released the migration lock)")

            // The harness's own direct Migrator finds nothing left to do.
            let relay = try await PipelineHarness.start(worker: false, database: database)
            harness = relay
            let applied = try await relay.pool.query("SELECT count(*) AS n FROM schema_migrations")
            #expect(try applied.first!.int("n") == EmbeddedMigrations.all.count)

            let port = try TestProcess.freePort()
            let base = "http://127.0.0.1:\(port)"
            var environment = relay.processEnvironment(port: port, leaseSeconds: 30)
            environment["PUSHRELAY_DATABASE_URL"] = bouncer.url(for: database)
            environment["PUSHRELAY_DB_POOL_SIZE"] = "4"
            processes.append(try await RelayProcess.start(arguments: ["serve"], environment: environment, base: base))

            let app = try await relay.createApp(base: base)
            let tokens = (0..<6).map { PipelineHarness.token(prefix: "b0", index: $0) }
            // Three rounds of concurrent registrations of the same devices: the pool's
            // connections each prepare the statement once and run it repeatedly.
            var rids: [String: String] = [:]
            for round in 0..<3 {
                let replies = try await register(tokens, app: app, relay: relay, base: base)
                for (token, reply) in replies {
                    #expect(reply.status == 200, "round \(round): \(reply.status) \(reply.text)")
                    let rid = try #require(reply.json["registration_id"] as? String)
                    if let known = rids[token] { #expect(known == rid, "a re-registration keeps the registration id") }
                    rids[token] = rid
                }
            }

            let targeted = try await relay.accepted(app, ["platform": "ios", "audience": ["registration_id": [rids[tokens[0]]!]],
                                                          "notification": ["alert": "one"]], base: base)
            let targetedRow = try await relay.waitUntilFinished(targeted, timeout: .seconds(20))
            #expect(targetedRow["state"] == "done")
            #expect(try targetedRow.int("sent_count") == 1)

            let broadcast = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "all"]], base: base)
            let broadcastRow = try await relay.waitUntilFinished(broadcast, timeout: .seconds(20))
            #expect(broadcastRow["state"] == "done")
            #expect(try broadcastRow.int("sent_count") == tokens.count)

            let deliveries = relay.simulator.deliveries()
            #expect(Set(deliveries.map(\.token)) == Set(tokens), "every device received the broadcast")
            for delivery in deliveries {
                // The first device got the targeted push and the broadcast, the others the broadcast.
                #expect(delivery.count == (delivery.token == tokens[0] ? 2 : 1), "\(delivery.token): \(delivery.count) pushes")
                #expect(delivery.alert == "all")
            }
            #expect(bouncer.log.contains("login attempt: db=\(try #require(database.split(separator: "=").last))"),
                    "the relay's connections went through PgBouncer")
        } catch {
            RelayProcess.stop(processes)
            await harness?.stop()
            bouncer.stop()
            throw error
        }
        RelayProcess.stop(processes)
        await harness?.stop()
        bouncer.stop()
    }

    /// Transaction mode with an API-only node on a database migrated beforehand (directly):
    /// start-up, readiness, the admin API and push acceptance work, but device registration
    /// (the named prepared statements `pushrelay_register_device` and the rate limit's
    /// `pushrelay_request_count_take`) fails as soon as two of the
    /// relay's connections meet on one server connection, or one connection's statement runs
    /// on another server connection.
    @Test func transactionModeBreaksDeviceRegistrationOfAnAPINode() async throws {
        let database = try await TestDatabase.fresh()
        let relay = try await PipelineHarness.start(worker: false, database: database)
        let bouncer: PgBouncer
        do {
            bouncer = try await PgBouncer.start(mode: .transaction, serverConnections: 2, for: database)
        } catch {
            await relay.stop()
            throw error
        }
        var processes: [Process] = []
        do {
            let port = try TestProcess.freePort()
            let base = "http://127.0.0.1:\(port)"
            var environment = relay.processEnvironment(port: port)
            environment["PUSHRELAY_DATABASE_URL"] = bouncer.url(for: database)
            environment["PUSHRELAY_DB_POOL_SIZE"] = "4"
            processes.append(try await RelayProcess.start(arguments: ["serve", "--role", "api"], environment: environment, base: base))

            let app = try await relay.createApp(base: base)
            try await relay.insertDevices(app, count: 3, prefix: "c0")
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "x"]], base: base)
            #expect(try await relay.message(msgID)["state"] != nil, "the push was stored")

            // Rounds of 8 concurrent registrations (new devices each round) until one fails;
            // with 4 client and 2 server connections that takes a round or two.
            var failures: [PipelineHarness.Reply] = []
            var successes = 0
            for round in 0..<25 where failures.isEmpty {
                let tokens = (0..<8).map { PipelineHarness.token(prefix: "d\(round % 10)", index: round * 8 + $0) }
                for (_, reply) in try await register(tokens, app: app, relay: relay, base: base) {
                    if reply.status == 200 { successes += 1 } else { failures.append(reply) }
                }
            }
            #expect(!failures.isEmpty, "device registration never failed in transaction mode (\(successes) succeeded)")
            // The relay sees a server error it does not expect: 500, code 7000 (internal error),
            // or 1000 when the rate limit's count (also prepared) fails, before the route runs.
            #expect(failures.allSatisfy { $0.status == 500 && [7000, 1000].contains($0.errorCode) },
                    "\(failures.map { "\($0.status) \($0.text)" })")
            let ready = try await relay.request("GET", "/readyz", base: base)
            #expect(ready.status == 200, "the node stays ready: only the prepared statements fail")
        } catch {
            RelayProcess.stop(processes)
            bouncer.stop()
            await relay.stop()
            throw error
        }
        RelayProcess.stop(processes)
        bouncer.stop()
        await relay.stop()
    }

    /// Why, with PushRelay's own pool (`preparedQuery` prepares once per client connection):
    /// in transaction mode PgBouncer 1.18 hands the statement to whichever server connection
    /// is free. A second client connection's PREPARE meets the first one's statement
    /// ("already exists"); a client whose server connection is busy runs its statement on
    /// another one ("does not exist"); and a session advisory lock's unlock can reach another
    /// server connection, leaving the lock held (what `Migrator` relies on).
    @Test func transactionModeMovesSessionStateBetweenServerConnections() async throws {
        let database = try await TestDatabase.fresh()
        let bouncer = try await PgBouncer.start(mode: .transaction, serverConnections: 2, for: database)
        let direct = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: database, size: 1), logger: TestDatabase.quietLogger)
        let first = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: bouncer.url(for: database), size: 1),
                                 logger: TestDatabase.quietLogger)
        let second = PostgresPool(configuration: PostgresPoolConfiguration(connectionString: bouncer.url(for: database), size: 1),
                                  logger: TestDatabase.quietLogger)
        do {
            let sql = "SELECT 1 AS one"
            // One server connection so far: the first client prepares and runs on it.
            #expect(try await first.preparedQuery("pushrelay_probe", sql).first?.int("one") == 1)
            do {
                try await second.preparedQuery("pushrelay_probe", sql)
                Issue.record("the second client's PREPARE found a server connection without the statement")
            } catch {
                #expect("\(error)".contains("prepared statement \"pushrelay_probe\" already exists"), "\(error)")
            }

            // The second client holds that server connection; the first client's EXECUTE
            // (already prepared, from its point of view) goes to a new one.
            try await whileBusy(second, database: database, direct: direct) {
                do {
                    try await first.preparedQuery("pushrelay_probe", sql)
                    Issue.record("the prepared statement ran on another server connection")
                } catch {
                    #expect("\(error)".contains("prepared statement \"pushrelay_probe\" does not exist"), "\(error)")
                }
            }

            // A session advisory lock taken on one server connection, released from another.
            let key = 0x7072_6f62  // "prob"
            try await first.query("SELECT pg_advisory_lock($1)", [key])
            try await whileBusy(second, database: database, direct: direct) {
                let unlocked = try await first.query("SELECT pg_advisory_unlock($1) AS released", [key])
                #expect(try unlocked.first?.bool("released") == false, "the unlock ran where no lock was held")
            }
            let held = try await direct.query("""
                SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND granted
                """, [key])
            #expect(try held.first?.int("n") == 1, "the lock is still held by a server connection")
        } catch {
            await first.close(); await second.close(); await direct.close()
            bouncer.stop()
            throw error
        }
        await first.close(); await second.close(); await direct.close()
        bouncer.stop()
    }

    /// Runs `body` while `pool`'s connection keeps the server connection PgBouncer last
    /// released busy (a 1 s `pg_sleep`, seen running in `pg_stat_activity` first).
    private func whileBusy(_ pool: PostgresPool, database: String, direct: PostgresPool, _ body: () async throws -> Void) async throws {
        let sleeper = Task { try await pool.query("SELECT pg_sleep(1)") }
        try await poll(timeout: .seconds(5), "the sleeping statement to run") { () -> Bool? in
            let rows = try await direct.query("""
                SELECT count(*) AS n FROM pg_stat_activity
                WHERE datname = current_database() AND state = 'active' AND query = 'SELECT pg_sleep(1)'
                """)
            return try rows.first!.int("n") == 1 ? true : nil
        }
        try await body()
        _ = try await sleeper.value
    }

    /// Registers `tokens` concurrently (`POST /v3/devices`), one request each.
    private func register(_ tokens: [String], app: PipelineHarness.App, relay: PipelineHarness,
                          base: String) async throws -> [(String, PipelineHarness.Reply)] {
        try await withThrowingTaskGroup(of: (String, PipelineHarness.Reply).self) { group in
            for token in tokens {
                group.addTask {
                    (token, try await relay.request("POST", "/v3/devices", auth: app.auth,
                                                    json: ["platform": "ios", "token": token, "environment": "production"], base: base))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }
}
