import Foundation
import PushCore
import PushPipeline
@testable import RelayAPI
import RelayStore
import Testing

/// The web dashboard: its login and CSRF rules over plain HTTP, and the real pages in
/// headless Chromium against a running relay, with a screenshot under .build/test-output.
@Suite(.serialized) struct DashboardTests {
    static let outputDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/test-output")

    @Test func loginCookieAndCSRFRules() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp("Dashboard HTTP")
            let tokens = try await relay.insertDevices(app, count: 1, prefix: "d9")
            let rid = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE token = $1",
                                                 [tokens[0]])[0].string("rid")
            let http = Curl(relay)

            let anonymous = try await http.call(["/dashboard"])
            #expect(anonymous.status == 303 && anonymous.header("location") == "/dashboard/login")
            #expect(try await http.call(["/dashboard/api/messages/1"]).status == 401)
            #expect(try await http.call(["/dashboard/login", "--data-urlencode", "token=wrong"]).status == 401)

            let login = try await http.call(["/dashboard/login", "--data-urlencode", "token=\(PipelineHarness.adminToken)"])
            #expect(login.status == 303 && login.header("location") == "/dashboard")
            let setCookie = try #require(login.header("set-cookie"))
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/dashboard"))
            let cookie = try #require(setCookie.split(separator: ";").first.map(String.init))

            let overview = try await http.call(["/dashboard", "-H", "Cookie: \(cookie)"])
            #expect(overview.status == 200)
            #expect(overview.header("content-type")?.hasPrefix("text/html") == true)
            #expect(overview.header("content-security-policy")?.contains("frame-ancestors 'none'") == true)
            #expect(overview.body.contains("Dashboard HTTP") && overview.body.contains("<svg"))
            let csrf = try #require(overview.body.firstMatch(of: try Regex(#"name="csrf" value="([0-9a-f]+)""#))?.output[1].substring)
            let tampered = try await http.call(["/dashboard", "-H", "Cookie: \(cookie.dropLast())\(cookie.hasSuffix("0") ? "1" : "0")"])
            #expect(tampered.status == 303, "a cookie whose MAC does not match is no session")

            let form = ["--data-urlencode", "app_key=\(app.key)", "--data-urlencode", "kind=registration_id",
                        "--data-urlencode", "value=\(rid)", "--data-urlencode", "alert=dashboard test push"]
            #expect(try await http.call(["/dashboard/push", "-H", "Cookie: \(cookie)"] + form).status == 403, "no CSRF token")
            #expect(try await http.call(["/dashboard/push", "-H", "Cookie: \(cookie)", "-H", "Origin: http://evil.example",
                                         "--data-urlencode", "csrf=\(csrf)"] + form).status == 403, "another origin")
            #expect(try await http.call(["/dashboard/push", "--data-urlencode", "csrf=\(csrf)"] + form).status == 303, "no session: to the login")
            let sent = try await http.call(["/dashboard/push", "-H", "Cookie: \(cookie)", "--data-urlencode", "csrf=\(csrf)"] + form)
            #expect(sent.status == 303)
            let location = try #require(sent.header("location"))
            #expect(location.hasPrefix("/dashboard/messages/"))
            let msgID = try #require(Int64(location.dropFirst("/dashboard/messages/".count)))
            try await relay.waitUntilFinished(msgID)
            #expect(relay.simulator.deliveries(token: tokens[0]).first?.alert == "dashboard test push")

            let live = try await http.call(["/dashboard/api/messages/\(msgID)", "-H", "Cookie: \(cookie)"])
            #expect(live.status == 200 && live.body.contains("\"sent\":1"))
            let logout = try await http.call(["/dashboard/logout", "-H", "Cookie: \(cookie)", "--data-urlencode", "csrf=\(csrf)"])
            #expect(logout.status == 303 && logout.header("set-cookie")?.contains("Max-Age=0") == true)
        }
    }

    /// Logs in through the login form, finds a message on the overview, opens it while it
    /// fans out and watches the live funnel reach the simulator's numbers.
    @Test(.enabled(if: ChromiumPage.executable() != nil, "needs Debian's chromium"))
    func chromiumLogsInAndFollowsAMessage() async throws {
        try await PipelineHarness.with(simulate: { $0.latencyMilliseconds = 700 }, tune: {
            $0.slots = 1
            $0.targetedSlots = 1
            $0.chunkSize = 10
        }) { relay in
            let app = try await relay.createApp("Trading app")
            try await relay.insertDevices(app, count: 100, prefix: "e1")
            try await relay.insertDevices(app, count: 3, prefix: "dead")
            let rids = try await relay.pool.query("SELECT replace(registration_id::text, '-', '') AS rid FROM devices WHERE app_id = $1",
                                                  [app.id]).map { try $0.string("rid") }
            let msgID = try await relay.accepted(app, ["platform": "ios", "audience": ["registration_id": rids],
                                                       "notification": ["alert": "Your trade was filled"]])
            let base = "http://127.0.0.1:\(relay.port)"

            let page = try ChromiumPage(executable: try #require(ChromiumPage.executable()), scratch: relay.directory)
            do {
                try await page.open()
                try await page.navigate(base + "/dashboard")
                try await page.waitFor("location.pathname === '/dashboard/login' && document.readyState === 'complete'")
                _ = try await page.evaluate("""
                    document.querySelector('input[name=token]').value = '\(PipelineHarness.adminToken)';
                    document.querySelector('form[action="/dashboard/login"]').submit(); true
                    """)
                try await page.waitFor("location.pathname === '/dashboard' && document.readyState === 'complete' && !!document.querySelector('a[data-msg=\"\(msgID)\"]')")
                let overview = try await page.evaluate("document.body.innerText") as? String ?? ""
                #expect(overview.contains("Trading app") && overview.lowercased().contains("production devices"))
                try await page.screenshot(to: Self.outputDirectory.appendingPathComponent("dashboard-overview.png"))

                _ = try await page.evaluate("document.querySelector('a[data-msg=\"\(msgID)\"]').click(); true")
                try await page.waitFor("location.pathname === '/dashboard/messages/\(msgID)' && document.readyState === 'complete'")
                let firstSeen = try await page.evaluate("document.getElementById('funnel-sent').textContent") as? String
                #expect(try await page.evaluate("document.body.dataset.final") as? String != "true", "opened while fanning out")
                try await page.waitFor("document.body.dataset.final === 'true'", timeout: .seconds(60))

                let simulated = relay.simulator.deliveries().filter { $0.msgID == msgID }.count
                #expect(simulated == 100)
                #expect(Int(firstSeen ?? "") ?? 100 < 100, "the page was rendered before the fan-out ended")
                #expect(try await page.evaluate("document.getElementById('funnel-target').textContent") as? String == "103")
                #expect(try await page.evaluate("document.getElementById('funnel-sent').textContent") as? String == String(simulated))
                #expect(try await page.evaluate("document.getElementById('funnel-invalidated').textContent") as? String == "3")
                #expect(try await page.evaluate("document.getElementById('funnel-pending').textContent") as? String == "0")
                #expect((try await page.evaluate("document.getElementById('progress-text').textContent") as? String)?.hasPrefix("100% · done") == true)
                #expect((try await page.evaluate("document.body.innerText") as? String)?.contains("Unregistered") == true)
                try await page.screenshot(to: Self.outputDirectory.appendingPathComponent("dashboard.png"))
            } catch {
                await page.close()
                throw error
            }
            await page.close()
        }
    }
}

