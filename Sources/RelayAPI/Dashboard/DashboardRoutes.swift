import Foundation
import HTTPServer
import PushCore
import RelayCore
import RelayCrypto
import RelayStore

/// `/dashboard`: the web dashboard, server-rendered HTML with a little script, behind a
/// login with the admin token. Pages answer 303 to the login page without a session;
/// state-changing forms (test push, logout) need the session's CSRF token and, when the
/// browser sends one, an `Origin` of this host. A session is a signed cookie whose row in
/// `dashboard_sessions` is still there: logout deletes it, and a new admin token changes
/// the signing key, so either ends the session on every node. Login attempts count against
/// the admin token's failure limit (`AuthenticationGate`).
struct DashboardRoutes: Sendable {
    let context: RouteContext

    func register(in router: inout Router) {
        let servesTLS = context.dependencies.servesTLS
        let key = DashboardSession.Key(adminToken: context.dependencies.adminToken)
        let sessions = DashboardSessionStore(pool: context.dependencies.pool)
        let gate = context.authenticationGate
        let adminToken = Array(context.dependencies.adminToken.utf8)
        let reports = AdminReportRepository(pool: context.dependencies.pool)
        let charts = DashboardCharts(reports: reports)
        let pool = context.dependencies.pool
        let apps = context.apps
        let webhooks = WebhookRepository(pool: context.dependencies.pool, box: context.dependencies.secretBox)
        let liveActivities = LiveActivityRepository(pool: context.dependencies.pool)
        let messages = context.messages
        let context = context

        router.add("GET", "/dashboard/login", page { request, _ in
            if try await Self.session(request, key: key, sessions: sessions) != nil { return Self.redirect("/dashboard") }
            return Self.html(200, DashboardPages.login(error: nil))
        })

        router.add("POST", "/dashboard/login", page { request, _ in
            let attempt = gate.attempt(request, as: .admin)
            if let refused = gate.refusal(attempt) {
                var response = Self.html(429, DashboardPages.login(error: "Too many wrong tokens from this address; try again in \(refused.resetSeconds) s."))
                response.headers.add(name: "Retry-After", value: String(refused.resetSeconds))
                return response
            }
            let token = FormBody.parse(request.body)["token"] ?? ""
            guard Digest.constantTimeEqual(Array(token.utf8), adminToken) else {
                await gate.tokenFailed(attempt)
                return Self.html(401, DashboardPages.login(error: "That is not the admin token."))
            }
            let session = DashboardSession.issue(now: Date())
            try await sessions.open(id: session.id, expiresAt: session.expiresAt)
            var response = Self.redirect("/dashboard")
            let secure = servesTLS || request.headers["x-forwarded-proto"]?.lowercased() == "https" ? "; Secure" : ""
            response.headers.add(name: "Set-Cookie", value: "\(DashboardSession.cookieName)=\(session.cookieValue(key)); Path=/dashboard; "
                                 + "HttpOnly; SameSite=Strict; Max-Age=\(Int(DashboardSession.lifetime))\(secure)")
            return response
        })

        router.add("POST", "/dashboard/logout", loggedIn(key, changesState: true) { _, _, session in
            try await sessions.close(id: session.id)
            var response = Self.redirect("/dashboard/login")
            response.headers.add(name: "Set-Cookie", value: "\(DashboardSession.cookieName)=; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=0")
            return response
        })

        router.add("GET", "/dashboard", loggedIn(key) { _, _, session in
            let now = Date()
            async let appRows = DashboardApp.read(pool: pool)
            async let hour = charts.lastHour(appKey: nil, now: now)
            async let failures = charts.failuresLastDay(appKey: nil, now: now)
            async let recent = reports.messages(MessageListing(limit: 15), appID: nil)
            let overview = DashboardPages.Overview(apps: try await appRows, bars: try await hour, failures: try await failures,
                                                   messages: try await recent.messages, now: now)
            return Self.html(200, DashboardPages.overview(overview, csrf: session.csrfToken(key)))
        })

        router.add("GET", "/dashboard/apps/{app_key}", loggedIn(key) { _, parameters, session in
            let appKey = parameters["app_key"] ?? ""
            guard let app = try await DashboardApp.read(key: appKey, pool: pool).first else {
                return Self.html(404, DashboardPages.error("No app with app key \(appKey).", csrf: session.csrfToken(key)))
            }
            let now = Date()
            let hour = try await charts.lastHour(appKey: appKey, now: now)
            let failures = try await charts.failuresLastDay(appKey: appKey, now: now)
            let recent = try await reports.messages(MessageListing(appKey: appKey, limit: 25), apps: apps)
            var webhook: DashboardPages.AppWebhook?
            if let metadata = try await webhooks.metadata(appKey: appKey) {
                let dead = metadata.dead == 0 ? [] : try await webhooks.deliveries(appKey: appKey, WebhookDeliveryListing(state: .dead, limit: 10))
                    .deliveries
                webhook = DashboardPages.AppWebhook(metadata: metadata, deadLetters: dead)
            }
            let activities = try await liveActivities.recent(appKey: appKey)
            return Self.html(200, DashboardPages.app(app, bars: hour, failures: failures, messages: recent.messages, now: now,
                                                     webhook: webhook, liveActivities: activities, csrf: session.csrfToken(key)))
        })

        router.add("GET", "/dashboard/messages/{msg_id}", loggedIn(key) { _, parameters, session in
            let raw = parameters["msg_id"] ?? ""
            guard let id = MessageID(raw), let message = try await reports.funnel(id) else {
                return Self.html(404, DashboardPages.error("No message \(raw).", csrf: session.csrfToken(key)))
            }
            let nonce = SecureRandom.hex(16)
            return Self.html(200, DashboardPages.message(message, csrf: session.csrfToken(key), nonce: nonce), nonce: nonce)
        })

        router.add("GET", "/dashboard/api/messages/{msg_id}", handler(context.logger) { request, parameters in
            guard try await Self.session(request, key: key, sessions: sessions) != nil else {
                throw JPushError.authenticationFailed("log in to the dashboard first")
            }
            let raw = parameters["msg_id"] ?? ""
            guard let id = MessageID(raw), let message = try await reports.funnel(id) else {
                throw JPushError(status: 404, code: 1008, message: "no message \(raw)")
            }
            var response = try jsonResponse(200, encoding: message)
            response.headers.add(name: "Cache-Control", value: "no-store")
            return response
        })

        router.add("POST", "/dashboard/push", loggedIn(key, changesState: true) { request, _, session in
            let form = FormBody.parse(request.body)
            let appKey = form["app_key"] ?? ""
            let kind = form["kind"] == "alias" ? "alias" : "registration_id"
            let value = (form["value"] ?? "").trimmingCharacters(in: .whitespaces)
            guard let appID = try await apps.id(appKey: appKey) else {
                return Self.html(404, DashboardPages.error("No app with app key \(appKey).", csrf: session.csrfToken(key)))
            }
            let bytes = CanonicalJSON.bytes(.object([
                "platform": .string("ios"), "audience": .object([kind: .array([.string(value)])]),
                "notification": .object(["ios": .object(["alert": .string(form["alert"] ?? ""), "sound": .string("default")])]),
                "options": .object(["apns_production": .bool(form["environment"] != "sandbox")]),
            ]))
            do {
                let accepted = try await messages.accept(appID: appID, request: try PushRequest.parse(bytes), body: bytes)
                context.countAccepted(accepted, appKey: appKey)
                return Self.redirect("/dashboard/messages/\(accepted.msgID)")
            } catch let error as JPushError {
                return Self.html(error.status, DashboardPages.error("The push was refused: \(error.message)", csrf: session.csrfToken(key)))
            }
        })
    }

