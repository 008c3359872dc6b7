import Foundation
import Testing
import RelayAPI

/// openapi.yaml describes exactly the routes the relay serves.
@Suite struct OpenAPITests {
    /// (method, path) pairs under `paths:` in openapi.yaml, read line by line: paths are the
    /// two-space-indented keys, methods the four-space-indented HTTP verbs below them.
    static func documented() throws -> Set<String> {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("openapi.yaml")
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        var inPaths = false
        var current: String?
        var operations: Set<String> = []
        let verbs: Set<String> = ["get", "put", "post", "delete", "patch", "head", "options"]
        for line in lines {
            if line == "paths:" { inPaths = true; continue }
            guard inPaths else { continue }
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = false; continue }
            if line.hasPrefix("  /"), !line.hasPrefix("   "), line.hasSuffix(":") {
                current = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let current {
                let key = line.dropFirst(4).split(separator: ":").first.map(String.init) ?? ""
                if verbs.contains(key) { operations.insert("\(key.uppercased()) \(current)") }
            }
        }
        return operations
    }

    @Test func everyRouteIsDocumentedAndNothingElse() async throws {
        try await RelayHarness.with { relay in
            let served = Set(relay.router.table.map { "\($0.method) \($0.pattern)" })
            let documented = try Self.documented()
            #expect(!served.isEmpty)
            #expect(served.subtracting(documented).sorted() == [], "served but not in openapi.yaml")
            #expect(documented.subtracting(served).sorted() == [], "in openapi.yaml but not served")
        }
    }
}
