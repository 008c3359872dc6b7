import Foundation
import HTTPServer
import PushCore
import RelayCore
import RelayStore
import Scheduling

/// `/v3/schedules`: create, list, get (with the next five fire times), update, delete and
/// the msg_ids a schedule sent, with JPush's shapes and 8xxx codes. The push inside a
/// schedule is validated exactly like `POST /v3/push` whenever it is written.
struct ScheduleRoutes: Sendable {
    let context: RouteContext

    static let authenticationFailed = JPushError(
        status: 401, code: 8101, message: "authentication failed: Basic app_key:master_secret required")

    func register(in router: inout Router) {
        let schedules = ScheduleRepository(pool: context.dependencies.pool)
        let zone = context.dependencies.timeZone
        let clock = context.dependencies.clock

        router.add("POST", "/v3/schedules", route { request, _, app in
            let now = clock()
            let schedule = try ScheduleRequest(json: Self.body(request), defaultTimeZone: zone, now: now)
            try Self.validatePush(schedule.push)
            let created = try await schedules.create(appID: app.id, schedule, now: now)
            return jsonResponse(200, .object(["schedule_id": .string(created.id), "name": .string(created.name)]))
        })

        router.add("GET", "/v3/schedules", route { request, _, app in
            let page = try Self.page(request.query)
            let (total, list) = try await schedules.list(appID: app.id, page: page)
            return jsonResponse(200, .object([
                "total_count": .int(Int64(total)), "total_pages": .int(Int64((total + ScheduleRepository.pageSize - 1) / ScheduleRepository.pageSize)),
                "page": .int(Int64(page)), "schedules": .array(list.map { .object($0.jpushObject) }),
            ]))
        })

        router.add("GET", "/v3/schedules/{id}", route { _, parameters, app in
            let id = try Self.scheduleID(parameters)
            guard let stored = try await schedules.get(appID: app.id, id: id) else { throw Self.notFound(id) }
            var object = stored.jpushObject
            object["next_fire_times"] = .array(stored.nextFireTimes(after: clock()).map(JSONValue.string))
            return jsonResponse(200, .object(object))
        })

        router.add("PUT", "/v3/schedules/{id}", route { request, parameters, app in
            let id = try Self.scheduleID(parameters)
            let now = clock()
            let update = try ScheduleUpdate(json: Self.body(request), defaultTimeZone: zone, now: now)
            if let push = update.push { try Self.validatePush(push) }
            guard let stored = try await schedules.update(appID: app.id, id: id, update, now: now) else { throw Self.notFound(id) }
            return jsonResponse(200, .object(stored.jpushObject))
        })

        router.add("DELETE", "/v3/schedules/{id}", route { _, parameters, app in
            let id = try Self.scheduleID(parameters)
            guard try await schedules.delete(appID: app.id, id: id) else { throw Self.notFound(id) }
            return emptySuccess
        })

        router.add("GET", "/v3/schedules/{id}/msg_ids", route { _, parameters, app in
            let id = try Self.scheduleID(parameters)
            guard let ids = try await schedules.messageIDs(appID: app.id, id: id) else { throw Self.notFound(id) }
            return jsonResponse(200, .object(["count": .int(Int64(ids.count)), "msgids": .array(ids.map(JSONValue.string))]))
        })
    }

    /// A schedule route: 8101 for bad credentials, 8100 for input the store refused, and
    /// JPush's schedule code 8200 (not 1000) for an internal error; a lost database stays
    /// 503 (1030).
    private func route(_ body: @escaping @Sendable (HTTPRequest, RouteParameters, AuthenticatedApp) async throws -> HTTPResponse)
        -> Router.Handler {
        context.familyHandler(failure: Self.authenticationFailed, translate: { error, logger in
            if let error = error as? JPushError { return error }
            let mapped = jpushError(for: error, logger: logger)
            switch mapped.status {
            case 400: return .invalidSchedule(mapped.message)  // input the store refused (NUL)
            case 500: return JPushError(status: 500, code: 8200, message: mapped.message)
            default: return mapped
            }
        }, body)
    }

    /// The body as JSON; a body that is not JSON is a schedule error (8100) too.
    static func body(_ request: HTTPRequest) throws(JPushError) -> JSONValue {
        do {
            return try JSONValue.parse(request.body)
        } catch {
            throw .invalidSchedule(error.message)
        }
    }

    /// The schedule's push, checked as `POST /v3/push` checks a push; its error becomes 8100
    /// and names the field under `push`.
    static func validatePush(_ push: JSONValue) throws(JPushError) {
        do {
            _ = try PushRequest.parse(Array(push.jsonText.utf8))
        } catch {
            throw .invalidSchedule("push: \(error.message)")
        }
    }

    /// `?page=n`, 1 when absent; a bad page is a schedule error (8100).
    static func page(_ query: [String: String]) throws(JPushError) -> Int {
        do {
            return try QueryParameters(query).integer("page", in: 1...1_000_000) ?? 1
        } catch {
            throw .invalidSchedule(error.message)
        }
    }

    /// The `{id}` path segment: a schedule_id is a UUID; anything else names no schedule.
    static func scheduleID(_ parameters: RouteParameters) throws(JPushError) -> String {
        let raw = parameters["id"] ?? ""
        guard let uuid = UUID(uuidString: raw) else { throw notFound(raw) }
        return uuid.uuidString.lowercased()
    }

    static func notFound(_ id: String) -> JPushError {
        JPushError(status: 404, code: 8104, message: "no schedule \(InputEcho.quoted(id)) in this app")
    }
}
