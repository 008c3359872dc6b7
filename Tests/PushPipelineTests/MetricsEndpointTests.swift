import Foundation
import RelayCore
import Testing

/// `GET /metrics` on a running relay: Prometheus text that parses, every family typed,
/// counters that never go down, and numbers that move when a push is sent.
@Suite(.serialized) struct MetricsEndpointTests {
    @Test func metricsParseStayMonotonicAndMoveWithAPush() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp("metrics app")
            try await relay.insertDevices(app, count: 12, prefix: "c1")
            try await relay.insertDevices(app, count: 2, prefix: "dead")
            let before = try await scrape(relay)
            #expect(before.types[RelayMetrics.queueChunks] == "gauge")
            #expect(before.value(RelayMetrics.queueChunks, ["lane": "broadcast", "state": "ready"]) != nil)
            #expect(before.value(RelayMetrics.dbPoolConnections, ["state": "busy"]) != nil)
            #expect(before.value(RelayMetrics.apnsClients, [:]) != nil, "the worker's collector is read")

            let id = try await relay.accepted(app, ["platform": "ios", "audience": "all", "notification": ["alert": "metered"]])
            try await relay.waitUntilFinished(id)
            let after = try await scrape(relay)

            for (series, value) in before.samples where before.types[series.family] == "counter" {
                #expect((after.samples[series] ?? -1) >= value, "\(series) went down")
            }
            let appLabel = ["app_key": app.key]
            #expect(after.delta(from: before, RelayMetrics.pushesAccepted, appLabel) == 1)
            #expect(after.delta(from: before, RelayMetrics.apnsResponses, ["app_key": app.key, "status": "200", "reason": ""]) == 12)
            #expect(after.delta(from: before, RelayMetrics.apnsResponses, ["app_key": app.key, "status": "410", "reason": "Unregistered"]) == 2)
            #expect(after.delta(from: before, RelayMetrics.deliveries, ["app_key": app.key, "outcome": "sent"]) == 12)
            #expect(after.delta(from: before, RelayMetrics.tokensInvalidated, appLabel) == 2)
            #expect(after.delta(from: before, RelayMetrics.httpRequests, ["method": "POST", "route": "/v3/push", "status": "200"]) == 1)
            #expect(after.delta(from: before, RelayMetrics.httpRequests, ["method": "GET", "route": "/metrics", "status": "200"]) == 1)
            #expect(after.delta(from: before, RelayMetrics.httpDuration + "_count", ["method": "POST", "route": "/v3/push"]) == 1)
            #expect((after.value(RelayMetrics.apnsConnections, [:]) ?? 0) >= 1)
        }
    }

    /// One scrape, parsed.
    struct Scrape {
        struct Series: Hashable, CustomStringConvertible {
            var name: String
            var labels: [String: String]
            /// The family a sample belongs to (a histogram's `_bucket`, `_sum`, `_count` are its own).
            var family: String
            var description: String { "\(name)\(labels)" }
        }

        var types: [String: String] = [:]
        var samples: [Series: Double] = [:]

        func value(_ name: String, _ labels: [String: String]) -> Double? {
            samples.first { $0.key.name == name && $0.key.labels == labels }?.value
        }

        func delta(from earlier: Scrape, _ name: String, _ labels: [String: String]) -> Double {
            (value(name, labels) ?? 0) - (earlier.value(name, labels) ?? 0)
        }
    }

    func scrape(_ relay: PipelineHarness) async throws -> Scrape {
        let reply = try await relay.request("GET", "/metrics")
        #expect(reply.status == 200)
        return try Self.parse(reply.text)
    }

    /// A strict reader of the text format: every sample must follow its family's `# TYPE`.
    static func parse(_ text: String) throws -> Scrape {
        var scrape = Scrape()
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4, ["counter", "gauge", "histogram"].contains(parts[3]) else { throw HarnessError("bad TYPE: \(line)") }
                guard scrape.types[String(parts[2])] == nil else { throw HarnessError("family typed twice: \(line)") }
                scrape.types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("# HELP ") { continue }
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...].replacingOccurrences(of: "+Inf", with: "inf")) else {
                throw HarnessError("bad sample: \(line)")
            }
            let head = line[..<space]
            var name = String(head)
            var labels: [String: String] = [:]
            if let brace = head.firstIndex(of: "{") {
                guard head.last == "}" else { throw HarnessError("bad labels: \(line)") }
                name = String(head[..<brace])
                var rest = head[head.index(after: brace)..<head.index(before: head.endIndex)]
                while !rest.isEmpty {
                    guard let equals = rest.firstIndex(of: "="), rest[rest.index(after: equals)] == "\"" else { throw HarnessError("bad label: \(line)") }
                    let key = String(rest[..<equals])
                    var index = rest.index(equals, offsetBy: 2)
                    var labelValue = ""
                    while rest[index] != "\"" {
                        if rest[index] == "\\" { index = rest.index(after: index) }
                        labelValue.append(rest[index])
                        index = rest.index(after: index)
                    }
                    labels[key] = labelValue
                    rest = rest[rest.index(after: index)...]
                    if rest.first == "," { rest = rest.dropFirst() }
                }
            }
            var family = name
            for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) && scrape.types[String(name.dropLast(suffix.count))] == "histogram" {
                family = String(name.dropLast(suffix.count))
            }
            guard let type = scrape.types[family] else { throw HarnessError("sample before its TYPE: \(line)") }
            let series = Scrape.Series(name: name, labels: labels, family: family)
            guard scrape.samples[series] == nil else { throw HarnessError("duplicate series: \(line)") }
            scrape.samples[series] = value
            // Histogram parts count like counters: they never go down.
            if type == "histogram" { scrape.types[name] = "counter" }
        }
        return scrape
    }
}

/// The Grafana dashboard asks only for metrics the relay exposes.
@Suite struct GrafanaDashboardTests {
    @Test func everyMetricTheDashboardQueriesExists() async throws {
        let named = try Self.metricNames()
        try await PipelineHarness.with { relay in
            let reply = try await relay.request("GET", "/metrics")
            let families = Set(try MetricsEndpointTests.parse(reply.text).types.keys)
            // Declared families are typed in every scrape, even before their first sample.
            for name in named {
                #expect(families.contains(name), "\(name) is not exposed")
            }
        }
    }

    /// The metric families the dashboard's panels query (a histogram's `_bucket` as its family).
    static func metricNames() throws -> Set<String> {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("deploy/grafana/pushrelay.json")
        let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(expressions.count >= 10)
        let regex = try Regex("pushrelay_[a-z_]+")
        return Set(expressions.flatMap { $0.matches(of: regex).map { String($0.output[0].substring!) } }.map { name in
            name.hasSuffix("_bucket") ? String(name.dropLast(7)) : name
        })
    }
}
