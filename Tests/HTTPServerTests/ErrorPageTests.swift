import Foundation
@testable import HTTPServer
import RelayAPI
import Testing

/// libevent 2.1.12's own error pages, byte for byte as it writes them, and what replaces them.
@Suite("libevent error page replacement")
struct ErrorPageTests {
    private let page = ErrorPage(maxBodySize: 1024, respond: JPushRejection.responder)

    private func libeventPage(_ status: Int, _ reason: String) -> [UInt8] {
        let body = "<HTML><HEAD>\n<TITLE>\(status) \(reason)</TITLE>\n</HEAD><BODY>\n<H1>\(reason)</H1>\n</BODY></HTML>\n"
        return Array(("HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/html\r\nConnection: close\r\n"
            + "Date: Mon, 30 Nov 2026 09:14:45 GMT\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body).utf8)
    }

    private func split(_ bytes: [UInt8]) -> (head: String, body: [String: Any]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let json = (try? JSONSerialization.jsonObject(with: Data(parts[1].utf8))) as? [String: Any] ?? [:]
        return (parts[0], json)
    }

    @Test("a 413 page becomes JSON code 1005 keeping status line and Connection: close")
    func bodyTooLarge() throws {
        guard case .replace(let status, let bytes) = page.examine(libeventPage(413, "Request Entity Too Large"), requestID: "rid") else {
            Issue.record("expected a replacement")
            return
        }
        #expect(status == 413)
        let (head, body) = split(bytes)
        #expect(head.hasPrefix("HTTP/1.1 413 Request Entity Too Large\r\n"))
        #expect(head.contains("Content-Type: application/json"))
        #expect(head.contains("X-Request-Id: rid"))
        #expect(head.contains("Connection: close"))
        let error = try #require(body["error"] as? [String: Any])
        #expect(error["code"] as? Int == 1005)
        #expect((error["message"] as? String)?.contains("1024") == true)
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("Content-Length: ") }
        #expect(length == "Content-Length: \(bytes.count - head.utf8.count - 4)")
    }

    @Test("a 400 page becomes JSON code 1003")
    func badRequest() throws {
        guard case .replace(400, let bytes) = page.examine(libeventPage(400, "Bad Request"), requestID: "r") else {
            Issue.record("expected a replacement")
            return
        }
        let error = try #require(split(bytes).body["error"] as? [String: Any])
        #expect(error["code"] as? Int == 1003)
    }

    @Test("a page is replaced once its head is complete, with or without its body or a Content-Length")
    func decidesOnTheHead() {
        let full = libeventPage(413, "Request Entity Too Large")
        let headOnly = Array(String(decoding: full, as: UTF8.self).components(separatedBy: "\r\n\r\n")[0].utf8) + [13, 10, 13, 10]
        #expect(page.examine(Array("HTTP/1.1 413 Request Entity Too Large\r\nContent-Le".utf8), requestID: "r") == .incomplete)
        #expect(page.examine(headOnly, requestID: "r") == page.examine(full, requestID: "r"))
        let noLength = "HTTP/1.1 501 Not Implemented\r\nContent-Type: text/html\r\nConnection: close\r\n\r\n"
        guard case .replace(405, let bytes) = page.examine(Array(noLength.utf8), requestID: "r") else {
            Issue.record("expected a replacement")
            return
        }
        #expect(split(bytes).head.contains("Content-Length: "))
    }

    @Test("interim and successful responses are left alone")
    func keepsNonErrors() {
        #expect(page.examine(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), requestID: "r") == .keep(status: 100))
        #expect(page.examine(Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8), requestID: "r") == .keep(status: 200))
    }
}
