import Foundation
import HTTPServer
import RelayCore
import RelayCrypto
import Synchronization
import TestSupport

/// A webhook receiver on 127.0.0.1 (port 0), on the project's HTTP server: it records each
/// request and answers the status `answer` gives for the request's number (1, 2, …), when
/// `answer` returns (a slow receiver sleeps in it).
final class WebhookReceiver: HTTPResponder {
    struct Received: Sendable {
        var signature: String?
        var contentType: String?
        var body: [UInt8]
        /// What the receiver answered (0 until it did).
        var status = 0

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var events: [[String: Any]] { json["events"] as? [[String: Any]] ?? [] }

        /// Whether the signature header is `t=…,v1=HMAC(secret, t.body)`.
        func isSigned(with secret: String) -> Bool {
            guard let signature, let t = signature.split(separator: ",").first?.dropFirst(2), let timestamp = Int64(t) else { return false }
            return signature == WebhookSignature.header(secret: Array(secret.utf8), timestamp: timestamp, body: body)
        }
    }

    private let answer: @Sendable (Int) async -> Int
    private let received = Mutex<[Received]>([])
    private let server = Mutex<HTTPServer?>(nil)
    private let boundPort = Atomic<Int>(0)
    var port: Int { boundPort.load(ordering: .relaxed) }

    init(answer: @escaping @Sendable (Int) async -> Int = { _ in 200 }) {
        self.answer = answer
    }

    static func start(answer: @escaping @Sendable (Int) async -> Int = { _ in 200 }) throws -> WebhookReceiver {
        let receiver = WebhookReceiver(answer: answer)
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 1
        let server = HTTPServer(configuration: configuration, responder: receiver, logger: TestDatabase.quietLogger)
        receiver.boundPort.store(try server.start(), ordering: .relaxed)
        receiver.server.withLock { $0 = server }
        return receiver
    }

    var url: String { "http://127.0.0.1:\(port)/hooks/pushrelay" }
    var requests: [Received] { received.withLock { $0 } }

    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let number = received.withLock { list in
            list.append(Received(signature: request.headers["X-PushRelay-Signature"], contentType: request.headers["Content-Type"],
                                 body: request.body))
            return list.count
        }
        let status = await answer(number)
        received.withLock { $0[number - 1].status = status }
        return HTTPResponse(status: status, body: Array("ok".utf8))
    }

    /// The events of the requests answered 2xx: how many different ones (by id), and the
    /// copies beyond the first.
    var taken: (events: Int, duplicates: Int) {
        let ids = requests.filter { (200..<300).contains($0.status) }.flatMap(\.events).compactMap { $0["id"] as? String }
        let distinct = Set(ids).count
        return (distinct, ids.count - distinct)
    }

    func response(to rejection: HTTPRejection) -> HTTPResponse { HTTPResponse(status: 400) }

    func stop() async {
        await server.withLock { $0 }?.shutdown()
    }
}
