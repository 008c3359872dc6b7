/// Where a webhook is POSTed: an `http` or `https` URL checked at the border, so the admin
/// route can refuse a bad one with a clear sentence and the client never parses it again.
///
/// No user name or password (a secret in a URL ends up in logs), no fragment (never sent),
/// ASCII only (an IDN host is written in punycode, other characters percent-encoded), at most
/// `maxLength` characters. Numeric hosts must be plain dotted quads or bracketed IPv6 without
/// a zone: `http://2130706433/` and `http://0x7f.1/` are refused rather than guessed at.
public struct WebhookURL: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable {
        case http, https

        var defaultPort: Int { self == .http ? 80 : 443 }
    }

    public let scheme: Scheme
    /// Lowercased; an IPv6 address without its brackets.
    public let host: String
    public let port: Int
    /// The path and query, as sent in the request line (at least `/`).
    public let target: String
    /// The host's address when the URL names one instead of a DNS name.
    public let literalAddress: IPAddress?

    public static let maxLength = 2048

    /// - Throws: `WebhookURLError`, whose description says what is wrong.
    public init(parsing text: String) throws(WebhookURLError) {
        guard !text.isEmpty else { throw WebhookURLError("url is empty") }
        guard text.utf8.count <= Self.maxLength else { throw WebhookURLError("url is longer than \(Self.maxLength) characters") }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw WebhookURLError("url may hold only visible ASCII characters (no spaces; percent-encode others, IDN hosts in punycode)")
        }
        guard let schemeEnd = text.range(of: "://") else { throw WebhookURLError("url must start with http:// or https://") }
        guard let scheme = Scheme(rawValue: text[..<schemeEnd.lowerBound].lowercased()) else {
            throw WebhookURLError("url must use http or https")
        }
        guard !text.contains("#") else { throw WebhookURLError("url must not have a fragment (#…)") }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw WebhookURLError("url must not hold a user name or password") }
        let (host, port, literal) = try Self.parseAuthority(authority, defaultPort: scheme.defaultPort)
        let target = rest[authorityEnd...]
        self.scheme = scheme
        self.host = host
        self.port = port
        self.literalAddress = literal
        self.target = target.isEmpty ? "/" : target.hasPrefix("?") ? "/" + target : String(target)
    }

    /// The `Host` header's value (and the URL's authority): the port only when not the default.
    public var authority: String {
        let name = literalAddress.map { !$0.isIPv4 ? "[\(host)]" : host } ?? host
        return port == scheme.defaultPort ? name : "\(name):\(port)"
    }

    /// The canonical URL: what to store and show.
    public var text: String { "\(scheme.rawValue)://\(authority)\(target)" }

    public var description: String { text }

    private static func parseAuthority(_ authority: Substring, defaultPort: Int) throws(WebhookURLError) -> (String, Int, IPAddress?) {
        var hostPart = authority
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw WebhookURLError("url has an unclosed [ in its host") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw WebhookURLError("url has characters after its IPv6 host") }
                portPart = after.dropFirst()
            }
            guard !hostPart.contains("%"), let address = IPAddress(hostPart), !address.isIPv4 || hostPart.contains(":") else {
                throw WebhookURLError("url's host is not a valid IPv6 address (zones are not allowed)")
            }
            return (address.description, try port(portPart, defaultPort: defaultPort), address)
        }
        if let colon = authority.firstIndex(of: ":") {
            hostPart = authority[..<colon]
            portPart = authority[authority.index(after: colon)...]
        }
        let host = hostPart.lowercased()
        guard !host.isEmpty else { throw WebhookURLError("url has no host") }
        let port = try port(portPart, defaultPort: defaultPort)
        if host.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) {
            guard host.split(separator: ".", omittingEmptySubsequences: false).count == 4, let address = IPAddress(host), address.isIPv4 else {
                throw WebhookURLError("url's host is not a valid IPv4 address (write a.b.c.d)")
            }
            return (host, port, address)
        }
        guard host.utf8.count <= 253 else { throw WebhookURLError("url's host is longer than 253 characters") }
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= 63,
                  label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }),
                  !label.hasPrefix("-"), !label.hasSuffix("-") else {
                throw WebhookURLError("url's host is not a valid DNS name")
            }
        }
        return (host, port, nil)
    }

    private static func port(_ text: Substring?, defaultPort: Int) throws(WebhookURLError) -> Int {
        guard let text else { return defaultPort }
        guard !text.isEmpty, text.count <= 5, text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text), (1...65535).contains(port) else {
            throw WebhookURLError("url's port must be a number from 1 to 65535")
        }
        return port
    }
}

/// Why a webhook URL was refused, as a sentence for the admin API's error answer.
public struct WebhookURLError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    package init(_ description: String) { self.description = description }
}
