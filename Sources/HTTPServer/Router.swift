import RelayCore

/// Values captured by `{name}` segments of a route pattern.
public struct RouteParameters: Sendable {
    private var values: [String: String]

    public init(_ values: [String: String] = [:]) { self.values = values }

    public subscript(_ name: String) -> String? { values[name] }
}

/// Matches method and path to a handler; pure, so it is tested without sockets.
///
/// Literal segments beat parameters, a trailing slash on the request path is tolerated,
/// a path that matches under another method answers 405 with `Allow`, and nothing
/// matching answers 404. HEAD falls back to a GET route (the server sends no body for HEAD).
public struct Router: HTTPResponder {
    public typealias Handler = @Sendable (HTTPRequest, RouteParameters) async -> HTTPResponse

    private struct Route: Sendable {
        var method: String
        var pattern: RoutePattern
        var handler: Handler
    }

    private var routes: [Route] = []

    /// Told of every request answered: its method, the route pattern it matched (nil when
    /// none did), the status and the seconds taken. Metrics hook in here.
    public var observer: (@Sendable (_ method: String, _ route: String?, _ status: Int, _ seconds: Double) -> Void)?
    private let rejections: HTTPRejection.Responder

    /// - Parameters:
    ///   - rejections: what the application answers when no route matches, and to what the
    ///     server refuses before routing (`HTTPRejection`).
    public init(rejections: @escaping HTTPRejection.Responder) {
        self.rejections = rejections
    }

    public func response(to rejection: HTTPRejection) -> HTTPResponse {
        rejections(rejection)
    }

    /// Adds a route.
    ///
    /// - Parameters:
    ///   - method: "GET", "POST", … (any case).
    ///   - pattern: a path such as "/admin/v1/apps/{app_key}/apns".
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        routes.append(Route(method: method.uppercased(), pattern: RoutePattern(pattern), handler: handler))
    }

    /// What routing decided, without running a handler.
    enum Decision {
        case handler(Handler, RouteParameters, RoutePattern)
        case methodNotAllowed(allow: [String])
        case notFound
    }

    func decide(method: String, path: String) -> Decision {
        let segments = RoutePattern.segments(of: path)
        var best: (route: Route, parameters: [String: String])?
        // `Allow` names the methods of the most specific pattern the path fits: "/v3/devices/import"
        // allows POST, not the GET of "/v3/devices/{registration_id}" it also fits.
        var allowedPattern: RoutePattern?
        var allowed: Set<String> = []
        for methodToTry in method == "HEAD" ? ["HEAD", "GET"] : [method] {
            for route in routes {
                guard let parameters = route.pattern.match(segments) else { continue }
                if allowedPattern == nil || route.pattern.isMoreSpecific(than: allowedPattern!) {
                    allowedPattern = route.pattern
                    allowed = [route.method]
                } else if route.pattern == allowedPattern {
                    allowed.insert(route.method)
                }
                guard route.method == methodToTry else { continue }
                if best == nil || route.pattern.isMoreSpecific(than: best!.route.pattern) {
                    best = (route, parameters)
                }
            }
            if let best { return .handler(best.route.handler, RouteParameters(best.parameters), best.route.pattern) }
        }
        if allowed.isEmpty { return .notFound }
        if allowed.contains("GET") { allowed.insert("HEAD") }
        return .methodNotAllowed(allow: allowed.sorted())
    }

    /// Every route as (method, pattern), in the order added: what openapi.yaml must describe.
    public var table: [(method: String, pattern: String)] {
        routes.map { ($0.method, $0.pattern.description) }
    }

    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        guard let observer else { return await route(request).response }
        let started = ContinuousClock.now
        let (response, pattern) = await route(request)
        let elapsed = ContinuousClock.now - started
        observer(request.method, pattern, response.status,
                 Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        return response
    }

    private func route(_ request: HTTPRequest) async -> (response: HTTPResponse, pattern: String?) {
        switch decide(method: request.method, path: request.path) {
        case .handler(let handler, let parameters, let pattern):
            return (await handler(request, parameters), pattern.description)
        case .methodNotAllowed(let allow):
            var response = rejections(.methodNotAllowed)
            response.headers.replaceOrAdd(name: "Allow", value: allow.joined(separator: ", "))
            return (response, nil)
        case .notFound:
            return (rejections(.noRoute), nil)
        }
    }
}

/// A route path split into literal and `{parameter}` segments.
struct RoutePattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]

    init(_ pattern: String) {
        segments = Self.segments(of: pattern).map { segment in
            if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
                return .parameter(String(segment.dropFirst().dropLast()))
            }
            return .literal(segment)
        }
    }

    var description: String {
        "/" + segments.map { segment in
            switch segment {
            case .literal(let text): text
            case .parameter(let name): "{\(name)}"
            }
        }.joined(separator: "/")
    }

    /// Path segments; one trailing slash is ignored, so "/a/" and "/a" are the same path. Split
    /// on the byte `/`, not on Characters: a `/` followed by a combining mark or an emoji
    /// modifier (`/🏻`) is one grapheme, which a Character split leaves whole (no route, 404).
    static func segments(of path: String) -> [String] {
        var parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        if parts.first == "" { parts.removeFirst() }
        if parts.last == "" { parts.removeLast() }
        return parts
    }

    /// The captured parameters, or nil when `path` does not fit.
    func match(_ path: [String]) -> [String: String]? {
        guard path.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(segments, path) {
            switch segment {
            case .literal(let literal):
                guard literal == value else { return nil }
            case .parameter(let name):
                guard !value.isEmpty else { return nil }
                parameters[name] = value
            }
        }
        return parameters
    }

    /// Comparing segment by segment, the first literal facing a parameter wins.
    func isMoreSpecific(than other: RoutePattern) -> Bool {
        for (mine, theirs) in zip(segments, other.segments) {
            switch (mine, theirs) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }
}
