import Foundation
import RelayCore
import RelayStore

/// The dashboard's pages as HTML, from data already read (pure: tested without a server).
enum DashboardPages {
    static func login(error: String?) -> String {
        HTML.page(title: "Log in", body: """
            <div class="card" style="max-width:420px;margin:40px auto">
            <h1>Log in</h1>
            <p class="muted">Use the relay's admin token (PUSHRELAY_ADMIN_TOKEN, or the one in the data directory).</p>
            \(error.map { "<p class=\"error\">\(HTML.escape($0))</p>" } ?? "")
            <form method="post" action="/dashboard/login" class="row">
            <input type="password" name="token" placeholder="admin token" autocomplete="current-password" required autofocus style="flex:1">
            <button type="submit">Log in</button></form></div>
            """, csrf: nil)
    }

    struct Overview {
        var apps: [DashboardApp]
        var bars: [SVGChart.Bar]
        var failures: [String: Int]
        var messages: [MessageSummary]
        var now: Date
    }

    static func overview(_ data: Overview, csrf: String) -> String {
        let production = data.apps.reduce(0) { $0 + $1.production }
        let sandbox = data.apps.reduce(0) { $0 + $1.sandbox }
        let android = data.apps.reduce(0) { $0 + $1.android }
        let sentHour = data.bars.reduce(0) { $0 + $1.sent }
        let failedHour = data.bars.reduce(0) { $0 + $1.failed }
        let warnings = data.apps.flatMap { app in
            app.credentials(now: data.now).filter { $0.status.level != .ok }.map { (app, $0.environment, $0.status) }
        }
        var body = "<h1>Overview</h1><div class=\"grid\">"
        body += stat("apps", data.apps.count) + stat("iOS production devices", production) + stat("iOS sandbox devices", sandbox)
            + stat("Android devices", android)
        body += stat("sent, last hour", sentHour) + stat("not delivered, last hour", failedHour)
        body += "</div>"
        if !warnings.isEmpty {
            body += "<div class=\"card\"><h2>Credentials needing attention</h2><ul>"
            for (app, environment, status) in warnings {
                body += "<li><a href=\"/dashboard/apps/\(HTML.escape(app.key))\">\(HTML.escape(app.name))</a> (\(environment.rawValue)): <span class=\"\(status.level.rawValue)\">\(HTML.escape(status.text))</span></li>"
            }
            body += "</ul></div>"
        }
        body += chartCard(data.bars)
        body += "<div class=\"card\"><h2>Apps</h2><table><tr><th>App</th><th>App key</th><th class=\"n\">iOS production</th><th class=\"n\">iOS sandbox</th><th class=\"n\">Android</th><th>APNs credentials</th></tr>"
        for app in data.apps {
            body += "<tr><td><a href=\"/dashboard/apps/\(HTML.escape(app.key))\">\(HTML.escape(app.name))</a></td><td><code>\(HTML.escape(app.key))</code></td>"
            body += "<td class=\"n\">\(app.production)</td><td class=\"n\">\(app.sandbox)</td><td class=\"n\">\(app.android)</td><td>"
            body += app.credentials(now: data.now).map { "\($0.environment.rawValue): " + badge($0.status) }.joined(separator: "<br>")
            body += "</td></tr>"
        }
        body += "</table></div>"
        body += failuresCard(data.failures)
        body += messagesCard(data.messages, title: "Recent messages")
        body += testPushForm(apps: data.apps, selected: nil, csrf: csrf)
        return HTML.page(title: "Overview", body: body, csrf: csrf)
    }

