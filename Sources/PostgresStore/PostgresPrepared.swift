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

    /// `preparedQuery` for a statement whose text is built from a few shapes (an audience's
    /// condition): each distinct text is prepared once on this connection, named after a hash
    /// of the text, so one name always goes with one text, in every process.
    @discardableResult
    public func preparedQuery(byText sql: String, _ params: [(any PostgresBindable)?] = []) throws -> PostgresRows {
        let name: String
        if let known = namesByText[sql] {
            name = known
        } else {
            name = "pushrelay_q_" + String(FNV1a.hash(sql.utf8), radix: 16)
            namesByText[sql] = name
        }
        return try preparedQuery(name, sql, params)
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
