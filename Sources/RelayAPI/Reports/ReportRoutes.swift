import Foundation
import HTTPServer
import RelayCore
import RelayStore

/// JPush's report calls: delivery counts per message and delivery status per device.
struct ReportRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let reports = ReportRepository(pool: context.dependencies.pool)

        router.add("GET", "/v3/received", context.reportHandler { request, _, app in
            let ids = try MessageIDList.parse(request.query["msg_ids"])
            let counters = try await reports.counters(appID: app.id, ids: ids)
            return try jsonResponse(200, encoding: counters.map { ReportShapes.Received(counters: $0) })
        })

        router.add("GET", "/v3/received/detail", context.reportHandler { request, _, app in
            let ids = try MessageIDList.parse(request.query["msg_ids"])
            let counters = try await reports.counters(appID: app.id, ids: ids)
            return try jsonResponse(200, encoding: counters.map { ReportShapes.Received(counters: $0, detail: true) })
        })

        router.add("GET", "/v3/messages/detail", context.reportHandler { request, _, app in
            let ids = try MessageIDList.parse(request.query["msg_ids"])
            let details = try await reports.details(appID: app.id, ids: ids)
            return try jsonResponse(200, encoding: details.map { ReportShapes.MessageDetail(counters: $0.0, failures: $0.1) })
        })

        router.add("POST", "/v3/status/message", context.reportHandler { request, _, app in
            let query = try StatusRequest(try JSONObjectReader(request.body))
            guard let statuses = try await reports.statuses(appID: app.id, messageID: query.messageID, registrationIDs: query.registrationIDs) else {
                // The same answer for another app's message as for one that exists nowhere.
                throw ReportFamily.invalid("msg_id \(query.messageID) is not a message of this app")
            }
            return try jsonResponse(200, encoding: statuses.mapValues { ["status": $0.rawValue] })
        })
    }
}