    static func app(_ app: DashboardApp, bars: [SVGChart.Bar], failures: [String: Int], messages: [MessageSummary], now: Date,
                    webhook: AppWebhook? = nil, liveActivities: [LiveActivitySummary] = [], csrf: String) -> String {
        var body = "<h1>\(HTML.escape(app.name))</h1><div class=\"grid\">"
        body += stat("iOS production devices", app.production) + stat("iOS sandbox devices", app.sandbox)
            + stat("Android devices", app.android)
        // Counts only: the tokens themselves are in the admin device listing.
        for kind in PushTokenKind.allCases {
            if let count = app.pushTokens[kind.rawValue] { body += stat("\(kind.displayName) tokens", count) }
        }
        body += stat("sent, last hour", bars.reduce(0) { $0 + $1.sent }) + stat("not delivered, last hour", bars.reduce(0) { $0 + $1.failed })
        body += "</div><div class=\"card\"><table>"
        body += "<tr><th>App key</th><td><code>\(HTML.escape(app.key))</code></td></tr>"
        body += "<tr><th>Created</th><td>\(HTML.escape(app.createdAt))</td></tr>"
        for (environment, credential, status) in app.credentials(now: now) {
            body += "<tr><th>APNs credential, \(environment.rawValue)</th><td>" + badge(status)
            if let topic = credential?.topic { body += " <span class=\"muted\">topic \(HTML.escape(topic))</span>" }
            body += "</td></tr>"
        }
        body += "<tr><th>FCM credential</th><td>" + badge(app.fcmStatus)
        if let project = app.fcmProjectID { body += " <span class=\"muted\">project \(HTML.escape(project))</span>" }
        body += "</td></tr>"
        body += "</table></div>"
        body += chartCard(bars) + failuresCard(failures) + messagesCard(messages, title: "Messages")
        if let webhook { body += webhookCard(webhook) }
        if !liveActivities.isEmpty { body += liveActivitiesCard(liveActivities) }
        body += testPushForm(apps: [app], selected: app.key, csrf: csrf)
        return HTML.page(title: app.name, body: body, csrf: csrf)
    }

    /// A message with its funnel; the script keeps it live until the message is finished.
    static func message(_ funnel: MessageFunnel, csrf: String, nonce: String) -> String {
        let message = funnel.summary
        let id = message.counters.id.description
        let target = message.counters.target
        let state = message.counters.state.rawValue
        var body = "<h1>Message <code>\(HTML.escape(id))</code></h1>"
        body += "<div class=\"card\"><p><a href=\"/dashboard/apps/\(HTML.escape(message.appKey))\">\(HTML.escape(message.appName))</a>"
        body += " · \(HTML.escape(message.lane)) · \(HTML.escape(message.environment))"
        body += " · state <b id=\"state\">\(HTML.escape(state))</b></p>"
        if let alert = funnel.alert { body += "<p>“\(HTML.escape(alert))”</p>" }
        body += "<div class=\"bar big\"><div id=\"progress-bar\" style=\"width:\(percent(message.progress))%\"></div></div>"
        body += "<p id=\"progress-text\" class=\"muted\">\(Int(saturating: message.progress * 100, rounding: .down))% · \(HTML.escape(state))</p></div>"
        body += "<div class=\"card\"><h2>Delivery funnel</h2><table class=\"funnel\">"
        for step in MessageFunnel.Step.allCases {
            let count = funnel.count(step)
            let share = target > 0 ? Double(count) / Double(target) : 0
            let failedClass = step.isFailure ? " failed" : ""
            body += "<tr><td>\(label(step))</td><td class=\"n\" id=\"funnel-\(step.rawValue)\">\(count)</td>"
            body += "<td style=\"width:60%\"><div class=\"bar\(failedClass)\"><div id=\"bar-\(step.rawValue)\" style=\"width:\(percent(share))%\"></div></div></td></tr>"
        }
        body += "</table></div>"
        body += "<div class=\"card\"><h2>By platform</h2><table><tr><th></th><th>Target</th><th>Sent</th><th>Received</th><th>Opened</th></tr>"
        let counters = message.counters
        for (platform, name, counts) in [("ios", "iOS (APNs)", [counters.iosTarget, counters.iosSent, counters.iosReceived, counters.iosOpened]),
                                         ("android", "Android (FCM)", [counters.androidTarget, counters.androidSent, counters.androidReceived,
                                                                        counters.androidOpened])] {
            body += "<tr><th>\(name)</th>"
            for (column, count) in zip(Self.platformColumns, counts) { body += "<td class=\"n\" id=\"\(platform)-\(column)\">\(count)</td>" }
            body += "</tr>"
        }
        body += "</table></div>"
        body += failuresCard(funnel.failures, title: "Not delivered, by reason")
        body += "<div class=\"card\"><h2>Timing</h2><table>"
        for (label, value) in [("Accepted", counters.createdAt), ("First sent", counters.firstSentAt), ("Last sent", counters.lastSentAt),
                               ("Finished", counters.finishedAt), ("Duration (s)", TextCell.of(counters.durationSeconds)),
                               ("Throughput (sent/s)", TextCell.of(counters.throughputPerSecond)), ("Retries", String(counters.retries))] as [(String, String?)] {
            body += "<tr><th>\(label)</th><td>\(HTML.escape(value ?? TextCell.missing))</td></tr>"
        }
        body += "</table></div>"
        let finished = state == "done" || state == "withdrawn"
        return HTML.page(title: "Message \(id)", body: body, csrf: csrf, script: finished ? "document.body.dataset.final='true';" : liveScript(id),
                         nonce: nonce)
    }

