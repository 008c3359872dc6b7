import Testing
@testable import APNSClient

/// `RequestQueue`: urgent requests leave before every other, each kind in order, and one
/// put back goes out next among its kind.
@Suite struct RequestQueueTests {
    /// Requests named by their notification's token; their results go nowhere that is read.
    private func requests(_ names: [String], urgent: Bool, batch: SendBatch) -> [PendingRequest] {
        names.enumerated().map { index, name in
            PendingRequest(message: APNSNotification(deviceToken: name, topic: "com.example.app", payload: Array("{}".utf8)),
                           recipient: .batch(batch, index: index), queuedAt: 0, urgent: urgent)
        }
    }

    private func drain(_ queue: inout RequestQueue) -> [String] {
        var names: [String] = []
        while let request = queue.popFirst() {
            names.append(request.token)
            request.finish(.failed(.shutdown))
        }
        return names
    }

    @Test func urgentRequestsLeaveFirstEachKindInOrder() {
        let batch = SendBatch(count: 5, limiter: AsyncLimiter(limit: 5))
        let bulk = requests(["b1", "b2", "b3"], urgent: false, batch: batch)
        let urgent = requests(["u1", "u2"], urgent: true, batch: batch)
        var queue = RequestQueue()
        #expect(queue.isEmpty)
        queue.append(bulk[0])
        queue.append(bulk[1])
        queue.append(urgent[0])
        queue.append(bulk[2])
        queue.append(urgent[1])
        let first = queue.popFirst()!
        let second = queue.popFirst()!
        #expect([first, second].map(\.token) == ["u1", "u2"])
        // Put back (a connection that could not take them): each goes out next among its kind.
        queue.prepend(second)
        let third = queue.popFirst()!
        queue.prepend(third)
        first.finish(.failed(.shutdown))
        #expect(drain(&queue) == ["u2", "b1", "b2", "b3"])
        #expect(queue.isEmpty)
    }

    @Test func removeAllTakesFromBothKinds() {
        let batch = SendBatch(count: 4, limiter: AsyncLimiter(limit: 4))
        var queue = RequestQueue()
        for request in requests(["b1", "b2"], urgent: false, batch: batch) + requests(["u1", "u2"], urgent: true, batch: batch) {
            queue.append(request)
        }
        let removed = queue.removeAll { $0.token.hasSuffix("1") }
        #expect(removed.map(\.token) == ["u1", "b1"])
        for request in removed { request.finish(.failed(.shutdown)) }
        #expect(drain(&queue) == ["u2", "b2"])
    }
}

extension PendingRequest {
    /// The device token of the notification it carries (the tests' requests' names).
    var token: String { (message as? APNSNotification)?.deviceToken ?? "" }
}
