import Foundation
import RelayCore

/// `ctl report MSG_ID` and `ctl stats`: the admin reports as tables.
struct CtlReports {
    let client: CtlClient
    let output: CtlOutput

    func report(_ arguments: CtlArguments) async throws {
        let msgID = try arguments.positional(0, "the msg_id")
        let message = try await client.object("GET", "/admin/v1/messages/\(msgID.urlComponent)", auth: .admin)
        let funnel = try message.decoded(CtlAnswerFields.Funnel.self, "GET /admin/v1/messages/\(msgID)").funnel
        output.show(message) {
            let app = "\(TextTable.cell(message["app_name"])) (\(TextTable.cell(message["app_key"])))"
            var head = TextTable.pairs([("msg_id", message["msg_id"]), ("app", .string(app)),
                                        ("state", message["state"]), ("alert", message["alert"]), ("created_at", message["created_at"]),
                                        ("finished_at", message["finished_at"]), ("duration_seconds", message["duration_seconds"]),
                                        ("throughput_per_second", message["throughput_per_second"]), ("retries", message["retries"])])
            var table = TextTable(["STEP", "COUNT", "SHARE"])
            func share(_ count: Int) -> JSONValue {
                guard funnel.target > 0 else { return .string("-") }
                return .string(String(format: "%.1f%%", Double(count) * 100 / Double(funnel.target)))
            }
            for (step, count) in funnel.counts { table.add([.string(step), .int(Int64(count)), share(count)]) }
            for (reason, count) in funnel.failedByReason.sorted(by: { $0.key < $1.key }) {
                table.add([.string("  \(reason)"), .int(Int64(count)), share(count)])
            }
            head += "\n" + table.rendered
            return head
        }
    }

    func stats(_ arguments: CtlArguments) async throws {
        var query: [String] = []
        for name in ["since", "until", "bucket", "app-key"] {
            if let value = arguments.value(name) { query.append("\(name.replacingOccurrences(of: "-", with: "_"))=\(value.urlComponent)") }
        }
        let stats = try await client.object("GET", "/admin/v1/stats" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")), auth: .admin)
        output.show(stats) {
            var table = TextTable(["APP_KEY", "NAME", "SENT", "FAILED", "INVALIDATED", "EXPIRED", "RETRIES"])
            for app in stats["apps"]?.items ?? [] {
                let totals = app["totals"]
                table.add([app["app_key"], app["name"], totals?["sent"], totals?["failed"], totals?["invalidated"], totals?["expired"], totals?["retries"]])
            }
            let totals = stats["totals"]
            table.add([.string("all"), .string(""), totals?["sent"], totals?["failed"], totals?["invalidated"], totals?["expired"], totals?["retries"]])
            var text = "\(TextTable.cell(stats["since"])) to \(TextTable.cell(stats["until"])) by \(TextTable.cell(stats["bucket"]))\n" + table.rendered
            let reasons = stats["failed_by_reason"]?.fields ?? [:]
            if !reasons.isEmpty {
                text += "not delivered: " + reasons.keys.sorted().map { "\($0) \(TextTable.cell(reasons[$0]))" }.joined(separator: ", ") + "\n"
            }
            return text
        }
    }
}
