import Foundation
import HTTPServer
import PushCore
import PushPipeline
import RelayCore
import RelayStore

/// `/v3/live-activities` with the app's master secret: the devices' ActivityKit tokens and
/// activity states (the device family's answers: 200 with an empty body, 7xxx errors), a
/// start to an audience, an update or end to an activity (answered like `/v3/push`, with a
/// msg_id), and an activity's report (docs/live-activities.md).
struct LiveActivityRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let activities = LiveActivityRepository(pool: context.dependencies.pool)
        let sender = LiveActivitySender(context: context)

        router.add("POST", "/v3/live-activities/start-tokens", context.deviceHandler { request, _, app in
            try await activities.apply(appID: app.id, LiveActivityTokenChange.startToken(try JSONObjectReader(request.body)))
            return emptySuccess
        })

        router.add("POST", "/v3/live-activities/{activity_id}/tokens", context.deviceHandler { request, parameters, app in
            try await activities.apply(appID: app.id, LiveActivityTokenChange.activityToken(
                try JSONObjectReader(request.body), activityID: parameters["activity_id"] ?? ""))
            return emptySuccess
        })

        router.add("PUT", "/v3/live-activities/{activity_id}/state", context.deviceHandler { request, parameters, app in
            try await activities.apply(appID: app.id, LiveActivityTokenChange.state(
                try JSONObjectReader(request.body), activityID: parameters["activity_id"] ?? ""))
            return emptySuccess
        })

        router.add("POST", "/v3/live-activities", context.appHandler { request, _, app in
            try await sender.send(LiveActivityPush.start(request.body), app: app)
        })

        router.add("POST", "/v3/live-activities/{activity_id}", context.appHandler { request, parameters, app in
            try await sender.send(LiveActivityPush.change(request.body, activityID: parameters["activity_id"] ?? ""), app: app)
        })

        router.add("GET", "/v3/live-activities/{activity_id}", context.appHandler { _, parameters, app in
            let id = parameters["activity_id"] ?? ""
            try LiveActivityContent.checkActivityID(id, field: "activity_id (in the path)")
            guard let report = try await activities.report(appID: app.id, activityID: id) else {
                throw JPushError(status: 404, code: 1003, message: "no Live Activity \(InputEcho.quoted(id)) in this app: nothing was sent to it and no device registered a token for it")
            }
            return try jsonResponse(200, encoding: report)
        })
    }
}

/// Sends a Live Activity push for the routes that take one (`/v3/live-activities`, and
/// `/v3/push` with `live_activity`): stored through the pipeline with the activity's pacing
/// (`LiveActivityRepository.send`), answered like `/v3/push`.
struct LiveActivitySender: Sendable {
    let context: RouteContext

    func send(_ push: LiveActivityPush, app: AuthenticatedApp) async throws -> HTTPResponse {
        let accepted = try await LiveActivityRepository(pool: context.dependencies.pool).send(
            appID: app.id, push, messages: context.messages, minimumInterval: Int64(context.dependencies.liveActivityMinIntervalMS),
            now: Int64((context.dependencies.clock().timeIntervalSince1970 * 1000).rounded()))
        context.countAccepted(accepted, appKey: app.appKey)
        return try jsonResponse(200, encoding: PushReply(sendno: accepted.sendno, msgID: accepted.msgID, ignored: push.request.ignored))
    }
}
