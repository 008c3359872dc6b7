import APNSSimulator
import Foundation
import PostgresStore
import PushPipeline
import Testing
import TestSupport

/// Scheduled pushes end to end: the API writes schedules, schedulers fire them into the
/// pipeline, the pushes reach the APNs simulator. Fire times are a few seconds ahead, or
/// the scheduler's clock is moved; nothing sleeps for a fire time it can poll for.
@Suite(.serialized) struct ScheduleFiringTests {
    /// A single schedule two seconds ahead, in Berlin time, with the scheduler running on
    /// the real clock: it wakes for it, fires it once, and the push reaches the device.
    @Test func aScheduleDueInAMomentFiresOnceAndReachesTheSimulator() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "5a")[0]
            try await relay.pool.query("UPDATE devices SET alias = 'alarm' WHERE app_id = $1", [app.id])
            let scheduler = relay.makeScheduler()
            let running = Task { await scheduler.run() }
            defer { scheduler.stop() }

            let fireAt = Date().addingTimeInterval(2)
            let id = try await relay.createSchedule(app, [
                "name": "wake up", "enabled": true,
                "trigger": ["single": ["time": jpushTime(fireAt, zone: "Europe/Berlin"), "time_zone": "Europe/Berlin"]],
                "push": aliasPush("alarm", alert: "good morning"),
            ])
            let delivery = try await poll(timeout: .seconds(15), "the scheduled push at the simulator") {
                relay.simulator.deliveries(token: token).first
            }
            #expect(delivery.alert == "good morning")
            let due = Int64(fireAt.timeIntervalSince1970.rounded(.down)) * 1000
            #expect(delivery.receivedAt >= due, "not sent before its time (\(delivery.receivedAt) < \(due))")

            let listed = try await relay.request("GET", "/v3/schedules/\(id)/msg_ids", auth: app.auth)
            #expect(listed.status == 200)
            #expect(listed.json["count"] as? Int == 1)
            #expect((listed.json["msgids"] as? [String]) == [delivery.msgID.map(String.init) ?? "?"])

            // Another pass of the scheduler (woken by a change) does not fire it again.
            _ = try await scheduler.fireDue()
            #expect(try await relay.fires(id).map(\.outcome) == ["sent"])
            #expect(try await relay.messageIDs(app).count == 1)
            #expect(relay.simulator.deliveries(token: token).first?.count == 1)
            let shown = try await relay.request("GET", "/v3/schedules/\(id)", auth: app.auth)
            #expect((shown.json["next_fire_times"] as? [String]) == [], "a single schedule that fired has no next time")
            scheduler.stop()
            await running.value
        }
    }

    /// Two `pushrelay serve --role scheduler` processes against one database, twenty
    /// schedules due at the same moment: every schedule fires exactly once.
    @Test func twoRelayProcessesFireEachOccurrenceOnce() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let count = 20
            let tokens = try await relay.insertDevices(app, count: count, prefix: "5b")
            try await relay.pool.query("""
                UPDATE devices SET alias = 'user_' || (SELECT count(*) FROM devices d WHERE d.app_id = devices.app_id AND d.id < devices.id)
                WHERE app_id = $1
                """, [app.id])
            let processes = try (0..<2).map { _ in try startScheduler(relay) }
            defer { for process in processes where process.isRunning { process.terminate(); process.waitUntilExit() } }
            // Both are up once both LISTEN for schedule changes.
            try await poll(timeout: .seconds(30), interval: .milliseconds(50), "both schedulers to listen") {
                for process in processes where !process.isRunning { throw HarnessError("scheduler exited \(process.terminationStatus)") }
                let listening = try await relay.pool.query(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'LISTEN \(ScheduleChannel.name)'").first?.int("n")
                return listening == 2 ? true : nil
            }
            let time = jpushTime(Date().addingTimeInterval(2))
            var ids: [String] = []
            for index in 0..<count {
                ids.append(try await relay.createSchedule(app, [
                    "name": "race \(index)", "enabled": true, "trigger": ["single": ["time": time]],
                    "push": aliasPush("user_\(index)", alert: "race \(index)"),
                ]))
            }
            try await poll(timeout: .seconds(20), "every scheduled push at the simulator") {
                relay.simulator.stats.accepted >= count ? true : nil
            }
            for id in ids { #expect(try await relay.fires(id).map(\.outcome) == ["sent"], "schedule \(id)") }
            #expect(try await relay.messageIDs(app).count == count)
            let pending = try await relay.pool.query("SELECT count(*) AS n FROM schedules WHERE next_fire_at IS NOT NULL").first?.int("n")
            #expect(pending == 0)
            for (index, token) in tokens.enumerated() {
                let delivery = relay.simulator.deliveries(token: token).first
                #expect(delivery?.count == 1 && delivery?.alert == "race \(index)", "device \(index): \(String(describing: delivery))")
            }
        }
    }

    /// The relay was down across two fire times and comes back 15 minutes later (the
    /// scheduler's clock is moved): with a 10-minute grace, the occurrence one minute late
    /// still fires; the one 15 minutes late is recorded as missed and never sent.
    @Test func aRelayDownAcrossAFireTimeCatchesUpWithinTheGracePeriod() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let tokens = try await relay.insertDevices(app, count: 2, prefix: "5c")
            try await relay.pool.query("UPDATE devices SET alias = CASE WHEN token = $2 THEN 'early' ELSE 'late' END WHERE app_id = $1",
                                       [app.id, tokens[0]])
            let now = Date()
            let old = try await relay.createSchedule(app, [
                "name": "too old", "enabled": true, "trigger": ["single": ["time": jpushTime(now.addingTimeInterval(5))]],
                "push": aliasPush("early", alert: "stale"),
            ])
            let recent = try await relay.createSchedule(app, [
                "name": "recent", "enabled": true, "trigger": ["single": ["time": jpushTime(now.addingTimeInterval(14 * 60))]],
                "push": aliasPush("late", alert: "still worth it"),
            ])
            // The relay comes back 15 minutes after `now`.
            let clock = MovableClock()
            clock.advance(by: 15 * 60)
            let scheduler = relay.makeScheduler(clock: clock, grace: 600)
            _ = try await scheduler.fireDue()

            #expect(try await relay.fires(old).map(\.outcome) == ["missed"])
            #expect(try await relay.fires(recent).map(\.outcome) == ["sent"])
            let delivery = try await poll(timeout: .seconds(10), "the caught-up push") { relay.simulator.deliveries(token: tokens[1]).first }
            #expect(delivery.alert == "still worth it")
            #expect(relay.simulator.deliveries(token: tokens[0]).isEmpty, "a missed occurrence is not sent late")
            let missed = try await relay.request("GET", "/v3/schedules/\(old)/msg_ids", auth: app.auth)
            #expect(missed.json["count"] as? Int == 0)
        }
    }

    /// A daily schedule: the first occurrence fires with the first push; a PUT of the push
    /// changes what the next day's occurrence sends; after a DELETE the day after sends
    /// nothing.
    @Test func updateAndDeleteTakeEffectOnTheNextOccurrence() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "5d")[0]
            try await relay.pool.query("UPDATE devices SET alias = 'daily' WHERE app_id = $1", [app.id])
            let now = Date()
            let id = try await relay.createSchedule(app, [
                "name": "daily", "enabled": true,
                "trigger": ["periodical": [
                    "start": jpushTime(now.addingTimeInterval(-3600)), "end": jpushTime(now.addingTimeInterval(10 * 86_400)),
                    "time": jpushTime(now.addingTimeInterval(2), format: "HH:mm:ss"), "time_unit": "day", "frequency": 1,
                ]],
                "push": aliasPush("daily", alert: "day one"),
            ])
            let clock = MovableClock()
            let scheduler = relay.makeScheduler(clock: clock)
            let shown = try await relay.request("GET", "/v3/schedules/\(id)", auth: app.auth)
            #expect((shown.json["next_fire_times"] as? [String])?.count == 5)

            clock.advance(by: 5)
            _ = try await scheduler.fireDue()
            var delivered = try await poll(timeout: .seconds(10), "day one") { relay.simulator.deliveries(token: token).first }
            #expect(delivered.alert == "day one")

            let updated = try await relay.request("PUT", "/v3/schedules/\(id)", auth: app.auth,
                                                  json: ["push": aliasPush("daily", alert: "day two, changed")])
            #expect(updated.status == 200, "\(updated.text)")
            #expect(((updated.json["push"] as? [String: Any])?["notification"] as? [String: Any])?["alert"] as? String == "day two, changed")
            #expect(updated.json["name"] as? String == "daily", "sections not sent are kept")
            clock.advance(by: 86_400)
            _ = try await scheduler.fireDue()
            delivered = try await poll(timeout: .seconds(10), "day two") {
                relay.simulator.deliveries(token: token).first.flatMap { $0.count == 2 ? $0 : nil }
            }
            #expect(delivered.alert == "day two, changed")

            let deleted = try await relay.request("DELETE", "/v3/schedules/\(id)", auth: app.auth)
            #expect(deleted.status == 200)
            clock.advance(by: 86_400)
            _ = try await scheduler.fireDue()
            #expect(try await relay.messageIDs(app).count == 2, "no push after the delete")
            let gone = try await relay.request("GET", "/v3/schedules/\(id)", auth: app.auth)
            #expect(gone.status == 404 && gone.errorCode == 8104)
        }
    }

    // MARK: The scheduler as a process

    private func startScheduler(_ relay: PipelineHarness) throws -> Process {
        var environment = ProcessInfo.processInfo.environment
        environment["PUSHRELAY_DATABASE_URL"] = relay.databaseURL
        environment["PUSHRELAY_ADMIN_TOKEN"] = PipelineHarness.adminToken
        environment["PUSHRELAY_DATA_DIR"] = relay.directory.appendingPathComponent("data").path
        environment["PUSHRELAY_LOG_LEVEL"] = "error"
        environment["PUSHRELAY_DB_POOL_SIZE"] = "4"
        environment["PUSHRELAY_SECRET_KEY"] = String(repeating: "ab", count: 32)
        // Its /healthz, /readyz and /metrics, on a port of its own.
        environment["PUSHRELAY_LISTEN"] = "127.0.0.1:\(try TestProcess.freePort())"
        let process = Process()
        process.executableURL = try binary()
        process.arguments = ["serve", "--role", "scheduler"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// The `pushrelay` binary built beside this test bundle.
    private func binary() throws -> URL {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("pushrelay")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw HarnessError("pushrelay binary not found near \(directory.path); run `swift build` first")
    }
}
