import RelayCore

/// The bytes of one webhook POST: HTTP/1.1, one request per connection (`Connection: close`,
/// so the end of the answer is never in doubt and no connection is kept to a stranger).
enum WebhookRequest {
    /// Headers the client writes itself: taken from a caller they could break the framing.
    static let ownHeaders: Set<String> = ["host", "content-length", "connection", "transfer-encoding"]
    static let userAgent = "PushRelay-Webhook/1"

    /// The request's bytes, or why it cannot be sent (a `WebhookAttempt.refused` reason).
    static func encode(_ url: WebhookURL, body: [UInt8], headers: [(String, String)]) -> Result<[UInt8], Refusal> {
        var head = "POST \(url.target) HTTP/1.1\r\nHost: \(url.authority)\r\n"
        var givesUserAgent = false
        for (name, value) in headers {
            let lowered = name.lowercased()
            guard !ownHeaders.contains(lowered) else { return .failure(Refusal("the client sets the \(name) header itself")) }
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenByte) else { return .failure(Refusal("\"\(name)\" is not a header name")) }
            if let problem = HTTPFieldValue.problem(value) { return .failure(Refusal("header \(name) \(problem)")) }
            givesUserAgent = givesUserAgent || lowered == "user-agent"
            head += "\(name): \(value)\r\n"
        }
        if !givesUserAgent { head += "User-Agent: \(userAgent)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return .success(Array(head.utf8) + body)
    }

    struct Refusal: Error, Equatable, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// RFC 9110's tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
