import Foundation
import HTTPServer
import RelayAPI
import Testing

/// A deterministic random-input test: a fixed seed drives mutated JSON bodies (pushes,
/// device updates, schedules), tokens, tag and alias strings, msg_ids, query strings and
/// headers through the router in process, with valid credentials so the parsers behind the
/// authentication run. No request may crash, hang or answer 5xx.
/// `PUSHRELAY_FUZZ_CASES` sets the count (default 20,000 for `make test`, about 10 s).
@Suite struct RandomInputTests {
    static let cases = ProcessInfo.processInfo.environment["PUSHRELAY_FUZZ_CASES"].flatMap(Int.init) ?? 20_000

    /// SplitMix64: the same seed gives the same cases on every machine.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let seeds: [String] = [
        #"{"platform":"ios","audience":{"alias":["alice"],"tag":["vip"]},"notification":{"ios":{"alert":{"title":"t","body":"b"},"badge":"+1","sound":"default","extras":{"k":1}}},"options":{"time_to_live":60,"apns_collapse_id":"c","apns_production":false}}"#,
        #"{"platform":"all","audience":"all","notification":{"alert":"hi"},"message":{"msg_content":"x"},"cid":"abc"}"#,
        #"{"platform":["ios"],"audience":{"registration_id":["0123456789abcdef0123456789abcdef"],"tag_and":["a"],"tag_not":["b"]},"notification":{"alert":"x"}}"#,
        #"{"platform":"ios","token":"5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e","environment":"production","alias":"bob","tags":["x","y"],"badge":3}"#,
        #"{"tags":{"add":["a","b"],"remove":["c"]},"alias":"z","mobile":"13800000000"}"#,
        #"{"registration_ids":{"add":["0123456789abcdef0123456789abcdef"],"remove":[]}}"#,
        #"{"name":"s","enabled":true,"trigger":{"periodical":{"start":"2026-01-01 00:00:00","end":"2027-01-01 00:00:00","time":"09:00:00","time_unit":"week","frequency":1,"point":["MON"]}},"push":{"platform":"all","audience":"all","notification":{"alert":"x"}}}"#,
        #"{"msg_id":1613113584,"registration_ids":["0123456789abcdef0123456789abcdef"],"date":"2026-01-01"}"#,
        #"{"pushlist":{"c1":{"platform":"ios","target":"alice","notification":{"alert":"x"}}}}"#,
    ]

    static let routes: [(String, String)] = [
        ("POST", "/v3/push"), ("POST", "/v3/push/validate"), ("POST", "/v3/devices"), ("POST", "/v3/devices/{rid}"),
        ("GET", "/v3/devices/{rid}"), ("POST", "/v3/tags/{tag}"), ("GET", "/v3/tags/{tag}/registration_ids/{rid}"),
        ("POST", "/v3/aliases/{alias}"), ("GET", "/v3/aliases/{alias}"), ("DELETE", "/v3/push/{msg}"),
        ("POST", "/v3/schedules"), ("PUT", "/v3/schedules/{id}"), ("GET", "/v3/schedules/{id}"),
        ("GET", "/v3/received"), ("GET", "/v3/messages/detail"), ("POST", "/v3/status/message"),
        ("POST", "/v3/push/batch/alias/single"), ("POST", "/v3/push/batch/regid/single"), ("GET", "/v3/push/cid"),
        ("GET", "/v3/users"), ("POST", "/v3/devices/status"), ("GET", "/v3/schedules"),
    ]

    static let nasty: [String] = [
        "", " ", "\u{0}", "%00", "%", "%zz", "..", "../..", "ü", "😀", "\u{202E}", "'", "\"", "\\", "{", "}", "[", "]",
        "null", "true", "-1", "0", "18446744073709551616", "9223372036854775807", "1e309", "-0", "NaN",
        String(repeating: "a", count: 300), String(repeating: "9", count: 40), "a,b,,c", "*", "?", "#", "&", "=",
    ]

    static func mutate(_ bytes: [UInt8], _ rng: inout Seeded) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            case 1 where !bytes.isEmpty: bytes.remove(at: Int.random(in: 0..<bytes.count, using: &rng))
            case 2:
                let text = Array(nasty.randomElement(using: &rng)!.utf8)
                bytes.insert(contentsOf: text, at: Int.random(in: 0...bytes.count, using: &rng))
            case 3 where bytes.count > 2:
                let cut = Int.random(in: 0..<bytes.count, using: &rng)
                bytes = Array(bytes[..<cut])
            case 4:
                // Swap a JSON scalar for another kind.
                let text = String(decoding: bytes, as: UTF8.self)
                let replacements = ["\"x\"", "1", "[]", "{}", "null", "true", "-1", "1.5", "\"\"", "[[[[[[[[]]]]]]]]"]
                if let range = text.range(of: #":(\"[^\"]*\"|[0-9]+|true|false|\[\]|\{\})"#, options: .regularExpression) {
                    bytes = Array(text.replacingCharacters(in: range, with: ":" + replacements.randomElement(using: &rng)!).utf8)
                }
            default:
                bytes += Array(nasty.randomElement(using: &rng)!.utf8)
            }
        }
        return bytes
    }

    static func segment(_ rng: inout Seeded) -> String {
        let pick = nasty.randomElement(using: &rng)!
        let value = Bool.random(using: &rng) ? pick : String(repeating: "0123456789abcdef", count: 2)
        return value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "x"
    }

    /// One request: a route with random segments, maybe a query, headers, a mutated body.
    static func makeCase(_ rng: inout Seeded, auth: String) -> (String, String, HTTPHeaders, [UInt8]) {
        let (method, pattern) = routes.randomElement(using: &rng)!
        var path = pattern
        for name in ["{rid}", "{tag}", "{alias}", "{msg}", "{id}"] where path.contains(name) {
            path = path.replacingOccurrences(of: name, with: segment(&rng))
        }
        var uri = path
        if Bool.random(using: &rng) {
            let keys = ["msg_ids", "count", "type", "page", "time_unit", "start", "duration", "platform"]
            uri += "?" + (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                "\(keys.randomElement(using: &rng)!)=\(segment(&rng))"
            }.joined(separator: "&")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: Int.random(in: 0..<20, using: &rng) == 0 ? "Basic " + segment(&rng) : auth)
        if Bool.random(using: &rng) { headers.add(name: "Content-Type", value: ["application/json", "text/plain", "", "application/json; charset=utf-16"].randomElement(using: &rng)!) }
        if Int.random(in: 0..<10, using: &rng) == 0 { headers.add(name: "X-Request-Id", value: segment(&rng)) }
        let body = method == "GET" || method == "DELETE" ? [] : mutate(Array(seeds.randomElement(using: &rng)!.utf8), &rng)
        return (method, uri, headers, body)
    }

    /// Found by schemathesis: a NUL in a query value reached PostgreSQL (500); names longer
    /// than the spec's 255 characters were accepted once trimmed.
    @Test func nulBytesAndOverlongNamesAre400() async throws {
        try await RelayHarness.with { relay in
            let messages = try await relay.request("GET", "/admin/v1/messages?app_key=%00")
            let stats = try await relay.request("GET", "/admin/v1/stats?app_key=a%00b")
            let padded = "x" + String(repeating: "\u{a0}", count: 300)
            let app = try await relay.request("POST", "/admin/v1/apps", json: ["name": padded])
            #expect(messages.status == 400 && stats.status == 400 && app.status == 400)
        }
    }

    /// A smaller run of the same cases over a real socket, through libevent's parser.
    @Test(.timeLimit(.minutes(3))) func overASocketToo() async throws {
        try await RelayHarness.with(rateLimits: .init(defaultPerMinute: 1_000_000_000, authFailuresPerMinute: 1_000_000_000)) { relay in
            let app = try await relay.createApp("fuzz socket")
            let auth = "Basic " + Data("\(app.key):\(app.secret)".utf8).base64EncodedString()
            var rng = Seeded(state: 20_261_131)
            var statuses: [Int: Int] = [:]
            for index in 0..<Self.cases / 20 {
                let (method, uri, headers, body) = Self.makeCase(&rng, auth: auth)
                var fields: [String: String] = [:]
                for name in ["Authorization", "Content-Type", "X-Request-Id"] { if let value = headers[name] { fields[name] = value } }
                guard URL(string: "http://127.0.0.1:\(relay.port)\(uri)") != nil else { continue }
                let reply = try await relay.request(method, uri, auth: .none, body: body.isEmpty ? nil : Data(body), headers: fields)
                statuses[reply.status, default: 0] += 1
                #expect(reply.status < 500, "case \(index): \(method) \(uri) → \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
            }
            print("random input over a socket: \(Self.cases / 20) cases, statuses \(statuses.sorted { $0.key < $1.key })")
            #expect(try await relay.request("GET", "/healthz", auth: .none).status == 200, "still serving")
        }
    }

    @Test(.timeLimit(.minutes(5))) func noCrashNoHangNo5xx() async throws {
        try await RelayHarness.with(rateLimits: .init(defaultPerMinute: 1_000_000_000, authFailuresPerMinute: 1_000_000_000)) { relay in
            let app = try await relay.createApp("fuzz")
            let auth = "Basic " + Data("\(app.key):\(app.secret)".utf8).base64EncodedString()
            var rng = Seeded(state: 20_261_130)
            var statuses: [Int: Int] = [:]
            var unparsable = 0
            for index in 0..<Self.cases {
                let (method, uri, headers, body) = Self.makeCase(&rng, auth: auth)
                let request: HTTPRequest
                do {
                    request = try HTTPRequest(method: method, uri: uri, headers: headers, body: body, remoteAddress: "127.0.0.1:1")
                } catch {
                    unparsable += 1  // the server answers these 400 before routing
                    continue
                }
                let response = await relay.router.respond(to: request)
                statuses[response.status, default: 0] += 1
                #expect(response.status < 500, "case \(index): \(method) \(uri) \(String(decoding: body, as: UTF8.self)) → \(response.status) \(String(decoding: response.body, as: UTF8.self))")
            }
            print("random input: \(Self.cases) cases, statuses \(statuses.sorted { $0.key < $1.key }), \(unparsable) unparsable targets")
            #expect((statuses[200] ?? 0) > 0 && statuses.keys.contains { (400..<500).contains($0) }, "both accepted and refused inputs were reached")
        }
    }
}