    /// The counts per platform, as the admin answer's `platforms` names them.
    private static let platformColumns = ["target", "sent", "received", "opened"]

    private static func label(_ step: MessageFunnel.Step) -> String {
        switch step {
        case .target: "Target"
        case .sent: "Sent (accepted by APNs or FCM)"
        case .received: "Received (reported by the app)"
        case .opened: "Opened (reported by the app)"
        case .failed: "Failed"
        case .invalidated: "Tokens invalidated"
        case .expired: "Expired"
        case .withdrawn: "Withdrawn"
        case .pending: "Pending"
        }
    }

    static func error(_ text: String, csrf: String?) -> String {
        HTML.page(title: "Error", body: "<div class=\"card\"><p class=\"error\">\(HTML.escape(text))</p><p><a href=\"/dashboard\">Back to the overview</a></p></div>",
                  csrf: csrf)
    }

    /// Polls the message every second and moves the bars; once it is finished, reloads.
    private static func liveScript(_ id: String) -> String {
        """
        const steps=\(jsonList(MessageFunnel.Step.allCases.map(\.rawValue))),columns=\(jsonList(platformColumns));
        async function tick(){
          try{
            const r=await fetch("/dashboard/api/messages/\(id)",{credentials:"same-origin"});
            if(r.ok){
              const m=await r.json(),f=m.funnel;
              for(const s of steps){
                document.getElementById("funnel-"+s).textContent=f[s];
                document.getElementById("bar-"+s).style.width=(f.target?100*f[s]/f.target:0)+"%";
              }
              for(const p of ["ios","android"]){
                for(const c of columns){document.getElementById(p+"-"+c).textContent=m.platforms[p][c];}
              }
              document.getElementById("progress-bar").style.width=(100*m.progress)+"%";
              document.getElementById("progress-text").textContent=Math.floor(100*m.progress)+"% · "+m.state;
              document.getElementById("state").textContent=m.state;
              // Finished: the whole page again, failures by reason and timing included.
              if(m.state==="done"||m.state==="withdrawn"){location.reload();return;}
            }
          }catch(e){}
          setTimeout(tick,1000);
        }
        tick();
        """
    }

    /// Names (plain ASCII words) as a JavaScript array literal.
    private static func jsonList(_ names: [String]) -> String {
        "[" + names.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }

    private static func badge(_ status: CredentialStatus) -> String {
        "<span class=\"badge \(status.level.rawValue)\">\(HTML.escape(status.text))</span>"
    }

    private static func stat(_ label: String, _ value: Int) -> String {
        "<div class=\"stat\"><b>\(value)</b><span>\(HTML.escape(label))</span></div>"
    }

    private static func chartCard(_ bars: [SVGChart.Bar]) -> String {
        "<div class=\"card\"><h2>Sends per minute, last hour <span class=\"legend muted\"><i style=\"background:#2f7de1\"></i>sent<i style=\"background:#d9534f\"></i>not delivered</span></h2>"
            + SVGChart.bars(bars) + "</div>"
    }

    private static func failuresCard(_ failures: [String: Int], title: String = "Not delivered by reason, last 24 hours") -> String {
        var card = "<div class=\"card\"><h2>\(HTML.escape(title))</h2>"
        guard let peak = failures.values.max(), peak > 0 else { return card + "<p class=\"muted\">None.</p></div>" }
        card += "<table>"
        for (reason, count) in failures.sorted(by: { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }) {
            card += "<tr><td>\(HTML.escape(reason))</td><td class=\"n\">\(count)</td><td style=\"width:50%\"><div class=\"bar failed\"><div style=\"width:\(percent(Double(count) / Double(peak)))%\"></div></div></td></tr>"
        }
        return card + "</table></div>"
    }

    /// An app's webhook on its page: where events go, what waits, and the latest dead letters.
    struct AppWebhook {
        var metadata: WebhookMetadata
        var deadLetters: [WebhookDelivery]
    }

