import Foundation
import Testing
@testable import PostgresStore

/// COPY FROM STDIN and statements prepared once per connection, against a real server.
@Suite("COPY and prepared statements")
struct CopyAndPreparedTests {
    struct Stop: Error {}

    @Test("COPY streams rows in chunks; an aborted or refused COPY keeps nothing and leaves the connection usable")
    func copyIn() async throws {
        try await TestDatabase.withPool { pool, _ in
            try await pool.query("CREATE TABLE items (id int PRIMARY KEY, name text)")
            let copied = try await pool.withConnection { connection in
                try connection.copyIn("COPY items (id, name) FROM STDIN") { send in
                    try send(Array("1\tone\n2\t".utf8))
                    try send(Array("two\n3\t\\N\n".utf8))
                }
            }
            #expect(copied == 3)
            let rows = try await pool.query("SELECT id, name FROM items ORDER BY id")
            #expect(rows.map { $0["name"] } == ["one", "two", nil])

            let (aborted, usable) = try await pool.withConnection { connection in
                var threwStop = false
                do {
                    try connection.copyIn("COPY items (id, name) FROM STDIN") { send in
                        try send(Array("4\tfour\n".utf8))
                        throw Stop()
                    }
                } catch {
                    threwStop = error is Stop
                }
                // The same connection carries the next statement.
                return (threwStop, (try? connection.query("SELECT 1")) != nil)
            }
            #expect(aborted, "the producer's own error comes back")
            #expect(usable)

            await #expect(throws: PostgresError.self) {
                try await pool.withConnection { connection in
                    try connection.copyIn("COPY items (id, name) FROM STDIN") { send in try send(Array("1\tduplicate\n".utf8)) }
                }
            }
            await #expect(throws: PostgresError.self) {
                try await pool.withConnection { try $0.copyIn("SELECT 1") { _ in } }
            }
            #expect(try await pool.query("SELECT count(*) AS n FROM items")[0].int("n") == 3)
        }
    }

    @Test("a prepared statement is prepared once per connection and then reused")
    func prepared() async throws {
        try await TestDatabase.withPool { pool, _ in
            let results = try await pool.withConnection { connection -> [[Int]] in
                try [1, 2, 3].map { value in
                    let rows = try connection.preparedQuery("plus_one", "SELECT $1::integer + 1 AS n", [value])
                    let prepared = try connection.query("SELECT count(*) AS n FROM pg_prepared_statements WHERE name = 'plus_one'")
                    return [try rows[0].int("n"), try prepared[0].int("n")]
                }
            }
            #expect(results == [[2, 1], [3, 1], [4, 1]])
            await #expect(throws: PostgresError.self) { try await pool.preparedQuery("broken", "SELEC 1") }
        }
    }

    @Test("a statement prepared by its text is prepared once per text, under a name that depends on the text only")
    func preparedByText() async throws {
        try await TestDatabase.withPool { pool, _ in
            let (results, names) = try await pool.withConnection { connection -> ([Int], [String]) in
                let results = try [1, 2, 3].map { value in
                    try connection.preparedQuery(byText: "SELECT $1::integer + 1 AS n", [value])[0].int("n")
                } + [try connection.preparedQuery(byText: "SELECT $1::integer + 2 AS n", [1])[0].int("n")]
                let names = try connection.query("SELECT name FROM pg_prepared_statements WHERE name LIKE 'pushrelay_q_%' ORDER BY statement")
                    .map { try $0.string("name") }
                return (results, names)
            }
            #expect(results == [2, 3, 4, 3])
            #expect(names.count == 2 && Set(names).count == 2)
            // Another connection (of another pool) gives the same text the same name.
            let nameOf: @Sendable (PostgresPool) async throws -> String = { pool in
                try await pool.withConnection { connection in
                    _ = try connection.preparedQuery(byText: "SELECT 7 AS n")
                    return try connection.query("SELECT name FROM pg_prepared_statements WHERE statement = 'SELECT 7 AS n'")[0].string("name")
                }
            }
            let first = try await nameOf(pool)
            let again = [first, try await TestDatabase.withPool { other, _ in try await nameOf(other) }]
            #expect(again[0] == again[1])
        }
    }
}
