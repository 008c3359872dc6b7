import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// JPush's group report calls, Basic `group-<group_key>:<group_secret>`: a group sees its
/// own pushes and apps only.
///
/// - `GET /v3/group/messages/detail?group_msgids=…` (at most 10): each group push's figures.
/// - `GET /v3/group/users?time_unit=…&start=…&duration=…`: `GET /v3/users` over the group's apps.
struct GroupReportRoutes: Sendable {
    let context: RouteContext

    static let maxGroupMessageIDs = 10

    func register(in router: inout Router) {
        let lookup = GroupPushLookup(pool: context.dependencies.pool)
        let pool = context.dependencies.pool

        router.add("GET", "/v3/group/messages/detail", reportHandler { request, group in
            let ids = try MessageIDList.parse(request.query["group_msgids"], name: "group_msgids", item: "group_msgid",
                                              maxCount: Self.maxGroupMessageIDs)
            let pushes = try await lookup.pushes(groupID: group.id, ids: ids)
            let byID = Dictionary(uniqueKeysWithValues: pushes.map { ($0.groupMsgID, $0) })
            return try jsonResponse(200, encoding: ids.compactMap { byID[$0] }.map(GroupShapes.MessageDetail.init))
        })

        router.add("GET", "/v3/group/users", reportHandler { request, group in
            let query = try UsersQuery(query: request.query)
            var total = Array(repeating: DeviceActivity.Counts(), count: query.duration)
            for app in group.apps {
                let counts = try await DeviceActivity.counts(appID: app.id, boundaries: query.boundaries, pool: pool)
                for (index, bucket) in counts.enumerated() { total[index].add(bucket) }
            }
            return try jsonResponse(200, encoding: UsersQuery.Answer(query: query, counts: total))
        })
    }

    /// A group report route: authentication failing is 401/3001, and the body's parameter
    /// errors are answered in the report family's codes.
    private func reportHandler(
        _ body: @escaping @Sendable (HTTPRequest, AuthenticatedGroup) async throws -> HTTPResponse
    ) -> Router.Handler {
        let logger = context.logger
        let failure = JPushError(status: 401, code: 3001, message: "authentication failed: Basic group-<group_key>:<group_secret> required")
        return context.groupHandler(failure: failure) { request, _, group in
            do {
                return try await body(request, group)
            } catch {
                throw ReportFamily.translate(error, logger: logger.with(["request_id": request.requestID]))
            }
        }
    }
}
