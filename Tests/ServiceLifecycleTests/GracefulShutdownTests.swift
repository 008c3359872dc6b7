@testable import ServiceLifecycle
import Testing

/// How a service hears its graceful shutdown: handlers and `gracefulShutdown()`.
@Suite struct GracefulShutdownTests {
    @Test func aHandlerRunsOnceAtTheTriggerAndOnlyWhileItsOperationRuns() async {
        let trigger = GracefulShutdownTrigger()
        let journal = Journal()
        await trigger.bind {
            await withGracefulShutdownHandler {} onGracefulShutdown: { journal.append("finished operation") }
            await withGracefulShutdownHandler {
                trigger.trigger()
                trigger.trigger()
            } onGracefulShutdown: { journal.append("running operation") }
        }
        #expect(journal.entries == ["running operation"])
    }

    @Test func aHandlerRegisteredAfterTheTriggerRunsAtOnce() async {
        let trigger = GracefulShutdownTrigger()
        trigger.trigger()
        let journal = Journal()
        await trigger.bind {
            await withGracefulShutdownHandler {
                #expect(journal.entries == ["handler"])
            } onGracefulShutdown: { journal.append("handler") }
            await gracefulShutdown()
        }
    }

    @Test func outsideAGroupGracefulShutdownReturnsOnCancellation() async {
        let waiter = Task { await gracefulShutdown() }
        waiter.cancel()
        await waiter.value
    }
}
