import Foundation
@testable import HTTPServer
import RelayAPI
import Testing

/// The rewriter driven the way libevent 2.1.12 writes a page (status line, one write per
/// header, the blank line, then the body in one write), with output buffers simulated.
@Suite("libevent page rewriting per connection")
struct RejectionRewriterTests {
    /// Connections' output buffers, and the rewriter acting on them as the event loop does.
    struct Outputs {
        var rewriter = RejectionRewriter<Int>(page: ErrorPage(maxBodySize: 1024, respond: JPushRejection.responder))
        var buffers: [Int: [UInt8]] = [:]

        mutating func open(_ connection: Int) {
            buffers[connection] = []
            rewriter.opened(connection)
        }

        /// libevent appends to the buffer.
        mutating func write(_ text: String, to connection: Int) {
            let bytes = Array(text.utf8)
            let offset = buffers[connection, default: []].count
            buffers[connection, default: []] += bytes
            switch rewriter.added(bytes, to: connection, at: offset, requestID: "rid") {
            case .none:
                break
            case .dropAdded(let count):
                buffers[connection]!.removeLast(count)
            case .replace(let start, let replacement, _):
                buffers[connection] = Array(buffers[connection]![..<start]) + replacement
            }
        }

        /// libevent's whole error page, as `evhttp_send_error` writes it.
        mutating func writePage(_ status: Int, _ reason: String, contentLength: Bool = true, to connection: Int) {
            let body = "<HTML><HEAD>\n<TITLE>\(status) \(reason)</TITLE>\n</HEAD><BODY>\n<H1>\(reason)</H1>\n</BODY></HTML>\n"
            write("HTTP/1.1 \(status) \(reason)\r\n", to: connection)
            write("Content-Type: text/html\r\n", to: connection)
            write("Connection: close\r\n", to: connection)
            write("Date: Mon, 30 Nov 2026 09:14:45 GMT\r\n", to: connection)
            if contentLength { write("Content-Length: \(body.utf8.count)\r\n", to: connection) }
            write("\r\n", to: connection)
            write(body, to: connection)
        }

        /// The socket takes everything; returns what went out.
        mutating func send(_ connection: Int) -> String {
            defer {
                buffers[connection] = []
                rewriter.sent(connection)
            }
            return String(decoding: buffers[connection] ?? [], as: UTF8.self)
        }
    }

    private func isJSONReply(_ text: String, status: Int) -> Bool {
        let parts = text.components(separatedBy: "\r\n\r\n")
        guard parts.count == 2, parts[0].hasPrefix("HTTP/1.1 \(status) "),
              let length = parts[0].split(separator: "\r\n").first(where: { $0.hasPrefix("Content-Length: ") }),
              Int(length.dropFirst("Content-Length: ".count)) == parts[1].utf8.count,
              let object = try? JSONSerialization.jsonObject(with: Data(parts[1].utf8)) as? [String: Any] else { return false }
        return object["error"] != nil
    }

    @Test("a page is replaced whole: nothing of its HTML body remains, announced by Content-Length or not")
    func replacesWholePage() {
        var outputs = Outputs()
        outputs.open(1)
        outputs.writePage(501, "Not Implemented", contentLength: false, to: 1)
        let sent = outputs.send(1)
        #expect(isJSONReply(sent, status: 405), "\(sent)")
        #expect(!sent.contains("HTML"))

        outputs.open(2)
        outputs.writePage(413, "Request Entity Too Large", to: 2)
        #expect(isJSONReply(outputs.send(2), status: 413))
    }

    @Test("an interim response already in the buffer is kept and the page after it replaced")
    func keepsInterimResponse() {
        var outputs = Outputs()
        outputs.open(1)
        outputs.write("HTTP/1.1 100 Continue\r\n\r\n", to: 1)
        outputs.writePage(413, "Request Entity Too Large", to: 1)
        let sent = outputs.send(1)
        #expect(sent.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 413 "))
        #expect(isJSONReply(String(sent.dropFirst("HTTP/1.1 100 Continue\r\n\r\n".count)), status: 413), "\(sent)")
    }

    @Test("a page on a new connection whose buffer sits where a closed one's did is replaced")
    func reusedAddressStartsClean() {
        var outputs = Outputs()
        outputs.open(7)
        outputs.writePage(501, "Not Implemented", contentLength: false, to: 7)
        // The client hung up: the connection is freed with its page unsent, and the
        // allocator gives the next connection the same buffer address.
        outputs.open(7)
        outputs.writePage(501, "Not Implemented", to: 7)
        #expect(isJSONReply(outputs.send(7), status: 405))
    }

    @Test("once the socket took a page, the next page on the same connection is replaced too")
    func nextPageOnKeptConnection() {
        var outputs = Outputs()
        outputs.open(1)
        for _ in 0..<3 {
            outputs.writePage(501, "Not Implemented", contentLength: false, to: 1)
            #expect(isJSONReply(outputs.send(1), status: 405))
        }
    }

    @Test("a non-error response libevent writes passes untouched, body included")
    func passesNonErrors() {
        var outputs = Outputs()
        outputs.open(1)
        outputs.write("HTTP/1.1 200 OK\r\n", to: 1)
        outputs.write("Content-Length: 2\r\n\r\n", to: 1)
        outputs.write("ok", to: 1)
        #expect(outputs.send(1) == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    }
}
