import Foundation
import Testing
@testable import RelayCore

/// The schedule settings: the default zone of triggers and the catch-up grace period.
@Suite struct ScheduleConfigurationTests {
    @Test func defaultsAreUTCAndTenMinutes() throws {
        let configuration = try RelayConfiguration.parse([:])
        // Foundation on Linux names UTC "GMT".
        #expect(["UTC", "GMT"].contains(configuration.timeZone.identifier) && configuration.timeZone.secondsFromGMT() == 0)
        #expect(configuration.scheduleGraceSeconds == 600)
    }

    @Test func zoneAndGraceAreRead() throws {
        let configuration = try RelayConfiguration.parse(["PUSHRELAY_TIME_ZONE": "America/New_York", "PUSHRELAY_SCHEDULE_GRACE_SECONDS": "0"])
        #expect(configuration.timeZone.identifier == "America/New_York")
        #expect(configuration.scheduleGraceSeconds == 0)
    }

    @Test func badValuesAreRefusedNamingTheVariable() {
        for (name, value) in [("PUSHRELAY_TIME_ZONE", "Mars/Olympus"), ("PUSHRELAY_SCHEDULE_GRACE_SECONDS", "-1"),
                              ("PUSHRELAY_SCHEDULE_GRACE_SECONDS", "ten")] {
            #expect { try RelayConfiguration.parse([name: value]) } throws: { ($0 as? RelayConfiguration.Error)?.description.contains(name) == true }
        }
    }
}
