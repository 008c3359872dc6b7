import HTTPServer
import PushCore
import RelayCore
import RelayCrypto
import RelayStore
import WebhookClient

/// `/admin/v1/apps/{app_key}/webhook`: set, show and remove an app's webhook, list its
/// deliveries and retry its dead letters. A PUT issues a new signing secret, shown in its
/// answer only; the relay keeps it sealed, for the delivery workers to sign with.
struct WebhookAdminRoutes: Sendable {
    let context: RouteContext

    static func noWebhook(_ appKey: String) -> JPushError {
        JPushError(status: 404, code: 1008, message: "app \(InputEcho.quoted(appKey)) has no webhook (or does not exist)")
    }

    func register(in router: inout Router) {
        let webhooks = WebhookRepository(pool: context.dependencies.pool, box: context.dependencies.secretBox)

        router.add("PUT", "/admin/v1/apps/{app_key}/webhook", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let (url, events) = try Self.subscription(request.body)
            let secret = WebhookSignature.issueSecret()
            guard let stored = try await webhooks.put(appKey: appKey, url: url.text, events: events, secret: secret) else {
                throw AdminAppRoutes.appNotFound(appKey)
            }
            return try jsonResponse(200, encoding: IssuedSecret.Shown(record: stored, key: "secret", secret: secret))
        })

        router.add("GET", "/admin/v1/apps/{app_key}/webhook", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard let stored = try await webhooks.metadata(appKey: appKey) else { throw Self.noWebhook(appKey) }
            return try jsonResponse(200, encoding: stored)
        })

        router.add("DELETE", "/admin/v1/apps/{app_key}/webhook", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard try await webhooks.delete(appKey: appKey) else { throw Self.noWebhook(appKey) }
            return try jsonResponse(200, encoding: AppShapes.Deleted(appKey: appKey))
        })

        router.add("GET", "/admin/v1/apps/{app_key}/webhook/deliveries", context.adminHandler { request, parameters in
            let appKey = parameters["app_key"] ?? ""
            let query = QueryParameters(request.query)
            let listing = WebhookDeliveryListing(
                before: try query.integer("cursor", in: 1...Int64.max), state: try query.choice("state", WebhookDeliveryState.self),
                limit: try query.integer("limit", in: 1...WebhookDeliveryListing.maxLimit) ?? WebhookDeliveryListing.defaultLimit)
            guard try await webhooks.metadata(appKey: appKey) != nil else { throw Self.noWebhook(appKey) }
            let page = try await webhooks.deliveries(appKey: appKey, listing)
            return try jsonResponse(200, encoding: CursorPage(itemsKey: "deliveries", items: page.deliveries, next: page.next))
        })

        router.add("POST", "/admin/v1/apps/{app_key}/webhook/deliveries/retry", context.adminHandler { _, parameters in
            let appKey = parameters["app_key"] ?? ""
            guard try await webhooks.metadata(appKey: appKey) != nil else { throw Self.noWebhook(appKey) }
            return try jsonResponse(200, encoding: ["retried": try await webhooks.retryDead(appKey: appKey)])
        })
    }

    /// The PUT body: `{"url": …, "events": […]}`, every event a known type, none twice; no
    /// events is a webhook for callbacks only.
    static func subscription(_ body: [UInt8]) throws(JPushError) -> (WebhookURL, [WebhookEventType]) {
        let reader = try JSONObjectReader(body)
        try reader.rejectUnknownKeys(allowed: ["url", "events"])
        let text = try reader.string("url")
        let url: WebhookURL
        do {
            url = try WebhookURL(parsing: text)
        } catch {
            throw JPushError.illegalValue(error.description)
        }
        // None: the webhook only signs the pushes' callbacks and is their default URL.
        guard let names = try reader.optionalStringArray("events") else {
            throw JPushError.illegalValue("events must be an array (empty: callbacks only) of: " + WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var events: [WebhookEventType] = []
        for name in names {
            guard let event = WebhookEventType(rawValue: name) else {
                throw JPushError.illegalValue("unknown event \(InputEcho.quoted(name)); events are: "
                                              + WebhookEventType.allCases.map(\.rawValue).joined(separator: ", "))
            }
            guard !events.contains(event) else { throw JPushError.illegalValue("event \(InputEcho.quoted(name)) is listed twice") }
            events.append(event)
        }
        return (url, events)
    }
}
