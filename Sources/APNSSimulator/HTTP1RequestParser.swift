/// Reads HTTP/1.1 requests from a connection's buffered input, for clients that offer only
/// `http/1.1` in ALPN (curl --http1.1, most HTTP libraries): the FCM simulator's token
/// endpoint and `messages:send` answer them as they answer HTTP/2 streams.
///
/// Strict and bounded rather than lenient: a head over `maxHeadBytes`, a body over
/// `maxBodyBytes`, bare LF line ends, folded or malformed header lines, a missing Host,
/// several different Content-Lengths or any Transfer-Encoding are refused, and the
/// connection is closed after the refusal. Requests are taken one at a time, so answers
/// leave in request order. Pure: it sees bytes and says what to do.
struct HTTP1RequestParser {
    static let maxHeadBytes = 8 * 1024
    static let maxBodyBytes = 64 * 1024

    enum Step: Equatable {
        /// The request is not complete yet.
        case needMore
        /// The head asked `Expect: 100-continue` and the body has not all come: send `100 Continue`.
        case sendContinue
        /// A complete request, and how many input bytes it took.
        case request(APNSRequest, keepAlive: Bool, consumed: Int)
        /// Answer `status` with `message`, then close.
        case refuse(status: Int, message: String)
    }

    /// The head of the request whose body is awaited.
    private var head: Head?
    private var continueSent = false

    private struct Head: Equatable {
        var request: APNSRequest
        var length: Int
        var bodyLength: Int
        var keepAlive: Bool
        var expectsContinue: Bool
    }

    /// What to do with `input`, the bytes buffered from the start of the next request.
    /// After `.request`, call again with the input past `consumed`.
    mutating func next(_ input: UnsafeBufferPointer<UInt8>) -> Step {
        if head == nil {
            switch Self.readHead(input) {
            case .success(nil): return .needMore
            case let .success(parsed?): head = parsed
            case let .failure(refusal): return .refuse(status: refusal.status, message: refusal.message)
            }
        }
        guard var current = head else { return .needMore }
        let end = current.length + current.bodyLength
        guard input.count >= end else {
            guard current.expectsContinue, !continueSent else { return .needMore }
            continueSent = true
            return .sendContinue
        }
        current.request.appendBody(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[current.length..<end])))
        head = nil
        continueSent = false
        return .request(current.request, keepAlive: current.keepAlive, consumed: end)
    }

    struct Refusal: Error, Equatable {
        var status: Int
        var message: String

        static func bad(_ message: String) -> Refusal { Refusal(status: 400, message: message) }
    }

    /// The head, once its empty line has come; nil before.
    private static func readHead(_ input: UnsafeBufferPointer<UInt8>) -> Result<Head?, Refusal> {
        var lines: [Slice<UnsafeBufferPointer<UInt8>>] = []
        var start = 0
        var index = 0
        let limit = min(input.count, maxHeadBytes)
        while index < limit {
            switch input[index] {
            case UInt8(ascii: "\n"):
                return .failure(.bad("header lines must end with CRLF"))
            case UInt8(ascii: "\r"):
                guard index + 1 < input.count else { return .success(nil) }
                guard input[index + 1] == UInt8(ascii: "\n") else { return .failure(.bad("header lines must end with CRLF")) }
                let line = input[start..<index]
                index += 2
                start = index
                // An empty line before the request line is ignored (RFC 9112 §2.2).
                if line.isEmpty, lines.isEmpty { continue }
                if line.isEmpty { return parse(lines, length: index).map(Optional.some) }
                lines.append(line)
            default:
                index += 1
            }
        }
        guard input.count < maxHeadBytes else {
            return .failure(Refusal(status: 431, message: "the request head is over \(maxHeadBytes) bytes"))
        }
        return .success(nil)
    }

    private static func parse(_ lines: [Slice<UnsafeBufferPointer<UInt8>>], length: Int) -> Result<Head, Refusal> {
        let parts = lines[0].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(isTokenByte),
              !parts[1].isEmpty, parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.bad("the request line must be: METHOD SP target SP HTTP/1.1"))
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .failure(Refusal(status: 505, message: "\(version.prefix(16)) is not spoken here: HTTP/1.1, or HTTP/2 through ALPN h2"))
        }
        var request = APNSRequest(method: String(decoding: parts[0], as: UTF8.self), path: String(decoding: parts[1], as: UTF8.self))
        var contentLength: Int?
        var hasHost = false
        var connection: [String] = []
        var expectsContinue = false
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(isTokenByte) else {
                return .failure(.bad(line.first == 0x20 || line.first == 0x09
                    ? "folded header lines are not accepted" : "a header line must be: name \":\" value"))
            }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self).lowercased()
            let rawValue = line[(colon + 1)...]
            guard rawValue.allSatisfy({ $0 == 0x09 || $0 >= 0x20 && $0 != 0x7F }) else {
                return .failure(.bad("the value of \(name) holds a control character"))
            }
            let value = String(decoding: rawValue, as: UTF8.self).trimmingSpaceAndTab()
            switch name {
            case "content-length":
                guard !value.isEmpty, value.utf8.count <= 9, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                      let number = Int(value) else {
                    return .failure(.bad("Content-Length must be a decimal number"))
                }
                guard contentLength == nil || contentLength == number else {
                    return .failure(.bad("conflicting Content-Length headers"))
                }
                contentLength = number
            case "transfer-encoding":
                return .failure(Refusal(status: 501, message: "Transfer-Encoding is not supported: send a Content-Length"))
            case "host":
                hasHost = true
            case "connection":
                connection += value.lowercased().split(separator: ",").map { String($0).trimmingSpaceAndTab() }
            case "expect":
                expectsContinue = value.lowercased() == "100-continue"
            default:
                request.setHeader(name, value)
            }
        }
        guard hasHost || version == "HTTP/1.0" else { return .failure(.bad("an HTTP/1.1 request must have a Host header")) }
        let bodyLength = contentLength ?? 0
        guard bodyLength <= maxBodyBytes else {
            return .failure(Refusal(status: 413, message: "the body is over \(maxBodyBytes) bytes"))
        }
        let keepAlive = version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        return .success(Head(request: request, length: length, bodyLength: bodyLength, keepAlive: keepAlive,
                             expectsContinue: expectsContinue && bodyLength > 0))
    }

    /// RFC 9110's `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

extension String {
    fileprivate func trimmingSpaceAndTab() -> String {
        var scalars = Substring(self)
        while scalars.first == " " || scalars.first == "\t" { scalars.removeFirst() }
        while scalars.last == " " || scalars.last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
