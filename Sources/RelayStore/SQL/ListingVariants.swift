import PostgresStore

/// The variants of a listing's page, one text per set of optional filters given: each
/// filter given binds one parameter, in the order the filters are named.
struct ListingVariants: Sendable {
    private let statements: [[Bool]: SQLStatement]

    /// - Parameters:
    ///   - name: the statements' name before the filters given (`…_all` when none is).
    ///   - text: the page's text for the filters given (a flag per filter).
    init(_ name: String, filters: [String], _ text: ([Bool]) -> String) {
        let every = filters.reduce([[Bool]]([[]])) { sets, _ in sets.flatMap { [$0 + [false], $0 + [true]] } }
        statements = Dictionary(uniqueKeysWithValues: every.map { given in
            let code = zip(filters, given).filter(\.1).map(\.0).joined(separator: "_")
            return (given, SQLStatement(name + "_" + (code.isEmpty ? "all" : code), text(given)))
        })
    }

    subscript(given given: [Bool]) -> SQLStatement {
        guard let statement = statements[given] else { preconditionFailure("no listing variant for the filters \(given)") }
        return statement
    }

    var all: [SQLStatement] { statements.values.sorted { $0.name < $1.name } }
}
