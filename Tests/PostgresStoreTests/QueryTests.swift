import Foundation
import Testing
@testable import PostgresStore

/// Statements against a real PostgreSQL server.
@Suite("Queries")
struct QueryTests {
    @Test("a value with quotes, semicolons and backslashes round-trips unchanged as a parameter")
    func hostileTextRoundTrips() async throws {
        let hostile = #"Robert'); DROP TABLE students; -- \' "quoted" $1 ; ' OR '1'='1 ✓"#
        try await TestDatabase.withPool { pool, _ in
            try await pool.query("CREATE TABLE students (name text NOT NULL)")
            let inserted = try await pool.query("INSERT INTO students (name) VALUES ($1)", [hostile])
            #expect(inserted.affectedRows == 1)
            let rows = try await pool.query("SELECT name, octet_length(name) AS length FROM students WHERE name = $1", [hostile])
            #expect(rows.count == 1)
            #expect(try rows[0].string("name") == hostile)
            #expect(try rows[0].int("length") == hostile.utf8.count)
            // The table is still there, so nothing in the value ran as SQL.
            #expect(try await pool.query("SELECT count(*) AS n FROM students")[0].int("n") == 1)
        }
    }

    @Test("a session never JIT-compiles: a statement whose estimate passes jit_above_cost runs without it")
    func sessionsRunWithoutJIT() async throws {
        try await TestDatabase.withPool { pool, _ in
            #expect(try await pool.query("SHOW jit")[0].string("jit") == "off")
            // An estimate far above jit_above_cost (100,000 by default) plans no JIT either.
            let plan = try await pool.query("EXPLAIN (FORMAT TEXT) SELECT sum(i) FROM generate_series(1, 100000000) AS i")
            #expect(try plan.allSatisfy { try !$0.string("QUERY PLAN").contains("JIT") })
        }
    }

    @Test("NULL goes in as nil and comes out as nil; typed accessors refuse it")
    func nullHandling() async throws {
        try await TestDatabase.withPool { pool, _ in
            try await pool.query("CREATE TABLE notes (id int PRIMARY KEY, body text)")
            let missing: String? = nil
            try await pool.query("INSERT INTO notes (id, body) VALUES ($1, $2), ($3, $4)", [1, nil, 2, missing])
            try await pool.query("INSERT INTO notes (id, body) VALUES ($1, $2)", [3, Optional("text")])
            let rows = try await pool.query("SELECT id, body, body IS NULL AS is_null FROM notes ORDER BY id")
            #expect(rows.map { $0["body"] } == [nil, nil, "text"])
            #expect(try rows.map { try $0.bool("is_null") } == [true, true, false])
            #expect(throws: PostgresError.self) { try rows[0].string("body") }
            #expect(throws: PostgresError.self) { try rows[0].string("no_such_column") }
        }
    }

    @Test("bytea round-trips every byte value")
    func byteaRoundTrip() async throws {
        let bytes = (0...255).map(UInt8.init) + [0, 0, 0x5c, 0x27]
        try await TestDatabase.withPool { pool, _ in
            let rows = try await pool.query("SELECT $1::bytea AS data, length($1::bytea) AS n, $2::bytea AS empty", [bytes, [UInt8]()])
            #expect(try rows[0].bytes("data") == bytes)
            #expect(try rows[0].int("n") == bytes.count)
            #expect(try rows[0].bytes("empty") == [])
        }
    }

    @Test("integers, booleans, doubles and dates keep their values")
    func scalarsRoundTrip() async throws {
        let date = Date(timeIntervalSince1970: 1_796_000_000.123456)
        let before1970 = Date(timeIntervalSince1970: -86_400.5)
        try await TestDatabase.withPool { pool, _ in
            let rows = try await pool.query(
                "SELECT $1::bigint AS big, $2::int AS small, $3::boolean AS yes, $4::float8 AS x, $5::float8 AS inf, $6::timestamptz AS at, $7::timestamptz AS old",
                [Int64.max, -42, true, 0.1, Double.infinity, date, before1970])
            #expect(rows[0]["big"] == String(Int64.max))
            #expect(try rows[0].int("small") == -42)
            #expect(try rows[0].bool("yes"))
            #expect(Double(rows[0]["x"] ?? "") == 0.1)
            #expect(rows[0]["inf"] == "Infinity")
            #expect(abs(try rows[0].date("at").timeIntervalSince(date)) < 0.000_001)
            #expect(abs(try rows[0].date("old").timeIntervalSince(before1970)) < 0.000_001)
        }
    }

    @Test("the server takes every date we write, however far out")
    func extremeDatesBind() async throws {
        let dates = [-1e300, -62_135_596_800, -1e17, 253_402_300_800, 3_093_527_980_799, 1e17, .nan].map(Date.init(timeIntervalSince1970:))
        try await TestDatabase.withPool { pool, _ in
            for date in dates {
                let rows = try await pool.query("SELECT $1::timestamptz < 'infinity' AS finite", [date])
                #expect(rows.count == 1, "\(date.timeIntervalSince1970)")
            }
        }
    }

