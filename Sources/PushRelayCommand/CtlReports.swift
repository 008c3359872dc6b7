import Foundation

/// `ctl report MSG_ID` and `ctl stats`: the admin reports as tables.
struct CtlReports {
    let client: CtlClient
    let output: CtlOutput

    func report(_ arguments: CtlArguments) async throws {
        let msgID = try arguments.positional(0, "the msg_id")
        let message = try await client.object("GET", "/admin/v1/messages/\(msgID.urlComponent)", auth: .admin)
        output.show(message) {
            let funnel = message["funnel"] as? [String: Any] ?? [:]
            var head = TextTable.pairs([("msg_id", message["msg_id"]), ("app", "\(TextTable.cell(message["app_name"])) (\(TextTable.cell(message["app_key"])))"),
                                        ("state", message["state"]), ("alert", message["alert"]), ("created_at", message["created_at"]),
                                        ("finished_at", message["finished_at"]), ("duration_seconds", message["duration_seconds"]),
                                        ("throughput_per_second", message["throughput_per_second"]), ("retries", message["retries"])])
            var table = TextTable(["STEP", "COUNT", "SHARE"])
            let target = funnel["target"] as? Int ?? 0
            func share(_ value: Any?) -> String {
                guard target > 0, let count = value as? Int else { return "-" }
                return String(format: "%.1f%%", Double(count) * 100 / Double(target))
            }
            for step in ["target", "sent", "failed", "invalidated", "expired", "withdrawn", "pending"] {
                table.add([step, funnel[step], share(funnel[step])])
            }
            let reasons = funnel["failed_by_reason"] as? [String: Any] ?? [:]
            for reason in reasons.keys.sorted() { table.add(["  \(reason)", reasons[reason], share(reasons[reason])]) }
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
            for app in stats["apps"] as? [[String: Any]] ?? [] {
                let totals = app["totals"] as? [String: Any] ?? [:]
                table.add([app["app_key"], app["name"], totals["sent"], totals["failed"], totals["invalidated"], totals["expired"], totals["retries"]])
            }
            let totals = stats["totals"] as? [String: Any] ?? [:]
            table.add(["all", "", totals["sent"], totals["failed"], totals["invalidated"], totals["expired"], totals["retries"]])
            var text = "\(TextTable.cell(stats["since"])) to \(TextTable.cell(stats["until"])) by \(TextTable.cell(stats["bucket"]))\n" + table.rendered
            let reasons = stats["failed_by_reason"] as? [String: Any] ?? [:]
            if !reasons.isEmpty {
                text += "not delivered: " + reasons.keys.sorted().map { "\($0) \(TextTable.cell(reasons[$0]))" }.joined(separator: ", ") + "\n"
            }
            return text
        }
    }
}
