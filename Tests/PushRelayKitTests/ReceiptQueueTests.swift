import Foundation
import PushRelayKit
import Testing

/// The receipt queue's decisions, with no I/O: bound, collapse, batches, and what each answer leads to.
@Suite struct ReceiptQueueTests {
    func receipt(_ id: Int, _ event: ReceiptEvent = .received, at: Int64 = 1_700_000_000) -> Receipt {
        Receipt(msgID: String(id), event: event, at: at)
    }

    @Test func oneReceiptPerMessageAndEventTheFirstKept() {
        var queue = ReceiptQueue()
        queue.add(receipt(1, at: 10))
        queue.add(receipt(1, at: 20))
        queue.add(receipt(1, .opened, at: 30))
        #expect(queue.receipts == [receipt(1, at: 10), receipt(1, .opened, at: 30)])
    }

    @Test func pastItsCapacityTheOldestAreDropped() {
        var queue = ReceiptQueue()
        for id in 1...5 { #expect(queue.add(receipt(id), capacity: 5).isEmpty) }
        #expect(queue.add(receipt(6), capacity: 5) == [receipt(1)])
        #expect(queue.receipts.map(\.msgID) == ["2", "3", "4", "5", "6"])
        for id in 7...600 { queue.add(receipt(id)) }
        #expect(queue.receipts.count == 500)
        #expect(queue.receipts.first?.msgID == "101")
    }

    @Test func batchesHoldAtMostAHundredOldestFirst() {
        var queue = ReceiptQueue()
        for id in 1...250 { queue.add(receipt(id)) }
        var sizes: [Int] = []
        while case let batch = queue.nextBatch(), !batch.isEmpty {
            sizes.append(batch.count)
            #expect(batch.first == queue.receipts.first)
            #expect(queue.settle(batch, .accepted) == .send)
        }
        #expect(sizes == [100, 100, 50])
        #expect(queue.receipts.isEmpty)
    }

    @Test func aRefusedBatchIsHalvedUntilTheBadReceiptIsAloneAndDropped() {
        var queue = ReceiptQueue()
        for id in 1...8 { queue.add(receipt(id)) }
        let bad = receipt(3)
        var sent: [Int] = []
        while case let batch = queue.nextBatch(), !batch.isEmpty {
            sent.append(batch.count)
            #expect(queue.settle(batch, batch.contains(bad) ? .refused : .accepted) == .send)
        }
        #expect(sent == [8, 4, 2, 4, 2, 1, 5])
        #expect(queue.receipts.isEmpty, "the refused receipt was dropped, the others went")
        #expect(queue.batchLimit == ReceiptQueue.maxBatch)
    }

    @Test func failuresKeepTheBatch() {
        var queue = ReceiptQueue()
        queue.add(receipt(1))
        let batch = queue.nextBatch()
        #expect(queue.settle(batch, .failed) == .retryLater)
        #expect(queue.settle(batch, .unauthorized) == .renewSecret)
        #expect(queue.receipts == batch)
    }

    @Test func aQueueChangedMeanwhileIsSettledByMessageAndEvent() {
        var queue = ReceiptQueue()
        queue.add(receipt(1))
        queue.add(receipt(2))
        let batch = queue.nextBatch()
        // The other process sent receipt 1 and queued 3 meanwhile.
        _ = queue.settle([receipt(1)], .accepted)
        queue.add(receipt(3))
        _ = queue.settle(batch, .accepted)
        #expect(queue.receipts == [receipt(3)])
    }

    @Test func answersAreReadAsOutcomes() {
        #expect(ReceiptQueue.Outcome(.transport("offline")) == .failed)
        #expect(ReceiptQueue.Outcome(.api(status: 429, code: 2002, message: "", msgID: nil)) == .failed)
        #expect(ReceiptQueue.Outcome(.api(status: 502, code: 0, message: "", msgID: nil)) == .failed)
        #expect(ReceiptQueue.Outcome(.unreadableResponse(status: 503, body: "")) == .failed)
        #expect(ReceiptQueue.Outcome(.api(status: 401, code: 7004, message: "", msgID: nil)) == .unauthorized)
        #expect(ReceiptQueue.Outcome(.api(status: 403, code: 7004, message: "", msgID: nil)) == .unauthorized)
        #expect(ReceiptQueue.Outcome(.api(status: 400, code: 7002, message: "", msgID: nil)) == .refused)
        #expect(ReceiptQueue.Outcome(.unreadableResponse(status: 404, body: "")) == .refused)
    }

    @Test func msgIDsTravelAsThePayloadCarriesThem() throws {
        let encoded = try JSONEncoder().encode([Receipt(msgID: "18100013", event: .received, at: 5), Receipt(msgID: "x-1", event: .opened, at: 6)])
        let json = try #require(try JSONSerialization.jsonObject(with: encoded) as? [[String: Any]])
        #expect(json[0]["msg_id"] as? Int == 18100013)
        #expect(json[1]["msg_id"] as? String == "x-1")
        #expect(json[1]["event"] as? String == "opened" && json[1]["at"] as? Int == 6)
        let decoded = try JSONDecoder().decode([Receipt].self, from: Data(#"[{"msg_id":7,"event":"opened","at":1},{"msg_id":"7","event":"opened","at":1}]"#.utf8))
        #expect(decoded[0] == decoded[1])
        #expect(Receipt(msgID: "1", event: .received, at: Date(timeIntervalSince1970: 9.9)).at == 9)
    }
}
