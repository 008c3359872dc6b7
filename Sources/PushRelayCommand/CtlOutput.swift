import Foundation
import RelayCore

/// How ctl prints: tables for people, JSON for scripts (`--json`), progress on standard
/// error (a line rewritten in place on a terminal, one line a second otherwise).
struct CtlOutput: Sendable {
    let json: Bool

    /// Prints `value` as JSON (sorted keys), or `table()` for people.
    func show(_ value: JSONValue, table: () -> String) {
        if json {
            StandardStream.output.write(value.jsonText + "\n")
        } else {
            StandardStream.output.write(table())
        }
    }
}

/// Columns padded to their widest cell; numbers right-aligned.
struct TextTable {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: [String]) { self.headers = headers }

    mutating func add(_ cells: [JSONValue?]) {
        rows.append(cells.map(TextTable.cell))
    }

    var rendered: String {
        let all = [headers] + rows
        let widths = headers.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return all.map { row in
            headers.indices.map { column in
                let text = row.indices.contains(column) ? row[column] : ""
                let padding = String(repeating: " ", count: widths[column] - text.count)
                return Double(text) != nil ? padding + text : text + padding
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n") + "\n"
    }

    /// Key and value pairs, one a line.
    static func pairs(_ pairs: [(String, JSONValue?)]) -> String {
        var table = TextTable(["FIELD", "VALUE"])
        for (key, value) in pairs { table.add([.string(key), value]) }
        return table.rendered
    }

    /// A value as people read it: "-" for none, fractions to two places, lists joined by
    /// commas, objects as `key=value` pairs.
    static func cell(_ value: JSONValue?) -> String {
        switch value {
        case nil, .null?: return "-"
        case .string(let text)?: return text
        case .bool(let flag)?: return String(flag)
        case .number(let number)?:
            let double = number.double
            if double != double.rounded() { return String(format: "%.2f", double) }
            return number.int64.map(String.init) ?? NSNumber(value: double).stringValue
        case .array(let items)?: return items.map { cell($0) }.joined(separator: ",")
        case .object(let fields)?: return fields.keys.sorted().map { "\($0)=\(cell(fields[$0]))" }.joined(separator: " ")
        }
    }
}

/// A progress line: `[#####.....]  52%  5200/10000 label  ·  1234/s  ·  detail`.
struct ProgressLine {
    static func render(done: Int, total: Int, label: String, ratePerSecond: Double?, detail: String) -> String {
        let width = 30
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
        let percent = String(Int((fraction * 100).rounded(.down)))
        text += String(repeating: " ", count: 3 - percent.count) + percent + "%  \(done)/\(total) \(label)"
        if let ratePerSecond { text += String(format: "  ·  %.0f/s", ratePerSecond) }
        if !detail.isEmpty { text += "  ·  " + detail }
        return text
    }
}

/// Writes progress to standard error: rewritten in place on a terminal, otherwise a line at
/// most once a second (and the last one always).
final class ProgressWriter: @unchecked Sendable {
    // Used from one task at a time: the command's own.
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private var lastLine = ContinuousClock.now - .seconds(2)

    func update(_ line: String, final: Bool = false) {
        if isTerminal {
            StandardStream.error.write("\r\u{1B}[K" + line + (final ? "\n" : ""))
        } else if final || ContinuousClock.now - lastLine >= .seconds(1) {
            lastLine = ContinuousClock.now
            StandardStream.error.write(line + "\n")
        }
    }
}