    private static func webhookCard(_ webhook: AppWebhook) -> String {
        let metadata = webhook.metadata
        var card = "<div class=\"card\"><h2>Webhook</h2><table>"
        card += "<tr><th>URL</th><td><code>\(HTML.escape(metadata.url))</code></td></tr>"
        card += "<tr><th>Events</th><td>\(HTML.escape(metadata.events.joined(separator: ", ")))</td></tr>"
        card += "<tr><th>Pending</th><td class=\"n\">\(metadata.pending)</td></tr><tr><th>Dead letters</th><td class=\"n\">\(metadata.dead)</td></tr></table>"
        guard !webhook.deadLetters.isEmpty else { return card + "</div>" }
        card += "<h2>Latest dead letters</h2><table><tr><th>Event</th><th>Created</th><th class=\"n\">Attempts</th><th>Last error</th></tr>"
        for letter in webhook.deadLetters {
            card += "<tr><td>\(HTML.escape(letter.event))</td><td>\(HTML.escape(letter.createdAt))</td><td class=\"n\">\(letter.attempts)</td>"
            card += "<td>\(HTML.escape(letter.lastError ?? ""))</td></tr>"
        }
        return card + "</table></div>"
    }

    /// The app's latest Live Activities and their sends (docs/live-activities.md, "Reports").
    private static func liveActivitiesCard(_ activities: [LiveActivitySummary]) -> String {
        var card = "<div class=\"card\"><h2>Live Activities</h2><table><tr><th>Activity</th><th>Attributes type</th>"
        card += "<th class=\"n\">Messages</th><th class=\"n\">Sent</th><th class=\"n\">Not delivered</th><th class=\"n\">Coalesced</th></tr>"
        for activity in activities {
            card += "<tr><td><code>\(HTML.escape(activity.activityID))</code></td><td>\(HTML.escape(activity.attributesType ?? ""))</td>"
            card += "<td class=\"n\">\(activity.messages)</td><td class=\"n\">\(activity.sent)</td><td class=\"n\">\(activity.failed)</td>"
            card += "<td class=\"n\">\(activity.coalesced)</td></tr>"
        }
        return card + "</table></div>"
    }

    private static func messagesCard(_ messages: [MessageSummary], title: String) -> String {
        var card = "<div class=\"card\"><h2>\(HTML.escape(title))</h2>"
        guard !messages.isEmpty else { return card + "<p class=\"muted\">No messages yet.</p></div>" }
        card += "<table><tr><th>msg_id</th><th>App</th><th>State</th><th>Progress</th><th class=\"n\">Target</th><th class=\"n\">Sent</th><th class=\"n\">Not delivered</th><th>Accepted</th></tr>"
        for message in messages {
            let id = HTML.escape(message.counters.id.description)
            card += "<tr><td><a data-msg=\"\(id)\" href=\"/dashboard/messages/\(id)\"><code>\(id)</code></a></td>"
            card += "<td>\(HTML.escape(message.appName))</td><td>\(HTML.escape(message.counters.state.rawValue))</td>"
            card += "<td><div class=\"bar\"><div style=\"width:\(percent(message.progress))%\"></div></div></td>"
            card += "<td class=\"n\">\(message.counters.target)</td><td class=\"n\">\(message.counters.sent)</td><td class=\"n\">\(message.notDelivered)</td>"
            card += "<td>\(HTML.escape(message.counters.createdAt))</td></tr>"
        }
        return card + "</table></div>"
    }

    private static func testPushForm(apps: [DashboardApp], selected: String?, csrf: String) -> String {
        guard !apps.isEmpty else { return "" }
        var form = "<div class=\"card\"><h2>Send a test push</h2><form method=\"post\" action=\"/dashboard/push\" class=\"row\">"
        form += "<input type=\"hidden\" name=\"csrf\" value=\"\(HTML.escape(csrf))\"><select name=\"app_key\">"
        for app in apps {
            form += "<option value=\"\(HTML.escape(app.key))\"\(app.key == selected ? " selected" : "")>\(HTML.escape(app.name))</option>"
        }
        form += "</select><select name=\"kind\"><option value=\"registration_id\">registration id</option><option value=\"alias\">alias</option></select>"
        form += "<input name=\"value\" placeholder=\"registration id or alias\" required>"
        form += "<input name=\"alert\" placeholder=\"alert text\" value=\"Test from the PushRelay dashboard\" required style=\"flex:1\">"
        form += "<select name=\"environment\"><option value=\"production\">production</option><option value=\"sandbox\">sandbox</option></select>"
        return form + "<button type=\"submit\">Send</button></form></div>"
    }

    private static func percent(_ fraction: Double) -> String {
        String(format: "%.1f", min(100, max(0, fraction * 100)))
    }
}

/// Values as table cells.
enum TextCell {
    /// What a cell shows for a value not known yet.
    static let missing = "—"

    /// A figure as people read it: "2" for 2.0, "0.3" for 0.3; nil while unknown.
    static func of(_ number: Double?) -> String? {
        number.map { NSNumber(value: $0).stringValue }
    }
}
