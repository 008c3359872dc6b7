import Foundation

/// Reads an HTTP/1.1 answer as it arrives, up to what a webhook needs: the status, the
/// headers, and the first `Limits.bodyBytes` of the body (chunked, Content-Length or
/// until the close). The receiver's server is not ours: every part is bounded, and a
/// head over the limit or a broken framing is malformed rather than waited out.
///
/// 1xx interim answers (100 Continue) are skipped. A body cut short by the close still
/// answers with its status (`Response.bodyComplete` false): the receiver decided.
struct HTTPResponseParser {
    typealias Limits = WebhookClientConfiguration.AnswerLimits

    struct Header: Sendable, Equatable {
        /// Lowercased.
        var name: String
        var value: String
    }

    struct Response: Sendable, Equatable {
        var status: Int
        var headers: [Header]
        /// At most `Limits.bodyBytes`.
        var body: [UInt8]
        /// Whether `body` is the whole body (false: over the limit, or cut short by the close).
        var bodyComplete: Bool
    }

    enum Progress: Sendable, Equatable {
        case needMore
        case answered(Response)
        case malformed(String)
    }

    private enum Framing {
        case length(remaining: Int)
        case untilClose
        case chunkSize
        case chunkData(remaining: Int)
        /// The CRLF after a chunk's data.
        case chunkEnd
    }

    private enum State {
        case head
        case body(Response, Framing)
        case finished(Progress)
    }

    let limits: Limits
    private var state = State.head
    /// Input not consumed yet: the head so far, or a chunk-size line so far.
    private var buffer: [UInt8] = []
    private var receivedAny = false
    /// Whether body bytes past the limit were dropped.
    private var truncated = false
    /// The longest chunk-size line taken (extensions included).
    private static let maxChunkLine = 1024

    init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Takes the next bytes of the answer.
    mutating func parse(_ bytes: some Sequence<UInt8>) -> Progress {
        if case let .finished(progress) = state { return progress }
        buffer.append(contentsOf: bytes)
        receivedAny = receivedAny || !buffer.isEmpty
        return advance()
    }

    /// The server closed the connection.
    mutating func endOfInput() -> Progress {
        switch state {
        case let .finished(progress):
            return progress
        case .head:
            return finish(.malformed(receivedAny
                ? "the server closed the connection in the middle of the answer's head"
                : "the server closed the connection without answering"))
        case let .body(response, framing):
            var response = response
            if case .untilClose = framing { response.bodyComplete = !truncated }
            return finish(.answered(response))
        }
    }

    private mutating func finish(_ progress: Progress) -> Progress {
        state = .finished(progress)
        buffer = []
        return progress
    }

