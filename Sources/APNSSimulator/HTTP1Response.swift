import RelayCore

/// An answer's bytes on an HTTP/1.1 connection: what an HTTP/2 stream would carry (status,
/// JSON body, `retry-after`), framed by Content-Length.
enum HTTP1Response {
    static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// - Parameter close: announce that the connection closes after this answer.
    static func bytes(_ response: SimulatorResponse, close: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) \(reason(response.status))\r\n"
        head += "Content-Type: application/json\r\nContent-Length: \(response.body.count)\r\n"
        if let retryAfter = response.retryAfter { head += "Retry-After: \(retryAfter)\r\n" }
        if close { head += "Connection: close\r\n" }
        head += "\r\n"
        return Array(head.utf8) + response.body
    }

    /// A refusal of what the parser could not take: `{"error":…}`, then the connection closes.
    static func refusal(status: Int, message: String) -> [UInt8] {
        let body = (try? JSONAnswer.bytes(["error": message])) ?? Array("{}".utf8)
        return bytes(SimulatorResponse(status: status, body: body), close: true)
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 503: "Service Unavailable"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}
