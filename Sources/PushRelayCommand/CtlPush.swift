import Foundation
import RelayCore

/// `ctl push send`: builds a JPush push from flags, sends it and follows its fan-out with a
/// progress line until every target has an outcome.
struct CtlPush {
    let client: CtlClient
    let output: CtlOutput

    /// The `/v3/push` body the flags describe.
    static func body(_ arguments: CtlArguments) throws(CtlError) -> [String: Any] {
        var audience: [String: Any] = [:]
        if !arguments.list("alias").isEmpty { audience["alias"] = arguments.list("alias") }
        if !arguments.list("tag").isEmpty { audience["tag"] = arguments.list("tag") }
        if !arguments.list("rid").isEmpty { audience["registration_id"] = arguments.list("rid") }
        guard arguments.flag("all") != !audience.isEmpty else {
            throw .usage("push send needs exactly one audience: --all, or --alias/--tag/--rid")
        }
        var ios: [String: Any] = [:]
        let alert = try arguments.required("alert")
        if let title = arguments.value("title") { ios["alert"] = ["title": title, "body": alert] } else { ios["alert"] = alert }
        if let badge = arguments.value("badge") {
            if let number = Int(badge) { ios["badge"] = number } else { ios["badge"] = badge }
        }
        if let sound = arguments.value("sound") { ios["sound"] = sound }
        var extras: [String: Any] = [:]
        for pair in arguments.options["extra"] ?? [] {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { throw .usage("--extra takes KEY=VALUE, got \"\(pair)\"") }
            extras[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        if !extras.isEmpty { ios["extras"] = extras }
        var body: [String: Any] = ["platform": "ios", "audience": arguments.flag("all") ? "all" : audience,
                                   "notification": ["ios": ios]]
        if let environment = arguments.value("environment") {
            guard environment == "production" || environment == "sandbox" else { throw .usage("--environment is production or sandbox") }
            body["options"] = ["apns_production": environment == "production"]
        }
        if let cid = arguments.value("cid") { body["cid"] = cid }
        return body
    }

    func send(_ arguments: CtlArguments) async throws {
        let accepted = try await client.object("POST", "/v3/push", auth: .app, json: try Self.body(arguments))
        guard let msgID = accepted["msg_id"] as? String else { throw CtlError.failed("the relay accepted the push without a msg_id") }
        if arguments.flag("no-wait") {
            output.show(accepted) { TextTable.pairs([("msg_id", msgID), ("sendno", accepted["sendno"])]) }
            return
        }
        guard let timeout = Double(arguments.value("timeout") ?? "600"), timeout > 0 else { throw CtlError.usage("--timeout is a number of seconds") }
        let deadline = ContinuousClock.now + .milliseconds(Int64(saturating: timeout * 1000))
        let progress = ProgressWriter()
        let started = ContinuousClock.now
        while true {
            let details = try await client.call("GET", "/v3/messages/detail?msg_ids=\(msgID)", auth: .app) as? [[String: Any]]
            guard let detail = details?.first else { throw CtlError.notFound("message \(msgID) is not in the report") }
            let apns = ((detail["details"] as? [String: Any])?["notification"] as? [String: Any])
            let target = apns?["target"] as? Int ?? 0
            let sent = apns?["sent"] as? Int ?? 0
            let pending = detail["pending"] as? Int ?? 0
            let failed = (detail["failed"] as? Int ?? 0) + (detail["invalidated_tokens"] as? Int ?? 0) + (detail["expired"] as? Int ?? 0)
            let state = detail["state"] as? String ?? ""
            let finished = state == "done" || state == "withdrawn"
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            progress.update(ProgressLine.render(done: target - pending, total: target, label: "msg \(msgID)",
                                                ratePerSecond: seconds > 0 ? Double(target - pending) / seconds : nil,
                                                detail: "\(sent) sent, \(failed) not delivered, \(state)"), final: finished)
            if finished {
                var result = detail
                result["msg_id"] = msgID
                output.show(result) {
                    TextTable.pairs([("msg_id", msgID), ("state", state), ("target", target), ("sent", sent),
                                     ("failed", detail["failed"]), ("invalidated_tokens", detail["invalidated_tokens"]),
                                     ("expired", detail["expired"]), ("failed_by_reason", detail["failed_by_reason"]),
                                     ("retries", detail["retries"]), ("duration_seconds", detail["duration_seconds"])])
                }
                return
            }
            guard ContinuousClock.now < deadline else {
                throw CtlError.timedOut("message \(msgID) still has \(pending) of \(target) targets pending after \(Int(saturating: timeout)) s")
            }
            try await Task.sleep(for: .milliseconds(250))
        }
    }
}