    // MARK: Helpers

    /// A page handler: errors become an error page rather than JSON.
    private func page(_ body: @escaping @Sendable (HTTPRequest, RouteParameters) async throws -> HTTPResponse) -> Router.Handler {
        let logger = context.logger
        return { request, parameters in
            do {
                return try await body(request, parameters)
            } catch {
                let mapped = jpushError(for: error, logger: logger.with(["request_id": request.requestID]))
                return Self.html(mapped.status, DashboardPages.error(mapped.message, csrf: nil))
            }
        }
    }

    /// A page for a logged-in admin; `changesState` also demands the CSRF token and a
    /// same-origin `Origin`.
    private func loggedIn(_ key: DashboardSession.Key, changesState: Bool = false,
                          _ body: @escaping @Sendable (HTTPRequest, RouteParameters, DashboardSession) async throws -> HTTPResponse) -> Router.Handler {
        let sessions = DashboardSessionStore(pool: context.dependencies.pool)
        return page { request, parameters in
            guard let session = try await Self.session(request, key: key, sessions: sessions) else { return Self.redirect("/dashboard/login") }
            if changesState {
                guard Self.sameOrigin(request), session.checkCSRF(FormBody.parse(request.body)["csrf"], key: key) else {
                    return Self.html(403, DashboardPages.error("This form has expired or did not come from this dashboard; reload the page and try again.",
                                                           csrf: session.csrfToken(key)))
                }
            }
            return try await body(request, parameters, session)
        }
    }

    /// The request's session: a cookie with a good MAC, not expired, not logged out.
    static func session(_ request: HTTPRequest, key: DashboardSession.Key, sessions: DashboardSessionStore) async throws -> DashboardSession? {
        guard let session = DashboardSession.cookie(in: request.headers["cookie"]).flatMap({ DashboardSession.verify($0, key: key, now: Date()) }),
              try await sessions.isOpen(id: session.id) else { return nil }
        return session
    }

    /// No `Origin` (older browsers, curl), or one naming this host.
    static func sameOrigin(_ request: HTTPRequest) -> Bool {
        guard let origin = request.headers["origin"] else { return true }
        guard let host = request.headers["host"] else { return false }
        return origin == "http://\(host)" || origin == "https://\(host)"
    }

    static func redirect(_ location: String) -> HTTPResponse {
        HTTPResponse(status: 303, headers: ["Location": location, "Cache-Control": "no-store"])
    }

    static func html(_ status: Int, _ text: String, nonce: String? = nil) -> HTTPResponse {
        let script = nonce.map { "'nonce-\($0)'" } ?? "'none'"
        return HTTPResponse(status: status, headers: [
            "Content-Type": "text/html; charset=utf-8",
            "Cache-Control": "no-store",
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; script-src \(script); "
                + "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin",
        ], body: Array(text.utf8))
    }
}
