import CSystem
import RelayCore

extension PostgresConnection {
    /// Runs a statement prepared once per connection under `name`: a hot statement is then
    /// parsed and planned once, not on every call (for a large statement, most of its cost).
    ///
    /// - Parameters:
    ///   - name: identifies `sql`; one name must always go with the same text.
    /// - Throws: like `query`.
    @discardableResult
    public func preparedQuery(_ name: String, _ sql: String, _ params: [(any PostgresBindable)?] = []) throws -> PostgresRows {
        if !preparedNames.contains(name) {
            _ = try rows(from: PQprepare(handle, name, sql, Int32(params.count), nil))
            preparedNames.insert(name)
        }
        let texts = params.map { $0?.postgresText }
        if let index = texts.firstIndex(where: { $0?.utf8.contains(0) == true }) {
            throw PostgresError.protocolViolation("parameter $\(index + 1) contains a NUL byte")
        }
        let result = withCStrings(texts) { values in
            PQexecPrepared(handle, name, Int32(texts.count), values, nil, nil, 0)
        }
        return try rows(from: result)
    }
}

extension PostgresPool {
    /// `PostgresConnection.preparedQuery` on any connection of the pool.
    @discardableResult
    public func preparedQuery(_ name: String, _ sql: String, _ params: [(any PostgresBindable)?] = [],
                              priority: PostgresPriority = .normal) async throws -> PostgresRows {
        try await withConnection(priority: priority) { try $0.preparedQuery(name, sql, params) }
    }
}