    @Test("timestamps decode whatever time zone the session uses")
    func datesDecodeInAnyTimeZone() async throws {
        try await TestDatabase.withPool(size: 1) { pool, _ in
            let at = try await pool.withConnection { connection in
                try connection.query("SET TimeZone TO 'Asia/Kolkata'")
                let rows = try connection.query("SELECT '2026-11-30 09:10:27.5+00'::timestamptz AS at")
                #expect(rows[0]["at"] == "2026-11-30 14:40:27.5+05:30")
                return try rows[0].date("at")
            }
            #expect(at == Date(timeIntervalSince1970: 1_796_029_827.5))
        }
    }

    @Test("a unique violation surfaces SQLSTATE 23505")
    func uniqueViolation() async throws {
        try await TestDatabase.withPool { pool, _ in
            try await pool.query("CREATE TABLE keys (k text PRIMARY KEY)")
            try await pool.query("INSERT INTO keys VALUES ($1)", ["a"])
            let error = await #expect(throws: PostgresError.self) {
                try await pool.query("INSERT INTO keys VALUES ($1)", ["a"])
            }
            #expect(error?.sqlState == "23505")
            // The connection is still good afterwards.
            #expect(try await pool.query("SELECT count(*) AS n FROM keys")[0].int("n") == 1)
        }
    }

    @Test("a transaction commits when its body returns and rolls back when it throws")
    func transactionRollback() async throws {
        struct Abort: Error {}
        try await TestDatabase.withPool { pool, _ in
            try await pool.query("CREATE TABLE ledger (amount int NOT NULL)")
            try await pool.withConnection { connection in
                try connection.transaction { _ = try $0.query("INSERT INTO ledger VALUES ($1)", [1]) }
                #expect(throws: Abort.self) {
                    try connection.transaction { connection in
                        try connection.query("INSERT INTO ledger VALUES ($1)", [2])
                        throw Abort()
                    }
                }
                // A failed statement whose error the body swallowed still rolls everything back.
                #expect(throws: PostgresError.self) {
                    try connection.transaction { connection in
                        try connection.query("INSERT INTO ledger VALUES ($1)", [3])
                        _ = try? connection.query("INSERT INTO ledger VALUES (NULL)")
                    }
                }
            }
            let amounts = try await pool.query("SELECT amount FROM ledger ORDER BY amount").map { try $0.int("amount") }
            #expect(amounts == [1])
        }
    }

    @Test("a transaction a closure leaves open is rolled back before the connection is reused")
    func openTransactionIsRolledBack() async throws {
        try await TestDatabase.withPool(size: 1) { pool, _ in
            try await pool.query("CREATE TABLE jobs (id int)")
            try await pool.withConnection { connection in
                try connection.query("BEGIN")
                try connection.query("INSERT INTO jobs VALUES ($1)", [1])
            }
            // Same thread, same session: had the transaction stayed open, it would see its row.
            let rows = try await pool.query("SELECT count(*) AS n FROM jobs")
            #expect(try rows[0].int("n") == 0)
        }
    }

    @Test("UPDATE reports the rows it touched; a script runs several statements")
    func affectedRowsAndScripts() async throws {
        try await TestDatabase.withPool { pool, _ in
            try await pool.withConnection { connection in
                try connection.execute("CREATE TABLE t (n int); INSERT INTO t VALUES (1), (2), (3);")
            }
            #expect(try await pool.query("UPDATE t SET n = n + 1 WHERE n >= $1", [2]).affectedRows == 2)
            #expect(try await pool.query("SELECT n FROM t WHERE n > $1", [100]).isEmpty)
        }
    }

    @Test("a parameter with a NUL byte is refused instead of truncated")
    func nulByteRefused() async throws {
        try await TestDatabase.withPool { pool, _ in
            let error = await #expect(throws: PostgresError.self) {
                try await pool.query("SELECT $1::text AS v", ["a\u{0}b"])
            }
            guard case .protocolViolation = error else {
                Issue.record("expected protocolViolation, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("our connection defaults apply unless the connection string sets the same parameter")
    func connectionDefaults() async throws {
        let base = try await TestDatabase.connectionString()
        let custom = base.hasPrefix("postgres") ? base + (base.contains("?") ? "&" : "?") + "application_name=custom" : base + " application_name=custom"
        for (connectionString, expected) in [(base, "pushrelay"), (custom, "custom")] {
            let pool = PostgresPool(configuration: .init(connectionString: connectionString, size: 1), logger: TestDatabase.quietLogger)
            let rows = try await pool.query("SELECT current_setting('application_name') AS name, current_setting('TimeZone') AS zone")
            await pool.close()
            #expect(rows[0]["name"] == expected)
            #expect(rows[0]["zone"] == "UTC")
        }
    }
}
