/// The control endpoint's routes, decided from the method and URI alone.
public enum ControlRoute: Equatable, Sendable {
    /// `GET /stats`
    case stats
    /// `GET /deliveries`, optionally `?token=<hex>`
    case deliveries(token: String?)
    /// `POST /reset`
    case reset
    /// `GET /rates`: the 429/500/503 rates in force.
    case rates
    /// `PUT /rates` with `{"rate_429":F,"rate_500":F,"rate_503":F}`: changes them while running.
    case setRates
    /// `GET /network`: latency, jitter and bandwidth in force.
    case network
    /// `PUT /network` with `{"latency_ms":N,"latency_jitter_ms":N,"bandwidth_bytes_per_second":N}`.
    case setNetwork
    /// A known path with the wrong method: 405.
    case methodNotAllowed
    /// Anything else: 404.
    case notFound

    public init(method: String, uri: String) {
        let pathEnd = uri.firstIndex(of: "?") ?? uri.endIndex
        let path = uri[..<pathEnd]
        let query = pathEnd < uri.endIndex ? uri[uri.index(after: pathEnd)...] : ""
        switch (path, method) {
        case ("/stats", "GET"): self = .stats
        case ("/deliveries", "GET"): self = .deliveries(token: ControlRoute.value(of: "token", in: query))
        case ("/reset", "POST"): self = .reset
        case ("/rates", "GET"): self = .rates
        case ("/rates", "PUT"): self = .setRates
        case ("/network", "GET"): self = .network
        case ("/network", "PUT"): self = .setNetwork
        case ("/stats", _), ("/deliveries", _), ("/reset", _), ("/rates", _), ("/network", _): self = .methodNotAllowed
        default: self = .notFound
        }
    }

    /// The first `name=value` of a query string (tokens are hex: no decoding needed).
    static func value(of name: String, in query: Substring) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0] == name, !parts[1].isEmpty { return String(parts[1]) }
        }
        return nil
    }
}
