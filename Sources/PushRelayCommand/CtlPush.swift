import Foundation
import RelayCore

/// `ctl push send`: builds a JPush push from flags, sends it and follows its fan-out with a
/// progress line until every target has an outcome.
struct CtlPush {
    let client: CtlClient
    let output: CtlOutput

    /// The `/v3/push` body the flags describe.
    static func body(_ arguments: CtlArguments) throws(CtlError) -> JSONValue {
        var audience: [String: JSONValue] = [:]
        for (option, key) in [("alias", "alias"), ("tag", "tag"), ("rid", "registration_id")] where !arguments.list(option).isEmpty {
            audience[key] = .array(arguments.list(option).map(JSONValue.string))
        }
        guard arguments.flag("all") != !audience.isEmpty else {
            throw .usage("push send needs exactly one audience: --all, or --alias/--tag/--rid")
        }
        var ios: [String: JSONValue] = [:]
        let alert = try arguments.required("alert")
        if let title = arguments.value("title") {
            ios["alert"] = .object(["title": .string(title), "body": .string(alert)])
        } else {
            ios["alert"] = .string(alert)
        }
        if let badge = arguments.value("badge") {
            if let number = Int64(badge) { ios["badge"] = .int(number) } else { ios["badge"] = .string(badge) }
        }
        if let sound = arguments.value("sound") { ios["sound"] = .string(sound) }
        var extras: [String: JSONValue] = [:]
        for pair in arguments.options["extra"] ?? [] {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { throw .usage("--extra takes KEY=VALUE, got \"\(pair)\"") }
            extras[String(pair[..<equals])] = .string(String(pair[pair.index(after: equals)...]))
        }
        if !extras.isEmpty { ios["extras"] = .object(extras) }
        var body: [String: JSONValue] = ["platform": .string("ios"), "audience": arguments.flag("all") ? .string("all") : .object(audience),
                                         "notification": .object(["ios": .object(ios)])]
        if let environment = arguments.value("environment") {
            guard environment == "production" || environment == "sandbox" else { throw .usage("--environment is production or sandbox") }
            body["options"] = .object(["apns_production": .bool(environment == "production")])
        }
        if let cid = arguments.value("cid") { body["cid"] = .string(cid) }
        return .object(body)
    }

    func send(_ arguments: CtlArguments) async throws {
        let accepted = try await client.object("POST", "/v3/push", auth: .app, json: try Self.body(arguments))
        let msgID = try accepted.decoded(CtlAnswerFields.Accepted.self, "POST /v3/push").msgID
        if arguments.flag("no-wait") {
            output.show(accepted) { TextTable.pairs([("msg_id", .string(msgID)), ("sendno", accepted["sendno"])]) }
            return
        }
        guard let timeout = Double(arguments.value("timeout") ?? "600"), timeout > 0 else { throw CtlError.usage("--timeout is a number of seconds") }
        let deadline = ContinuousClock.now + .milliseconds(Int64(saturating: timeout * 1000))
        let progress = ProgressWriter()
        let started = ContinuousClock.now
        while true {
            let details = try await client.call("GET", "/v3/messages/detail?msg_ids=\(msgID)", auth: .app)
            guard let detail = details.items.first else { throw CtlError.notFound("message \(msgID) is not in the report") }
            let fanOut = try detail.decoded(CtlAnswerFields.Progress.self, "GET /v3/messages/detail")
            let (target, sent, pending, state) = (fanOut.details.notification.target, fanOut.details.notification.sent, fanOut.pending, fanOut.state)
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            progress.update(ProgressLine.render(done: target - pending, total: target, label: "msg \(msgID)",
                                                ratePerSecond: seconds > 0 ? Double(target - pending) / seconds : nil,
                                                detail: "\(sent) sent, \(fanOut.notDelivered) not delivered, \(state)"), final: fanOut.isFinished)
            if fanOut.isFinished {
                var result = detail.fields
                result["msg_id"] = .string(msgID)
                output.show(.object(result)) {
                    TextTable.pairs([("msg_id", .string(msgID)), ("state", .string(state)), ("target", .int(Int64(target))), ("sent", .int(Int64(sent))),
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
