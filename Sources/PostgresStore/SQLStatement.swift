/// A statement written whole, with the name it is prepared under on every connection.
///
/// Each family of statements lists its variants (`all`), so a test can prepare and
/// `EXPLAIN` every one of them against the test cluster.
public struct SQLStatement: Sendable, Hashable, CustomStringConvertible {
    /// At most 63 bytes (PostgreSQL's NAMEDATALEN), one name for one text.
    public let name: String
    public let text: String

    public init(_ name: String, _ text: String) {
        precondition(name.utf8.count < 64, "a prepared statement's name is at most 63 bytes: \(name)")
        self.name = name
        self.text = text
    }

    public var description: String { name }
}

extension PostgresConnection {
    /// Runs `statement`, prepared on this connection the first time.
    ///
    /// - Throws: like `query`.
    @discardableResult
    public func preparedQuery(_ statement: SQLStatement, _ params: [(any PostgresBindable)?] = []) throws -> PostgresRows {
        try preparedQuery(statement.name, statement.text, params)
    }
}

extension PostgresPool {
    /// `PostgresConnection.preparedQuery(_:_:)` on any connection of the pool.
    @discardableResult
    public func preparedQuery(_ statement: SQLStatement, _ params: [(any PostgresBindable)?] = [],
                              priority: PostgresPriority = .normal) async throws -> PostgresRows {
        try await withConnection(priority: priority) { try $0.preparedQuery(statement, params) }
    }
}
