import Foundation
import HTTPServer
import PushCore
import PushPipeline
import RelayCore

/// `/v3/push`, `/v3/push/validate`, `DELETE /v3/push/{msg_id}` and the batch pushes: the
/// push is validated completely (PushCore), persisted in one transaction and answered before
/// any fan-out happens.
struct PushRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let messages = context.messages

        let liveActivities = LiveActivitySender(context: context)

        router.add("POST", "/v3/push", context.appHandler { request, _, app in
            let push = try await context.answering(PushRequest.parse(request.body), appKey: app.appKey)
            // `live_activity` in PushRelay's shape goes as a Live Activity push (docs/live-activities.md).
            if push.liveActivity != nil { return try await liveActivities.send(LiveActivityPush(pushBody: request.body, request: push), app: app) }
            let accepted = try await messages.accept(appID: app.id, request: push, body: request.body)
            context.countAccepted(accepted, appKey: app.appKey)
            context.logIgnored(push, accepted: accepted, appKey: app.appKey)
            return try jsonResponse(200, encoding: PushReply(sendno: accepted.sendno, msgID: accepted.msgID, ignored: push.ignored))
        })

        router.add("POST", "/v3/push/validate", context.appHandler { request, _, app in
            let push = try await context.answering(PushRequest.parse(request.body), appKey: app.appKey)
            return try jsonResponse(200, encoding: PushReply(sendno: push.options.sendno, msgID: messages.nextMessageID(), ignored: push.ignored))
        })

        router.add("DELETE", "/v3/push/{msg_id}", context.appHandler { _, parameters, app in
            let raw = parameters["msg_id"] ?? ""
            guard let msgID = MessageID(raw) else {
                throw JPushError.illegalValue("msg_id must be a positive 64-bit integer, got \(InputEcho.quoted(raw))")
            }
            switch try await messages.withdraw(appID: app.id, msgID: msgID) {
            case .withdrawn:
                return try jsonResponse(200, encoding: ["msg_id": msgID.description, "state": MessageState.withdrawn.rawValue])
            case .alreadyFinished:
                throw JPushError(status: 400, code: 1003, message: "msg_id \(msgID) has already been delivered to every target",
                                 msgID: msgID.description)
            case .notFound:
                throw JPushError(status: 404, code: 1003, message: "no message \(msgID) in this app")
            }
        })

        for (path, target) in [("/v3/push/batch/regid/single", BatchPushList.Target.registrationID),
                               ("/v3/push/batch/alias/single", BatchPushList.Target.alias)] {
            router.add("POST", path, context.appHandler { request, _, app in
                let entries = try BatchPushList.parse(request.body, target: target)
                let hasCallback = entries.contains { if case .accepted(let push, _) = $0.outcome { push.callback != nil } else { false } }
                let unsigned = hasCallback ? try await !context.appsWithoutWebhook([app.appKey]).isEmpty : false
                // Every valid entry in one transaction (`MessageStore.acceptAll`), each
                // answered with its own msg_id or error.
                var pushes: [(cid: String, push: PushRequest)] = []
                var submissions: [MessageStore.Submission] = []
                var reply: [String: BatchEntryAnswer] = [:]
                for entry in entries {
                    switch entry.outcome {
                    case .accepted(let push, let body):
                        pushes.append((entry.cid, unsigned ? push.callbackIgnored() : push))
                        submissions.append(MessageStore.Submission(appID: app.id, request: push, body: body))
                    case .rejected(let error):
                        reply[entry.cid] = .refused(error)
                    }
                }
                for ((cid, push), result) in zip(pushes, await messages.acceptAll(submissions)) {
                    switch result {
                    case .success(let accepted):
                        context.countAccepted(accepted, appKey: app.appKey)
                        context.logIgnored(push, accepted: accepted, appKey: app.appKey)
                        reply[cid] = .accepted(BatchEntryReply(msgID: accepted.msgID, ignored: push.ignored))
                    case .failure(let error as JPushError):
                        reply[cid] = .refused(error)
                    case .failure(let error):
                        throw error
                    }
                }
                return try jsonResponse(200, encoding: reply)
            })
        }
    }
}

/// One entry of a batch push's answer, under its cid: the push's reply, or JPush's error
/// object for the entry alone.
enum BatchEntryAnswer: Encodable {
    case accepted(BatchEntryReply)
    case refused(JPushError)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .accepted(let reply): try reply.encode(to: encoder)
        case .refused(let error): try error.encode(to: encoder)
        }
    }
}
