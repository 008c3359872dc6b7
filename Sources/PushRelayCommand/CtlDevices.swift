import Foundation
import RelayCore

/// `ctl devices register|show|import`, with the app's credentials.
struct CtlDevices {
    let client: CtlClient
    let output: CtlOutput

    func run(_ verb: String, _ arguments: CtlArguments) async throws {
        switch verb {
        case "register":
            let platform = arguments.value("platform") ?? "ios"
            var body: [String: JSONValue] = [
                "platform": .string(platform), "token": .string(try arguments.positional(0, "the APNs device token or FCM registration token")),
            ]
            if platform == "ios" || arguments.value("environment") != nil {
                body["environment"] = .string(arguments.value("environment") ?? "production")
            }
            if let alias = arguments.value("alias") { body["alias"] = .string(alias) }
            let tags = arguments.list("tag")
            if !tags.isEmpty { body["tags"] = .array(tags.map(JSONValue.string)) }
            let answer = try await client.object("POST", "/v3/devices", auth: .app, json: .object(body))
            output.show(answer) { TextTable.pairs([("registration_id", answer["registration_id"])]) }
        case "show":
            let rid = try arguments.positional(0, "the registration id")
            let device = try await client.object("GET", "/v3/devices/\(rid.urlComponent)", auth: .app)
            output.show(device) { TextTable.pairs(device.fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }) }
        case "import":
            try await importFile(try arguments.positional(0, "the file to import"), arguments)
        default:
            throw CtlError.usage("devices takes register, show or import")
        }
    }

    /// Sends the file in batches of lines (one request each), with a progress bar and the
    /// rate; rejected lines are reported with their line numbers in the file.
    private func importFile(_ path: String, _ arguments: CtlArguments) async throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw CtlError.failed("cannot read \(path)") }
        let format = arguments.value("format") ?? (path.lowercased().hasSuffix(".csv") ? "csv" : "ndjson")
        guard format == "csv" || format == "ndjson" else { throw CtlError.usage("--format is csv or ndjson") }
        guard let batchSize = Int(arguments.value("batch") ?? "5000"), batchSize > 0 else { throw CtlError.usage("--batch is a positive number of lines") }
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { Data($0) }
        if lines.last?.isEmpty == true { lines.removeLast() }
        // A CSV header is the server's to skip only on a first line: keep it out of the batches.
        var offset = 0
        if format == "csv", let first = lines.first, String(decoding: first, as: UTF8.self).hasPrefix("token,") {
            lines.removeFirst()
            offset = 1
        }
        let contentType = format == "csv" ? "text/csv" : "application/x-ndjson"
        let progress = ProgressWriter()
        let started = ContinuousClock.now
        var totals = (accepted: 0, rejected: 0, created: 0, updated: 0)
        var rejections: [CtlAnswerFields.ImportSummary.Rejection] = []
        var done = 0
        func line(final: Bool) {
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            progress.update(ProgressLine.render(done: done, total: lines.count, label: "lines", ratePerSecond: seconds > 0 ? Double(done) / seconds : nil,
                                                detail: "\(totals.accepted) accepted, \(totals.rejected) rejected"), final: final)
        }
        while done < lines.count {
            let batch = lines[done..<min(done + batchSize, lines.count)]
            let body = Data(batch.joined(separator: Data([UInt8(ascii: "\n")]))) + Data([UInt8(ascii: "\n")])
            let summary = try await client.call("POST", "/v3/devices/import", auth: .app, raw: body, contentType: contentType)
                .decoded(CtlAnswerFields.ImportSummary.self, "POST /v3/devices/import")
            totals.accepted += summary.accepted
            totals.rejected += summary.rejected
            totals.created += summary.created
            totals.updated += summary.updated
            // Numbered in the file rather than in the batch.
            rejections += summary.rejectedLines.map { .init(line: $0.line + done + offset, reason: $0.reason) }
            done += batch.count
            line(final: false)
        }
        line(final: true)
        let counts = [("accepted", totals.accepted), ("created", totals.created), ("updated", totals.updated), ("rejected", totals.rejected)]
        var result = Dictionary(uniqueKeysWithValues: counts.map { ($0.0, JSONValue.int(Int64($0.1))) })
        result["rejected_lines"] = .array(rejections.map { .object(["line": .int(Int64($0.line)), "reason": .string($0.reason)]) })
        output.show(.object(result)) {
            var text = TextTable.pairs(counts.map { ($0.0, .int(Int64($0.1))) })
            for rejection in rejections.prefix(20) { text += "line \(rejection.line): \(rejection.reason)\n" }
            return text
        }
    }
}
