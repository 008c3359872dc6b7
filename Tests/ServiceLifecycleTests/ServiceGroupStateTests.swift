import Foundation
import ServiceLifecycle
import Testing

/// The group's decisions: the order of the stops and the exit code.
@Suite struct ServiceGroupStateTests {
    @Test func aSignalStopsTheServicesInReverseOrderOneAtATime() {
        var state = ServiceGroupState(serviceCount: 3)
        #expect(state.signalReceived(SIGTERM) == .shutDown(2))
        #expect(state.isAwaiting(2))
        #expect(state.serviceReturned(2, threw: false) == .shutDown(1))
        #expect(state.serviceReturned(1, threw: false) == .shutDown(0))
        #expect(state.serviceReturned(0, threw: false) == .exit(0))
    }

    @Test func aServiceEndingOnItsOwnStopsTheOthersAndTheExitIsOne() {
        var state = ServiceGroupState(serviceCount: 3)
        #expect(state.serviceReturned(1, threw: false) == .shutDown(2))
        #expect(state.serviceReturned(2, threw: false) == .shutDown(0))
        #expect(state.serviceReturned(0, threw: false) == .exit(1))
    }

    @Test func aServiceThrowingOnItsOwnIsAFailureToo() {
        var state = ServiceGroupState(serviceCount: 1)
        #expect(state.serviceReturned(0, threw: true) == .exit(1))
    }

    @Test func aSecondSignalExitsAtOnceWith128PlusTheSignal() {
        var state = ServiceGroupState(serviceCount: 2)
        #expect(state.signalReceived(SIGTERM) == .shutDown(1))
        #expect(state.signalReceived(SIGTERM) == .exit(128 + SIGTERM))
        // Nothing after the exit.
        #expect(state.signalReceived(SIGINT) == .none)
        #expect(state.serviceReturned(1, threw: false) == .none)
    }

    @Test func aSecondSignalAfterAServiceEndedEarlyExitsAtOnceToo() {
        var state = ServiceGroupState(serviceCount: 2)
        #expect(state.serviceReturned(0, threw: true) == .shutDown(1))
        #expect(state.signalReceived(SIGINT) == .exit(128 + SIGINT))
    }

    @Test func aServiceThrowingWhileItStopsMakesTheExitNonZero() {
        var state = ServiceGroupState(serviceCount: 2)
        #expect(state.signalReceived(SIGINT) == .shutDown(1))
        #expect(state.serviceReturned(1, threw: true) == .shutDown(0))
        #expect(state.serviceReturned(0, threw: false) == .exit(1))
    }

    @Test func aServiceEndingOutOfTurnIsAFailureAndIsNotAskedToStop() {
        var state = ServiceGroupState(serviceCount: 3)
        #expect(state.signalReceived(SIGTERM) == .shutDown(2))
        #expect(state.serviceReturned(0, threw: false) == .none)
        #expect(state.serviceReturned(2, threw: false) == .shutDown(1))
        #expect(state.serviceReturned(1, threw: false) == .exit(1))
    }

    @Test func aServiceReturnsOnlyOnce() {
        var state = ServiceGroupState(serviceCount: 2)
        #expect(state.signalReceived(SIGTERM) == .shutDown(1))
        #expect(state.serviceReturned(1, threw: false) == .shutDown(0))
        #expect(state.serviceReturned(1, threw: true) == .none)
        #expect(state.serviceReturned(0, threw: false) == .exit(0))
    }

    @Test func noServicesExitAtTheSignal() {
        var state = ServiceGroupState(serviceCount: 0)
        #expect(state.signalReceived(SIGTERM) == .exit(0))
    }
}
