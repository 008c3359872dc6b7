import RelayCore

/// libevent 2.1 answers requests it rejects itself (body over the limit, malformed request
/// line or headers, unsupported method) with an HTML page and offers no hook to change it.
/// `RejectionRewriter` finds such a page in a connection's output; this decides what to put
/// in its place: the same status with the body the application gives the `HTTPRejection`.
/// Pure, so it is tested on bytes alone.
struct ErrorPage: Sendable {
    enum Verdict: Equatable {
        /// The response head is not complete yet; look again after the next write.
        case incomplete
        /// Not an error (e.g. "100 Continue"): leave the bytes alone.
        case keep(status: Int)
        /// Replace the response, head and whatever body follows it, with these bytes.
        case replace(status: Int, with: [UInt8])
    }

    let maxBodySize: Int
    let respond: HTTPRejection.Responder

    /// Examines what libevent has written so far of one response.
    ///
    /// The verdict comes as soon as the head is complete: the body is never needed, and
    /// libevent does not always announce its length (no Content-Length for CONNECT or HEAD).
    ///
    /// - Parameters:
    ///   - response: the bytes from the start of libevent's response to the end of the buffer.
    ///   - requestID: the id to put in `X-Request-Id`.
    func examine(_ response: [UInt8], requestID: String) -> Verdict {
        guard let headEnd = Self.find([13, 10, 13, 10], in: response) else { return .incomplete }
        let head = String(decoding: response[..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.first.map(String.init) ?? ""
        let statusParts = statusLine.split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let libeventStatus = Int(statusParts[1]) else {
            return .keep(status: 0)
        }
        // libevent answers 501 to a method it does not know or we did not enable (QUERY,
        // CONNECT): for the client that is a method this server does not allow, and no 5xx.
        let status = libeventStatus == 501 ? 405 : libeventStatus
        let reason = libeventStatus == 501 ? "Method Not Allowed" : (statusParts.count > 2 ? String(statusParts[2]) : "")
        guard status >= 400 else { return .keep(status: status) }
        let connectionClose = lines.dropFirst().contains { line in
            guard let colon = line.firstIndex(of: ":") else { return false }
            let value = line[line.index(after: colon)...].trimmingPrefix(" ")
            return String(line[..<colon]).caseInsensitiveEquals("Connection") && String(value).caseInsensitiveEquals("close")
        }

        let answer = respond(rejection(for: status))
        let body = answer.body
        var replacement = "\(statusParts[0]) \(status) \(reason)\r\n"
        replacement += "Content-Type: \(answer.headers["Content-Type"] ?? "application/json")\r\n"
        replacement += "Content-Length: \(body.count)\r\n"
        replacement += "X-Request-Id: \(requestID)\r\n"
        if connectionClose { replacement += "Connection: close\r\n" }
        replacement += "\r\n"
        return .replace(status: status, with: Array(replacement.utf8) + body)
    }

    func rejection(for status: Int) -> HTTPRejection {
        switch status {
        case 413: .bodyTooLarge(limit: maxBodySize)
        case 400: .malformedRequest(detail: nil)
        case 405: .methodNotSupported
        default: .refused(status: status)
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