/// The dashboard's pure pieces.
@Suite struct DashboardUnitTests {
    let key = DashboardSession.Key(adminToken: "admin-token")
    let now = Date(timeIntervalSince1970: 1_796_000_000)

    @Test func sessionCookiesAreSignedAndExpire() {
        let session = DashboardSession.issue(now: now, nonce: "00ff")
        let value = session.cookieValue(key)
        #expect(DashboardSession.verify(value, key: key, now: now) == session)
        #expect(DashboardSession.verify(value, key: DashboardSession.Key(adminToken: "other"), now: now) == nil, "another admin token")
        #expect(DashboardSession.verify(value, key: key, now: now.addingTimeInterval(DashboardSession.lifetime + 1)) == nil, "expired")
        let longer = value.replacingOccurrences(of: "v1.\(session.expiresAt).", with: "v1.\(session.expiresAt + 3600).")
        #expect(DashboardSession.verify(longer, key: key, now: now) == nil, "an extended expiry breaks the MAC")
        #expect(session.checkCSRF(session.csrfToken(key), key: key))
        #expect(!session.checkCSRF(DashboardSession.issue(now: now, nonce: "0100").csrfToken(key), key: key))
        #expect(DashboardSession.cookie(in: "a=b; pushrelay_session=xyz; c=d") == "xyz")
    }

