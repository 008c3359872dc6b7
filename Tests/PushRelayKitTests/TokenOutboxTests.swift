import PushRelayKit
import Testing

/// The token outbox's rules, without I/O: nothing sent twice, rotation replaces in place,
/// an activity's token before its state and none after its end, bounded, and what each
/// answer of the relay leads to.
@Suite struct TokenOutboxTests {
    static let start = TokenReport.startToken(attributesType: "DeliveryAttributes", token: "aa01")
    static func token(_ id: String, _ token: String) -> TokenReport { .activityToken(activityID: id, token: token) }
    static func state(_ id: String, _ state: LiveActivityState) -> TokenReport { .activityState(activityID: id, state: state) }

    /// The outbox behind a reference, so `#expect` may call its mutating methods.
    final class Box {
        var outbox: TokenOutbox
        init(_ outbox: TokenOutbox = TokenOutbox()) { self.outbox = outbox }
        var pending: [TokenReport] { outbox.pending }
        func next() -> TokenReport? { outbox.next() }
        @discardableResult func add(_ report: TokenReport) -> Bool { outbox.add(report) }
        func settle(_ report: TokenReport, _ outcome: TokenOutbox.Outcome) -> TokenOutbox.Next { outbox.settle(report, outcome) }
    }

    /// Sends everything queued as if the relay took it.
    static func drain(_ outbox: Box) -> [TokenReport] {
        var sent: [TokenReport] = []
        while let next = outbox.next() {
            sent.append(next)
            #expect(outbox.settle(next, .accepted) == .send)
        }
        return sent
    }

    @Test func anUnchangedTokenIsNotSentAgain() {
        let outbox = Box()
        #expect(outbox.add(Self.start))
        #expect(Self.drain(outbox) == [Self.start])
        // ActivityKit hands out the same token at the next launch or subscription.
        #expect(!outbox.add(Self.start))
        #expect(outbox.next() == nil)
        let voip = TokenReport.deviceToken(.voip, token: "bb01")
        #expect(outbox.add(voip) && Self.drain(outbox) == [voip])
        #expect(!outbox.add(voip))
        // A new one is.
        let rotated = TokenReport.startToken(attributesType: "DeliveryAttributes", token: "aa02")
        #expect(outbox.add(rotated) && Self.drain(outbox) == [rotated])
    }

    @Test func aRotatedTokenReplacesTheQueuedOneInItsPlace() {
        let outbox = Box()
        outbox.add(Self.token("A", "t1"))
        outbox.add(Self.state("A", .active))
        outbox.add(Self.token("A", "t2"))
        #expect(outbox.pending == [Self.token("A", "t2"), Self.state("A", .active)], "the token still goes before the state")
        // Rotating back to what the relay holds needs nothing sent.
        #expect(Self.drain(outbox) == [Self.token("A", "t2"), Self.state("A", .active)])
        outbox.add(Self.token("A", "t3"))
        #expect(!outbox.add(Self.token("A", "t2")))
        #expect(outbox.pending.isEmpty)
    }

    /// A's token and state, then B's token, then A's `last` state.
    static func twoActivities(_ last: LiveActivityState) -> Box {
        let outbox = Box()
        for report in [token("A", "t1"), state("A", .active), token("B", "u1"), state("A", last)] { outbox.add(report) }
        return outbox
    }

    @Test func statesGoInOrderAndTheNewestWins() {
        let outbox = Self.twoActivities(.stale)
        #expect(outbox.pending == [Self.token("A", "t1"), Self.state("A", .stale), Self.token("B", "u1")])
        #expect(Self.drain(outbox).count == 3)
        #expect(!outbox.add(Self.state("A", .stale)), "the relay has it")
        #expect(outbox.add(Self.state("A", .active)), "back from stale")
    }

    @Test func anEndedActivityReportsNoMoreTokens() {
        let outbox = Self.twoActivities(.ended)
        #expect(outbox.pending == [Self.state("A", .ended), Self.token("B", "u1")], "A's queued token is dropped")
        #expect(!outbox.add(Self.token("A", "t2")), "nor are new ones queued")
        #expect(Self.drain(outbox) == [Self.state("A", .ended), Self.token("B", "u1")])
        #expect(outbox.add(Self.state("A", .dismissed)))
        #expect(Self.drain(outbox) == [Self.state("A", .dismissed)])
        #expect(!outbox.add(Self.token("A", "t3")))
    }

    @Test func theRelaysAnswersDecideWhatHappens() {
        let outbox = Box()
        outbox.add(Self.start)
        outbox.add(Self.token("A", "t1"))
        #expect(outbox.settle(Self.start, .failed) == .retryLater)
        #expect(outbox.next() == Self.start, "kept for the retry")
        #expect(outbox.settle(Self.start, .unauthorized) == .renewSecret)
        #expect(outbox.next() == Self.start)
        // Refused (400, 404): dropped, never retried; the next goes.
        #expect(outbox.settle(Self.start, .refused) == .send)
        #expect(outbox.next() == Self.token("A", "t1"))
        #expect(outbox.add(Self.start), "refused is not taken: the same token may be reported again")
        // A token rotated while its report was in flight: the newer one stays queued.
        outbox.add(Self.token("A", "t2"))
        #expect(outbox.settle(Self.token("A", "t1"), .accepted) == .send)
        #expect(outbox.pending == [Self.token("A", "t2"), Self.start])
    }

    @Test func theQueueIsBounded() {
        let outbox = Box(TokenOutbox(capacity: 3))
        for n in 1...5 { outbox.add(Self.token("A\(n)", "t\(n)")) }
        #expect(outbox.pending == [Self.token("A3", "t3"), Self.token("A4", "t4"), Self.token("A5", "t5")], "the oldest dropped")
    }
}
