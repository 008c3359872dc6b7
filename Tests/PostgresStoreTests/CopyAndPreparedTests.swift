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
}