    @Test func hmacMatchesRFC4231() {
        // RFC 4231 test case 2.
        let mac = HMAC.sha256(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))
        #expect(DashboardSession.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func credentialStatusWarnsBeforeACertificateExpires() {
        let day: TimeInterval = 86400
        #expect(CredentialStatus.of(auth: nil, certificateExpiresAt: nil, brokenReason: nil, now: now).level == .warning)
        #expect(CredentialStatus.of(auth: "token", certificateExpiresAt: nil, brokenReason: nil, now: now).level == .ok)
        #expect(CredentialStatus.of(auth: "token", certificateExpiresAt: nil, brokenReason: "InvalidProviderToken", now: now).level == .bad)
        #expect(CredentialStatus.of(auth: "certificate", certificateExpiresAt: now.addingTimeInterval(90 * day), brokenReason: nil, now: now).level == .ok)
        let soon = CredentialStatus.of(auth: "certificate", certificateExpiresAt: now.addingTimeInterval(12.5 * day), brokenReason: nil, now: now)
        #expect(soon.level == .warning && soon.text.hasPrefix("certificate expires in 12 days"))
        #expect(CredentialStatus.of(auth: "certificate", certificateExpiresAt: now.addingTimeInterval(-day), brokenReason: nil, now: now).level == .bad)
    }

    @Test func eachEnvironmentsCredentialIsShown() {
        let app = DashboardApp(
            key: "0123456789abcdef01234567", name: "Envs", createdAt: "2026-12-01T00:00:00Z",
            sandboxCredential: .init(auth: "token", topic: "com.example.dev", certificateExpiresAt: nil, brokenReason: "InvalidProviderToken"),
            productionCredential: .init(auth: "certificate", topic: "com.example.store",
                                        certificateExpiresAt: now.addingTimeInterval(90 * 86400), brokenReason: nil),
            production: 3, sandbox: 2)
        #expect(app.credentials(now: now).map { [$0.environment.rawValue, $0.status.level.rawValue] } == [["production", "ok"], ["sandbox", "bad"]])
        let page = DashboardPages.app(app, bars: [], failures: [:], messages: [], now: now, csrf: "c")
        #expect(page.contains("APNs credential, production</th><td><span class=\"badge ok\">certificate until"), "\(page)")
        #expect(page.contains("topic com.example.store") && page.contains("topic com.example.dev"))
        #expect(page.contains("APNs credential, sandbox</th><td><span class=\"badge bad\">refused by APNs (InvalidProviderToken)"))
        let overview = DashboardPages.overview(.init(apps: [app], bars: [], failures: [:], messages: [], now: now), csrf: "c")
        #expect(overview.contains("Envs</a> (sandbox): <span class=\"bad\">refused by APNs"), "only the sandbox needs attention")
        #expect(!overview.contains("(production): "))
        #expect(overview.contains("production: <span class=\"badge ok\">") && overview.contains("sandbox: <span class=\"badge bad\">"))
    }

    @Test func theFCMCredentialAndAndroidDevicesAreShown() {
        func app(android: Int, project: String?, broken: String?) -> DashboardApp {
            DashboardApp(key: "0123456789abcdef01234567", name: "Droid", createdAt: "2026-12-01T00:00:00Z", sandboxCredential: nil,
                         productionCredential: nil, production: 1, sandbox: 0, android: android, fcmProjectID: project, fcmBrokenReason: broken)
        }
        #expect(app(android: 0, project: nil, broken: nil).fcmStatus.level == .ok, "no Android devices: nothing to warn about")
        #expect(app(android: 2, project: nil, broken: nil).fcmStatus.level == .warning)
        #expect(app(android: 2, project: "shop", broken: "UNAUTHENTICATED").fcmStatus.level == .bad)
        let page = DashboardPages.app(app(android: 2, project: "shop", broken: nil), bars: [], failures: [:], messages: [], now: now, csrf: "c")
        #expect(page.contains("FCM credential</th><td><span class=\"badge ok\">service account") && page.contains("project shop"))
        #expect(page.contains("Android devices"))
    }

    @Test func pagesEscapeWhatTheyShow() {
        #expect(HTML.escape("<b a=\"1\">&'") == "&lt;b a=&quot;1&quot;&gt;&amp;&#39;")
        let counters = MessageCounters(id: MessageID(rawValue: 1)!, state: .done, target: 2, sent: 1, failed: 0, invalidated: 0, expired: 0,
                                       retries: 0, createdAt: "2026-12-01T00:00:00Z", firstSentAt: nil, lastSentAt: nil, finishedAt: nil,
                                       durationSeconds: nil)
        let summary = MessageSummary(counters: counters, appKey: "0123456789abcdef01234567", appName: "<script>alert(1)</script>",
                                     lane: "normal", environment: "production")
        let page = DashboardPages.message(MessageFunnel(summary: summary, failures: ["<x>": 1], alert: "a<b"), csrf: "c", nonce: "n")
        #expect(!page.contains("<script>alert(1)") && page.contains("&lt;script&gt;") && page.contains("&lt;x&gt;"))
        #expect(FormBody.parse(Array("a=1+2&b=%26%3D&c".utf8)) == ["a": "1 2", "b": "&=", "c": ""])
    }

    @Test func chartDrawsABarPerNonEmptyBucket() {
        let svg = SVGChart.bars([.init(label: "09:00", sent: 10, failed: 0), .init(label: "09:01", sent: 0, failed: 0),
                                 .init(label: "09:02", sent: 5, failed: 5)])
        #expect(svg.components(separatedBy: "class=\"sent\"").count - 1 == 2)
        #expect(svg.components(separatedBy: "class=\"failed\"").count - 1 == 1)
        #expect(svg.contains(">10</text>"), "the peak is on the axis")
    }
}

/// HTTP over curl, to see redirects and headers exactly as sent.
struct Curl {
    struct Reply {
        var status: Int
        var headers: [(String, String)]
        var body: String
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name }?.1 }
    }

    let base: String
    let scratch: URL

    init(_ relay: PipelineHarness) {
        base = "http://127.0.0.1:\(relay.port)"
        scratch = relay.directory
    }

    /// `arguments[0]` is the path; `--data-urlencode` makes it a POST.
    func call(_ arguments: [String]) async throws -> Reply {
        let result = try await runTool(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-i", base + arguments[0]] + arguments.dropFirst(),
                                       scratch: scratch)
        guard result.status == 0 else { throw HarnessError("curl exited \(result.status): \(result.stderr)") }
        let parts = result.stdout.components(separatedBy: "\r\n\r\n")
        let head = parts[0].components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Reply(status: status, headers: headers, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}
