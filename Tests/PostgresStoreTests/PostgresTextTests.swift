import Foundation
import Testing
@testable import PostgresStore

/// Text formats and error mapping: no server needed.
@Suite("PostgresText")
struct PostgresTextTests {
    @Test("bytea hex encodes and decodes; malformed text is refused")
    func byteaHex() {
        #expect(PostgresText.byteaHex([0x00, 0x0f, 0xa0, 0xff]) == #"\x000fa0ff"#)
        #expect(PostgresText.byteaHex([]) == #"\x"#)
        #expect(PostgresText.bytes(fromByteaHex: #"\x000fA0ff"#) == [0x00, 0x0f, 0xa0, 0xff])
        #expect(PostgresText.bytes(fromByteaHex: #"\x"#) == [])
        for malformed in [#"\x0"#, #"\xzz"#, "00ff", #"\000"#, ""] {
            #expect(PostgresText.bytes(fromByteaHex: malformed) == nil, "\(malformed)")
        }
    }

    @Test("bigint arrays parse to their ids; malformed or NULL elements are refused")
    func bigintArrays() {
        #expect(PostgresText.bigints(fromArray: "{}") == [])
        #expect(PostgresText.bigints(fromArray: "{7}") == [7])
        #expect(PostgresText.bigints(fromArray: "{1,-2,30000000000}") == [1, -2, 30_000_000_000])
        #expect(PostgresText.bigints(fromArray: "{9223372036854775807,-9223372036854775808}") == [.max, .min])
        let many = Array(Int64(1)...2000)
        #expect(PostgresText.bigints(fromArray: "{" + many.map(String.init).joined(separator: ",") + "}") == many)
        for malformed in ["", "{", "}", "{,}", "{1,}", "{,1}", "{1,,2}", "{-}", "{NULL}", "{1,NULL}", "{1 ,2}", "{1}x",
                          "{9223372036854775808}", "{-9223372036854775809}", "{99999999999999999999}", "{{1}}", "1,2"] {
            #expect(PostgresText.bigints(fromArray: malformed) == nil, "\(malformed)")
        }
    }

    @Test("dates format as ISO 8601 UTC with microseconds")
    func timestampFormat() {
        #expect(PostgresText.timestamp(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000000Z")
        #expect(PostgresText.timestamp(Date(timeIntervalSince1970: 1_796_029_827.25)) == "2026-11-30T09:10:27.250000Z")
        #expect(PostgresText.timestamp(Date(timeIntervalSince1970: -1.5)) == "1969-12-31T23:59:58.500000Z")
        #expect(PostgresText.timestamp(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000000Z")
    }

    @Test("every date formats without trapping: outside years 1 to 99999 as -infinity or infinity")
    func timestampOfAnyDate() {
        let extremes: [(TimeInterval, String)] = [
            (-9_223_372_036_854_775_808, "-infinity"), (9_223_372_036_854_775_807, "infinity"),
            (-1e17, "-infinity"), (1e17, "infinity"), (-.infinity, "-infinity"), (.infinity, "infinity"),
            (.nan, "-infinity"), (-62_135_596_800.5, "-infinity"), (3_093_527_980_800, "infinity"),
        ]
        for (seconds, text) in extremes {
            #expect(PostgresText.timestamp(Date(timeIntervalSince1970: seconds)) == text, "\(seconds)")
        }
        #expect(PostgresText.timestamp(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00.000000Z")
        #expect(PostgresText.timestamp(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000000Z")
        #expect(PostgresText.timestamp(Date(timeIntervalSince1970: 3_093_527_980_799)) == "99999-12-31T23:59:59.000000Z")
    }

    @Test("timestamptz output parses with any offset")
    func timestampParse() {
        let instant = Date(timeIntervalSince1970: 1_796_029_827)
        #expect(PostgresText.date(fromTimestamp: "2026-11-30 09:10:27+00") == instant)
        #expect(PostgresText.date(fromTimestamp: "2026-11-30 14:40:27+05:30") == instant)
        #expect(PostgresText.date(fromTimestamp: "2026-11-30 06:10:37-02:59:50") == instant)
        #expect(PostgresText.date(fromTimestamp: "2026-11-30 09:10:27.5+00") == instant.addingTimeInterval(0.5))
        #expect(PostgresText.date(fromTimestamp: "1969-12-31 23:59:59.25+00") == Date(timeIntervalSince1970: -0.75))
        #expect(PostgresText.date(fromTimestamp: "infinity") == .distantFuture)
        #expect(PostgresText.date(fromTimestamp: "-infinity") == .distantPast)
        for malformed in ["2026-11-30", "2026-11-30 09:10:27", "2026-13-01 00:00:00+00", "0044-03-15 12:00:00+00 BC", "x"] {
            #expect(PostgresText.date(fromTimestamp: malformed) == nil, "\(malformed)")
        }
    }

    @Test("civil dates and day numbers convert both ways")
    func civilDays() {
        #expect(PostgresText.days(fromCivil: 1970, 1, 1) == 0)
        #expect(PostgresText.days(fromCivil: 2000, 3, 1) == 11_017)
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            let (year, month, day) = PostgresText.civil(fromDays: days)
            #expect(PostgresText.days(fromCivil: year, month, day) == days)
        }
    }

    @Test("bound values use PostgreSQL's spellings")
    func bindableText() {
        #expect(true.postgresText == "true")
        #expect(Double.infinity.postgresText == "Infinity")
        #expect((-Double.infinity).postgresText == "-Infinity")
        #expect(Double.nan.postgresText == "NaN")
        #expect(Int64.min.postgresText == "-9223372036854775808")
        #expect((nil as Int?).postgresText == nil)
        #expect(Optional("x").postgresText == "x")
    }

    @Test("conninfo values and identifiers are quoted")
    func quoting() {
        #expect(PostgresText.conninfoValue(#"/tmp/it's \here"#) == #"'/tmp/it\'s \\here'"#)
        #expect(PostgresText.identifier(#"we"ird"#) == #""we""ird""#)
    }

    @Test("errors map to what the caller should do")
    func errorMapping() {
        func kind(_ error: PostgresError) -> String {
            switch error {
            case .unavailable: "unavailable"
            case .server(let state, _): state.rawValue
            case .protocolViolation: "protocol"
            }
        }
        #expect(kind(.statementFailed(sqlState: "23505", message: "dup", connectionUsable: true)) == "23505")
        #expect(kind(.statementFailed(sqlState: "08006", message: "gone", connectionUsable: true)) == "unavailable")
        #expect(kind(.statementFailed(sqlState: "57P01", message: "shutdown", connectionUsable: true)) == "unavailable")
        #expect(kind(.statementFailed(sqlState: "23505", message: "dup", connectionUsable: false)) == "unavailable")
        #expect(kind(.statementFailed(sqlState: nil, message: "lost", connectionUsable: false)) == "unavailable")
        #expect(kind(.statementFailed(sqlState: nil, message: "odd", connectionUsable: true)) == "protocol")
    }
}