    private mutating func advance() -> Progress {
        while true {
            switch state {
            case let .finished(progress):
                return progress
            case .head:
                guard let end = Self.headEnd(in: buffer) else {
                    return buffer.count > limits.headBytes ? finish(.malformed(headTooLarge)) : .needMore
                }
                guard end <= limits.headBytes else { return finish(.malformed(headTooLarge)) }
                let parsed = Self.parseHead(buffer[..<end])
                buffer.removeFirst(end)
                switch parsed {
                case let .failure(problem):
                    return finish(.malformed(problem.description))
                case let .success((response, framing)):
                    if (100...199).contains(response.status), response.status != 101 { continue }
                    guard let framing else { return finish(.answered(response)) }
                    state = .body(response, framing)
                }
            case .body(var response, let framing):
                if response.body.count >= limits.bodyBytes {
                    response.bodyComplete = false
                    return finish(.answered(response))
                }
                switch framing {
                case let .length(remaining):
                    let left = remaining - take(upTo: remaining, into: &response)
                    if left == 0 {
                        response.bodyComplete = !truncated
                        return finish(.answered(response))
                    }
                    state = .body(response, .length(remaining: left))
                    if buffer.isEmpty, response.body.count < limits.bodyBytes { return .needMore }
                case .untilClose:
                    _ = take(upTo: buffer.count, into: &response)
                    state = .body(response, .untilClose)
                    if response.body.count < limits.bodyBytes { return .needMore }
                case .chunkSize:
                    guard let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) else {
                        return buffer.count > Self.maxChunkLine ? finish(.malformed("a chunk-size line is over \(Self.maxChunkLine) bytes")) : .needMore
                    }
                    guard newline < Self.maxChunkLine, let size = Self.chunkSize(buffer[..<newline]) else {
                        return finish(.malformed("a chunk size is not a hexadecimal number"))
                    }
                    buffer.removeFirst(newline + 1)
                    if size == 0 {
                        response.bodyComplete = !truncated
                        return finish(.answered(response))
                    }
                    state = .body(response, .chunkData(remaining: size))
                case let .chunkData(remaining):
                    let left = remaining - take(upTo: remaining, into: &response)
                    state = .body(response, left == 0 ? .chunkEnd : .chunkData(remaining: left))
                    if buffer.isEmpty, response.body.count < limits.bodyBytes { return .needMore }
                case .chunkEnd:
                    if buffer.first == UInt8(ascii: "\n") {
                        buffer.removeFirst(1)
                    } else if buffer.count >= 2, buffer[0] == UInt8(ascii: "\r"), buffer[1] == UInt8(ascii: "\n") {
                        buffer.removeFirst(2)
                    } else if buffer.count < 2 {
                        return .needMore
                    } else {
                        return finish(.malformed("a chunk's data is not followed by CRLF"))
                    }
                    state = .body(response, .chunkSize)
                }
            }
        }
    }

    private var headTooLarge: String { "the answer's head is over \(limits.headBytes) bytes" }

    /// Consumes up to `count` buffered bytes, keeping those that fit under the body limit.
    ///
    /// - Returns: how many it consumed.
    private mutating func take(upTo count: Int, into response: inout Response) -> Int {
        let taken = min(count, buffer.count)
        let kept = min(taken, limits.bodyBytes - response.body.count)
        response.body.append(contentsOf: buffer.prefix(kept))
        truncated = truncated || kept < taken
        buffer.removeFirst(taken)
        return taken
    }

    /// The index just past the blank line that ends the head (CRLF or bare LF lines).
    private static func headEnd(in bytes: [UInt8]) -> Int? {
        var index = bytes.startIndex
        while let newline = bytes[index...].firstIndex(of: UInt8(ascii: "\n")) {
            let next = newline + 1
            if next < bytes.count, bytes[next] == UInt8(ascii: "\n") { return next + 1 }
            if next + 1 < bytes.count, bytes[next] == UInt8(ascii: "\r"), bytes[next + 1] == UInt8(ascii: "\n") { return next + 2 }
            index = next
        }
        return nil
    }

    private struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    /// The status line and headers; the framing of the body, nil when it has none.
    private static func parseHead(_ head: ArraySlice<UInt8>) -> Result<(Response, Framing?), Problem> {
        var lines = head.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
            line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let statusLine = lines.first, let status = parseStatusLine(statusLine) else {
            return .failure(Problem(description: "the answer does not start with an HTTP/1.x status line"))
        }
        var headers: [Header] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[..<colon].allSatisfy(WebhookRequest.isTokenByte) else {
                return .failure(Problem(description: "the answer has a malformed header line"))
            }
            let value = line[(colon + 1)...].drop(while: isBlank).reversed().drop(while: isBlank).reversed()
            headers.append(Header(name: String(decoding: line[..<colon], as: UTF8.self).lowercased(),
                                  value: String(decoding: value, as: UTF8.self)))
        }
        let response = Response(status: status, headers: headers, body: [], bodyComplete: false)
        if (100...199).contains(status) || status == 204 || status == 304 { return .success((response, nil)) }
        let codings = headers.filter { $0.name == "transfer-encoding" }
            .flatMap { $0.value.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if let last = codings.last {
            return .success((response, last == "chunked" ? .chunkSize : .untilClose))
        }
        let lengths = Set(headers.filter { $0.name == "content-length" }
            .flatMap { $0.value.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) })
        guard let length = lengths.first else { return .success((response, .untilClose)) }
        guard lengths.count == 1, (1...18).contains(length.count), length.allSatisfy({ $0.isASCII && $0.isNumber }), let count = Int(length) else {
            return .failure(Problem(description: "the answer's Content-Length is not one whole number"))
        }
        return .success((response, count == 0 ? nil : .length(remaining: count)))
    }

    /// `HTTP/1.x ddd[ reason]` → ddd, from 100 to 599.
    private static func parseStatusLine(_ line: ArraySlice<UInt8>) -> Int? {
        let bytes = Array(line)
        guard bytes.count >= 12, bytes.starts(with: Array("HTTP/1.".utf8)), isDigit(bytes[7]), bytes[8] == UInt8(ascii: " "),
              bytes[9...11].allSatisfy(isDigit), bytes.count == 12 || bytes[12] == UInt8(ascii: " ") else { return nil }
        let status = bytes[9...11].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        return (100...599).contains(status) ? status : nil
    }

    /// A chunk-size line's size (`1a2b;ext=…`), nil when it is not hexadecimal or too large.
    private static func chunkSize(_ line: ArraySlice<UInt8>) -> Int? {
        let line = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        let digits = line.prefix { $0 != UInt8(ascii: ";") }.reversed().drop(while: isBlank).reversed()
        guard (1...15).contains(digits.count), digits.allSatisfy({ isDigit($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0 | 0x20) }) else {
            return nil
        }
        return Int(String(decoding: digits, as: UTF8.self), radix: 16)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
