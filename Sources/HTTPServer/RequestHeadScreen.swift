import Glibc
import RelayCore

/// Checks the head of each request, as its bytes arrive, for what RFC 9112 says to refuse
/// because a lenient parser frames it differently from a strict one (request smuggling).
///
/// libevent 2.1's parser is lenient: it takes a bare LF as a line end, joins obs-folded
/// lines, keeps "Content-Length " (with the space) as a name of its own, frames the body by
/// the first of several Content-Lengths or Transfer-Encodings, and accepts a Content-Length
/// of any size (waiting for all of it before answering 413). By the time a request reaches
/// a handler the folds and line ends are gone, so the raw bytes are screened instead: the
/// loop feeds every byte added to a connection's input from the start of each request, and
/// the request is answered 400 (413 for a declared body over the limit) and the connection
/// closed before libevent parses it (see `EventLoop.reject`).
///
/// Only the head is examined; once it is complete the rest of the request (its body) is
/// ignored until the loop starts a fresh screen for the next request. Pure.
struct RequestHeadScreen: Equatable {
    enum Verdict: Equatable {
        /// The head is not complete yet and nothing wrong has been seen.
        case incomplete
        /// The head is complete and acceptable.
        case passed
        case rejected(Violation)
    }

    enum Violation: Equatable {
        /// A line ended by LF alone, or a CR not followed by LF.
        case bareLineEnding
        /// A header line starting with a space or tab (obs-fold).
        case obsoleteLineFolding
        /// A header name with whitespace before the colon, or any other character a name
        /// may not hold, or a line without a colon.
        case invalidFieldName
        /// Content-Length fields with different values.
        case conflictingContentLength
        /// A Content-Length that is not a decimal number.
        case invalidContentLength
        /// A Content-Length over the body limit (or too long to be a number at all).
        case contentLengthTooLarge
        /// Transfer-Encoding other than one field saying `chunked`, or beside a Content-Length.
        case unsupportedTransferEncoding

        /// The rejection: 413 for a declared body over the limit, 400 otherwise.
        func rejection(maxBodySize: Int) -> HTTPRejection {
            switch self {
            case .bareLineEnding: .malformedRequest(detail: "header lines must end with CRLF")
            case .obsoleteLineFolding: .malformedRequest(detail: "folded header lines are not accepted")
            case .invalidFieldName: .malformedRequest(detail: "invalid header name (no whitespace before the colon)")
            case .conflictingContentLength: .malformedRequest(detail: "conflicting Content-Length headers")
            case .invalidContentLength: .malformedRequest(detail: "Content-Length must be a decimal number")
            case .contentLengthTooLarge: .bodyTooLarge(limit: maxBodySize)
            case .unsupportedTransferEncoding:
                .malformedRequest(detail: "Transfer-Encoding must be a single 'chunked', without Content-Length")
            }
        }
    }

    let maxBodySize: Int
    private(set) var verdict = Verdict.incomplete
    /// The current line, without its CRLF (kept to `maxLine` bytes: libevent refuses longer heads).
    private var line: [UInt8] = []
    private var afterCR = false
    private var sawRequestLine = false
    private var contentLength: [UInt8]?
    private var sawTransferEncoding = false

    /// libevent's own limit on a request's headers (`evhttp_set_max_headers_size`).
    static let maxLine = 64 * 1024

    init(maxBodySize: Int) {
        self.maxBodySize = maxBodySize
    }

    /// Examines the next bytes of the request; the verdict, once not `incomplete`, stays.
    mutating func feed(_ bytes: [UInt8]) -> Verdict {
        bytes.withUnsafeBufferPointer { feed($0) }
    }

    /// The same, over bytes in place (a connection's input buffer). Lines are cut with
    /// `memchr`, not byte by byte: a pipelining client's heads are screened at the speed
    /// libevent reads them, in debug builds too.
    mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) -> Verdict {
        guard let base = bytes.baseAddress else { return verdict }
        var index = 0
        while verdict == .incomplete, index < bytes.count {
            if afterCR {
                guard base[index] == UInt8(ascii: "\n") else {
                    verdict = .rejected(.bareLineEnding)
                    break
                }
                afterCR = false
                index += 1
                verdict = lineEnded()
                line.removeAll(keepingCapacity: true)
                continue
            }
            // The line goes on up to its CR, unless an LF comes first (a bare line ending).
            let rest = bytes.count - index
            let cr = Self.offset(of: UInt8(ascii: "\r"), in: base + index, count: rest) ?? rest
            let lf = Self.offset(of: UInt8(ascii: "\n"), in: base + index, count: cr)
            let stop = lf ?? cr
            line.append(contentsOf: UnsafeBufferPointer(start: base + index, count: min(stop, max(0, Self.maxLine - line.count))))
            index += stop
            guard index < bytes.count else { break }
            if lf != nil {
                verdict = .rejected(.bareLineEnding)
            } else {
                afterCR = true
                index += 1
            }
        }
        return verdict
    }

    private static func offset(of byte: UInt8, in start: UnsafePointer<UInt8>, count: Int) -> Int? {
        guard count > 0, let found = memchr(start, Int32(byte), count) else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(start)
    }

    private mutating func lineEnded() -> Verdict {
        guard sawRequestLine else {
            // Empty lines before the request line are ignored (RFC 9112 §2.2); the request
            // line itself is libevent's to judge.
            sawRequestLine = !line.isEmpty
            return .incomplete
        }
        if line.isEmpty {
            return sawTransferEncoding && contentLength != nil ? .rejected(.unsupportedTransferEncoding) : .passed
        }
        if line[0] == UInt8(ascii: " ") || line[0] == UInt8(ascii: "\t") { return .rejected(.obsoleteLineFolding) }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              line[..<colon].allSatisfy(Self.isTokenCharacter) else { return .rejected(.invalidFieldName) }
        let name = line[..<colon]
        let value = Self.trimmed(line[(colon + 1)...])
        if Self.equalsIgnoringCase(name, "content-length") {
            return contentLengthSeen(Array(value))
        }
        if Self.equalsIgnoringCase(name, "transfer-encoding") {
            guard !sawTransferEncoding, Self.equalsIgnoringCase(value, "chunked") else {
                return .rejected(.unsupportedTransferEncoding)
            }
            sawTransferEncoding = true
        }
        return .incomplete
    }

    private mutating func contentLengthSeen(_ value: [UInt8]) -> Verdict {
        guard !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            return .rejected(.invalidContentLength)
        }
        if let earlier = contentLength, earlier != value { return .rejected(.conflictingContentLength) }
        contentLength = value
        // Leading zeros aside, more than 18 digits cannot be a length libevent reads right.
        let digits = value.drop { $0 == UInt8(ascii: "0") }
        let length = digits.isEmpty ? 0 : Int(String(decoding: digits, as: UTF8.self))
        guard digits.count <= 18, let length, length <= maxBodySize else { return .rejected(.contentLengthTooLarge) }
        return .incomplete
    }

    /// tchar of RFC 9110 §5.6.2: what a header name may hold.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return []
        }
        return bytes[first...last]
    }

    private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ lowercase: String) -> Bool {
        bytes.count == lowercase.utf8.count && zip(bytes, lowercase.utf8).allSatisfy { byte, expected in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 == expected : byte == expected
        }
    }
}
