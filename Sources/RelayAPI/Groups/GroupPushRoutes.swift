import Foundation
import HTTPServer
import PushCore
import RelayCore
import RelayStore

/// `POST /v3/grouppush` (Basic `group-<group_key>:<group_secret>`): one push to every app of
/// the group, recorded under the group_msgid it answers (see `GroupReportRoutes`).
struct GroupPushRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let store = GroupPushStore(pool: context.dependencies.pool, messages: context.messages)
        let failure = JPushError.authenticationFailed("authentication failed: Basic group-<group_key>:<group_secret> required")
        router.add("POST", "/v3/grouppush", context.groupHandler(failure: failure) { request, _, group in
            let push = try PushRequest.parse(request.body)
            let (groupMsgID, outcomes) = try await store.accept(group, request: push, body: request.body)
            let unsigned = push.callback == nil ? [] : try await context.appsWithoutWebhook(outcomes.map(\.appKey))
            var answers: [String: PushRequest] = [:]
            for outcome in outcomes {
                guard case .success(let accepted) = outcome.result else { continue }
                let answered = unsigned.contains(outcome.appKey) ? push.callbackIgnored() : push
                answers[outcome.appKey] = answered
                context.countAccepted(accepted, appKey: outcome.appKey)
                context.logIgnored(answered, accepted: accepted, appKey: outcome.appKey)
            }
            return try jsonResponse(200, encoding: GroupShapes.PushAnswer(groupMsgID: groupMsgID, outcomes: outcomes,
                                                                          ignored: answers.mapValues(\.ignored)))
        })
    }
}
