import Foundation
import RelayCore
import Testing
@testable import Scheduling

@Suite struct ScheduleRequestTests {
    private let now = utc("2026-03-01 12:00:00")
    private let single = #"{"single": {"time": "2026-05-01 09:00:00"}}"#
    private let push = #"{"platform": "all", "audience": "all", "notification": {"alert": "hi"}}"#

    private func create(_ text: String) throws -> ScheduleRequest {
        try ScheduleRequest(json: json(text), defaultTimeZone: zone("UTC"), now: now)
    }

    private func createError(_ text: String) -> JPushError? {
        do {
            _ = try create(text)
            return nil
        } catch let error as JPushError {
            return error
        } catch {
            return nil
        }
    }

    @Test func aCreateReadsEverySection() throws {
        let request = try create(#"{"cid": "c-1", "name": "morning", "enabled": true, "trigger": \#(single), "push": \#(push)}"#)
        #expect(request.cid == "c-1")
        #expect(request.name == "morning")
        #expect(request.enabled)
        #expect(request.trigger.nextFireTime(after: now) == utc("2026-05-01 09:00:00"))
        #expect(request.push == (try json(push)))
    }

    @Test(arguments: [
        (#"{"enabled": true, "trigger": TRIGGER, "push": PUSH}"#, "name is required"),
        (#"{"name": "n", "trigger": TRIGGER, "push": PUSH}"#, "enabled is required"),
        (#"{"name": "n", "enabled": true, "push": PUSH}"#, "trigger is required"),
        (#"{"name": "n", "enabled": true, "trigger": TRIGGER}"#, "push is required"),
        (#"{"name": "", "enabled": true, "trigger": TRIGGER, "push": PUSH}"#, "name must be 1 to 255 bytes, got 0"),
        (#"{"name": 5, "enabled": true, "trigger": TRIGGER, "push": PUSH}"#, "name must be a string, got a number"),
        (#"{"name": "n", "enabled": "yes", "trigger": TRIGGER, "push": PUSH}"#, "enabled must be true or false, got a string"),
        (#"{"name": "n", "enabled": true, "trigger": TRIGGER, "push": "all"}"#, "push must be a JSON object, got a string"),
        (#"{"name": "n", "enabled": true, "trigger": {"single": {}}, "push": PUSH}"#, "trigger.single.time is required"),
        (#"{"name": "n", "enabled": true, "trigger": TRIGGER, "push": PUSH, "owner": 1}"#, #"unknown field "owner""#),
        (#"{"name": "n", "enabled": true, "trigger": TRIGGER, "push": PUSH, "cid": 7}"#, "cid must be a string, got a number"),
        (#"[1]"#, "request body must be a JSON object, got an array"),
    ])
    func badCreatesGet8100NamingTheField(template: String, message: String) {
        let text = template.replacingOccurrences(of: "TRIGGER", with: single).replacingOccurrences(of: "PUSH", with: push)
        let failure = createError(text)
        #expect(failure?.code == 8100 && failure?.status == 400)
        #expect(failure?.message == message)
    }

    @Test func namesAreLimitedTo255BytesNotCharacters() throws {
        let fits = String(repeating: "é", count: 127) + "a"   // 255 bytes
        #expect(try create(#"{"name": "\#(fits)", "enabled": false, "trigger": \#(single), "push": \#(push)}"#).name == fits)
        let tooLong = String(repeating: "é", count: 128)      // 128 characters, 256 bytes
        #expect(createError(#"{"name": "\#(tooLong)", "enabled": false, "trigger": \#(single), "push": \#(push)}"#)?.message
                == "name must be 1 to 255 bytes, got 256")
    }

    @Test func anUpdateReplacesOnlyTheSectionsItHolds() throws {
        let current = try create(#"{"cid": "c-1", "name": "morning", "enabled": true, "trigger": \#(single), "push": \#(push)}"#)
        let update = try ScheduleUpdate(json: json(#"{"enabled": false, "trigger": {"single": {"time": "2026-06-01 09:00:00"}}}"#),
                                        defaultTimeZone: zone("UTC"), now: now)
        let updated = update.applied(to: current)
        #expect(updated.enabled == false)
        #expect(updated.trigger.nextFireTime(after: now) == utc("2026-06-01 09:00:00"))
        #expect(updated.name == "morning" && updated.cid == "c-1" && updated.push == current.push)
    }

    @Test func anUpdateNeedsASectionAndChecksItsTrigger() throws {
        #expect(throws: JPushError.invalidSchedule("an update must hold at least one of name, enabled, trigger, push")) {
            try ScheduleUpdate(json: json("{}"), defaultTimeZone: zone("UTC"), now: now)
        }
        #expect(throws: JPushError.invalidSchedule(#"unknown field "cid""#)) {
            try ScheduleUpdate(json: json(#"{"cid": "c-2"}"#), defaultTimeZone: zone("UTC"), now: now)
        }
        #expect(throws: JPushError.invalidSchedule("trigger.single.time 2026-02-01 09:00:00 is in the past in GMT")) {
            try ScheduleUpdate(json: json(#"{"trigger": {"single": {"time": "2026-02-01 09:00:00"}}}"#), defaultTimeZone: zone("UTC"), now: now)
        }
    }
}
