import EventLoops
import Foundation
import Testing

@Suite("EventLoopGroup")
struct EventLoopGroupTests {
    @Test("next() hands out the loops in turn")
    func roundRobin() async throws {
        let group = try EventLoopGroup(loopCount: 3, name: "round-robin")
        let picked = (0..<7).map { _ in ObjectIdentifier(group.next()) }
        let loops = group.loops.map(ObjectIdentifier.init)
        #expect(picked == [loops[0], loops[1], loops[2], loops[0], loops[1], loops[2], loops[0]])
        await group.shutdown()
    }

    @Test("jobs run on their loop's thread, and only there is inEventLoop true")
    func jobsRunOnTheLoop() async throws {
        let group = try EventLoopGroup(loopCount: 2, name: "jobs")
        let (first, second) = (group.loops[0], group.loops[1])
        #expect(!first.inEventLoop)
        let seen = try await first.submit {
            (first.inEventLoop, second.inEventLoop, try String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))
        }
        #expect(seen.0 && !seen.1)
        #expect(seen.2 == "jobs-0\n", "the kernel knows the loop's thread by its name")
        await group.shutdown()
    }

    @Test("a stopped loop refuses jobs instead of dropping them silently")
    func stoppedLoopRefuses() async throws {
        let group = try EventLoopGroup(loopCount: 1, name: "stopped")
        let loop = group.loops[0]
        await group.shutdown()
        #expect(!loop.execute {})
        await #expect(throws: EventLoopError.self) { try await loop.submit { 1 } }
    }

    @Test("a LoopBound value is reached on its loop, by jobs run in the order queued")
    func loopBoundOnItsLoop() async throws {
        let group = try EventLoopGroup(loopCount: 1, name: "bound")
        let loop = group.loops[0]
        let bound = LoopBound(handingOver: OrderBox(), to: loop)
        for index in 0..<3 { bound.execute { $0.values.append(index) } }
        #expect(try await loop.submit { bound.value.values } == [0, 1, 2])
        await group.shutdown()
    }

    #if DEBUG
    @Test("a LoopBound value reached off its loop traps in debug builds")
    func loopBoundOffItsLoopTraps() async {
        await #expect(processExitsWith: .failure) {
            let group = try EventLoopGroup(loopCount: 1, name: "trap")
            let bound = LoopBound(handingOver: OrderBox(), to: group.loops[0])
            _ = bound.value.values
        }
    }
    #endif
}

/// A loop-confined, non-Sendable value.
final class OrderBox {
    var values: [Int] = []
}
