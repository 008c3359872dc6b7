import Testing
@testable import APNSClient

@Suite struct DequeTests {
    @Test func fifoWithRetriesAtTheFrontAcrossGrowth() {
        var queue = Deque<Int>()
        for value in 1...40 { queue.append(value) }  // grows past the initial 16 slots
        #expect(queue.popFirst() == 1)
        #expect(queue.popFirst() == 2)
        queue.prepend(2)
        queue.prepend(1)
        queue.prepend(0)
        #expect(queue.count == 41)
        var order: [Int] = []
        while let value = queue.popFirst() { order.append(value) }
        #expect(order == Array(0...40))
        #expect(queue.isEmpty)
    }

    @Test func removeAllKeepsTheOrderOfTheRest() {
        var queue = Deque<Int>()
        for value in 1...20 { queue.append(value) }
        queue.prepend(0)
        let removed = queue.removeAll { $0 % 3 == 0 }
        #expect(removed == [0, 3, 6, 9, 12, 15, 18])
        var order: [Int] = []
        while let value = queue.popFirst() { order.append(value) }
        #expect(order == [1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17, 19, 20])
    }
}
