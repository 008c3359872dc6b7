import Foundation
import HTTPServer
import PostgresStore
import RelayCore
import RelayStore

/// `/admin/v1/groups` (admin token): make, list and delete groups of apps, rotate a group's
/// secret, and list a group's pushes with each app's msg_id and counters.
struct AdminGroupRoutes: Sendable {
    let context: RouteContext

    static let defaultPageSize = 20
    static let maxPageSize = 100

    static func groupNotFound(_ groupKey: String) -> JPushError {
        JPushError(status: 404, code: 1008, message: "no group with group_key \"\(groupKey.prefix(64))\"")
    }

    func register(in router: inout Router) {
        let groups = GroupRepository(pool: context.dependencies.pool)
        let lookup = GroupPushLookup(pool: context.dependencies.pool)

        router.add("POST", "/admin/v1/groups", context.adminHandler { request, _ in
            let body = try JSONObjectReader(request.body)
            try body.rejectUnknownKeys(allowed: ["name", "app_keys"])
            let name = try body.string("name").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, name.utf8.count <= 255 else { throw JPushError.illegalValue("name must be 1 to 255 bytes of text") }
            var appKeys: [String] = []
            if case .array(let items)? = body.fields["app_keys"] {
                for item in items {
                    guard case .string(let key) = item else { throw JPushError.illegalValue("app_keys must be a list of app keys") }
                    if !appKeys.contains(key) { appKeys.append(key) }
                }
            }
            guard !appKeys.isEmpty, appKeys.count <= 100, appKeys.allSatisfy(AppKey.isWellFormed) else {
                throw JPushError.illegalValue("app_keys must list 1 to 100 app keys")
            }
            let issued = IssuedSecret.issue()
            let record = try await groups.create(groupKey: AppKey.generate(), name: name, secretHash: issued.hash, appKeys: appKeys)
            return try jsonResponse(201, encoding: issued.answer(record, key: "group_secret"))
        })

        router.add("GET", "/admin/v1/groups", context.adminHandler { _, _ in
            try jsonResponse(200, encoding: ["groups": try await groups.list()])
        })

        router.add("DELETE", "/admin/v1/groups/{group_key}", context.adminHandler { _, parameters in
            let groupKey = parameters["group_key"] ?? ""
            guard try await groups.delete(groupKey: groupKey) else { throw Self.groupNotFound(groupKey) }
            return try jsonResponse(200, encoding: GroupShapes.Deleted(groupKey: groupKey))
        })

        router.add("POST", "/admin/v1/groups/{group_key}/secret", context.adminHandler { _, parameters in
            let groupKey = parameters["group_key"] ?? ""
            let issued = IssuedSecret.issue()
            guard let record = try await groups.replaceSecretHash(groupKey: groupKey, secretHash: issued.hash) else {
                throw Self.groupNotFound(groupKey)
            }
            return try jsonResponse(200, encoding: issued.answer(record, key: "group_secret"))
        })

        router.add("GET", "/admin/v1/groups/{group_key}/messages", context.adminHandler { request, parameters in
            let groupKey = parameters["group_key"] ?? ""
            let (before, limit) = try Self.page(request.query)
            guard AppKey.isWellFormed(groupKey), let (_, group) = try await groups.find(groupKey: groupKey) else {
                throw Self.groupNotFound(groupKey)
            }
            let page = try await lookup.page(groupID: group.id, before: before, limit: limit)
            return try jsonResponse(200, encoding: GroupShapes.PushPage(groupKey: groupKey, pushes: page.pushes.map(GroupShapes.Push.init),
                                                                         next: page.next))
        })
    }

    /// `cursor` (the `next_cursor` of the previous page) and `limit` (1 to 100, 20 if absent).
    static func page(_ query: [String: String]) throws(JPushError) -> (before: Int64?, limit: Int) {
        let query = QueryParameters(query)
        return (try query.integer("cursor", in: 1...Int64.max), try query.integer("limit", in: 1...maxPageSize) ?? defaultPageSize)
    }
}
