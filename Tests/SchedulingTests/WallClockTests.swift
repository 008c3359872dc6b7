import Foundation
import Testing
@testable import Scheduling

@Suite struct WallClockTests {
    private func local(_ text: String) -> LocalDateTime { LocalDateTime(jpush: text)! }

    @Test func ordinaryReadingsMapToTheirInstant() {
        #expect(zone("Europe/Berlin").instant(of: local("2026-07-01 09:00:00")) == utc("2026-07-01 07:00:00"))
        #expect(zone("Europe/Berlin").instant(of: local("2026-01-15 09:00:00")) == utc("2026-01-15 08:00:00"))
        #expect(zone("America/New_York").instant(of: local("2026-01-15 09:00:00")) == utc("2026-01-15 14:00:00"))
        #expect(zone("UTC").instant(of: local("2026-01-15 09:00:00")) == utc("2026-01-15 09:00:00"))
    }

    @Test func aSkippedReadingResolvesToTheEndOfTheGap() {
        let berlin = zone("Europe/Berlin")
        // 2026-03-29: 02:00 CET jumps to 03:00 CEST at 01:00 UTC.
        #expect(berlin.instant(of: local("2026-03-29 01:59:59")) == utc("2026-03-29 00:59:59"))
        #expect(berlin.instant(of: local("2026-03-29 02:00:00")) == utc("2026-03-29 01:00:00"))
        #expect(berlin.instant(of: local("2026-03-29 02:30:00")) == utc("2026-03-29 01:00:00"))
        #expect(berlin.instant(of: local("2026-03-29 02:59:59")) == utc("2026-03-29 01:00:00"))
        #expect(berlin.instant(of: local("2026-03-29 03:00:00")) == utc("2026-03-29 01:00:00"))
        // 2026-03-08: 02:00 EST jumps to 03:00 EDT at 07:00 UTC.
        #expect(zone("America/New_York").instant(of: local("2026-03-08 02:30:00")) == utc("2026-03-08 07:00:00"))
    }

    @Test func aRepeatedReadingResolvesToItsFirstOccurrence() {
        // 2026-10-25: Berlin's 02:00–03:00 happens in CEST (00:00–01:00 UTC), then in CET.
        #expect(zone("Europe/Berlin").instant(of: local("2026-10-25 02:30:00")) == utc("2026-10-25 00:30:00"))
        #expect(zone("Europe/Berlin").instant(of: local("2026-10-25 03:00:00")) == utc("2026-10-25 02:00:00"))
        // 2026-11-01: New York's 01:00–02:00 happens in EDT (05:00–06:00 UTC), then in EST.
        #expect(zone("America/New_York").instant(of: local("2026-11-01 01:30:00")) == utc("2026-11-01 05:30:00"))
        #expect(zone("America/New_York").instant(of: local("2026-11-01 02:00:00")) == utc("2026-11-01 07:00:00"))
    }

    /// Every quarter hour of 2026 reads back to itself, except the second pass through a
    /// repeated hour, which resolves to the first.
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"])
    func readingsRoundTripAllYear(name: String) {
        let zone = zone(name)
        var instant = utc("2026-01-01 00:00:00")
        let end = utc("2027-01-01 00:00:00")
        var repeated = 0
        while instant < end {
            let resolved = zone.instant(of: zone.localDateTime(at: instant))
            if resolved != instant {
                // Only a later pass through a repeated reading may differ, and it goes back.
                #expect(resolved < instant)
                #expect(zone.localDateTime(at: resolved) == zone.localDateTime(at: instant))
                repeated += 1
            }
            instant += 900
        }
        #expect(repeated == (name == "Asia/Kolkata" ? 0 : name == "Australia/Lord_Howe" ? 2 : 4))
    }
}
