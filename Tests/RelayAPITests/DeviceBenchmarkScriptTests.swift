import Foundation
@testable import RelayStore
import Testing
@testable import RelayAPI

/// The benchmark compares the API with pgbench running "the same upsert": this keeps
/// scripts/bench/register.sql identical to the statement the relay runs.
@Suite struct DeviceBenchmarkScriptTests {
    @Test func pgbenchScriptRunsTheRegistrationStatement() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/bench/register.sql")
        let script = try String(contentsOf: file, encoding: .utf8)
        let statement = try #require(script.components(separatedBy: "\\gset\n").last)
        var asRelay = statement.trimmingCharacters(in: .whitespacesAndNewlines)
        if asRelay.hasSuffix(";") { asRelay.removeLast() }
        // Longer names first, so :alias does not eat :alias_given.
        for (variable, parameter) in [(":alias_given", "$4"), (":tags_given", "$7"), (":app_id", "$1"), (":token", "$2"),
                                      (":environment", "$3"), (":alias", "$5"), (":badge", "$6"), (":tags", "$8"), (":platform", "$9")] {
            asRelay = asRelay.replacingOccurrences(of: variable + "::", with: parameter + "::")
                .replacingOccurrences(of: variable + ",", with: parameter + ",")
                .replacingOccurrences(of: variable + ")", with: parameter + ")")
        }
        func collapsed(_ sql: String) -> String { sql.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        #expect(collapsed(asRelay) == collapsed(DeviceStatements.register.text))
    }
}
