import Testing
@testable import HTTPServer

/// The request-read deadline as a state machine: when the timer starts and stops.
@Suite struct RequestReadDeadlineTests {
    @Test func startsAtTheFirstByteAndStopsWhenTheRequestIsComplete() {
        var deadline = RequestReadDeadline()
        #expect(deadline.bytesArrived() == .arm)
        #expect(deadline.bytesArrived() == .none, "later bytes do not restart it: a trickle cannot extend it")
        #expect(deadline.requestComplete() == .disarm)
        #expect(deadline.phase == .handling)
        #expect(deadline.bytesArrived() == .none, "pipelined bytes during the handler start nothing")
        #expect(deadline.replyWritten(inputPending: false) == .none)
        #expect(deadline.phase == .waiting, "idle between requests: left to the idle timeout")
        #expect(deadline.bytesArrived() == .arm, "the next request has a deadline of its own")
    }

    @Test func aPipelinedRequestStartsItsDeadlineWhenTheReplyIsWritten() {
        var deadline = RequestReadDeadline()
        _ = deadline.bytesArrived()
        _ = deadline.requestComplete()
        #expect(deadline.replyWritten(inputPending: true) == .arm)
        #expect(deadline.phase == .receiving)
        #expect(deadline.requestComplete() == .disarm)
    }

    @Test func eventsOutOfOrderChangeNothing() {
        var deadline = RequestReadDeadline()
        #expect(deadline.replyWritten(inputPending: true) == .none, "no reply is written before a request")
        #expect(deadline.phase == .waiting)
        #expect(deadline.requestComplete() == .none, "a request complete with no timer running stops none")
    }
}
