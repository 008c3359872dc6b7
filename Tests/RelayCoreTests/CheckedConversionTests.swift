import RelayCore
import Testing

/// Doubles to integers without a trap, and input quoted back at a bounded length.
@Suite struct CheckedConversionTests {
    @Test func roundingIsNilWhereTheIntegerInitializerWouldTrap() {
        #expect(Int64(rounding: 1.5, .down) == 1)
        #expect(Int64(rounding: -1.5, .down) == -2)
        #expect(Int64(rounding: 1.5, .up) == 2)
        #expect(Int64(rounding: -9_223_372_036_854_775_808, .down) == Int64.min)
        for value in [9_223_372_036_854_775_807.0, 1e19, -1e19, .infinity, -.infinity, .nan] {
            #expect(Int64(rounding: value, .down) == nil, "\(value)")
        }
        #expect(Int32(rounding: 2_147_483_648, .towardZero) == nil)
        #expect(UInt8(rounding: -1, .towardZero) == nil)
    }

    @Test func saturatingClampsAndMakesNaNZero() {
        #expect(Int64(saturating: 1e300) == Int64.max)
        #expect(Int64(saturating: -.infinity) == Int64.min)
        #expect(Int(saturating: .nan) == 0)
        #expect(Int(saturating: 2.9) == 2)
        #expect(Int(saturating: 2.1, rounding: .up) == 3)
        #expect(UInt16(saturating: -5) == 0)
    }

    @Test func echoesAreCutToAboutAHundredBytes() {
        #expect(InputEcho.quoted("short") == "\"short\"")
        #expect(InputEcho.quoted(String(repeating: "a", count: 100)) == "\"" + String(repeating: "a", count: 100) + "\"")
        let long = InputEcho.quoted(String(repeating: "a", count: 100_000))
        #expect(long == "\"" + String(repeating: "a", count: 100) + "…\" (100000 bytes)")
        // Cut at a character boundary: 34 three-byte characters are 102 bytes.
        let cjk = InputEcho.quoted(String(repeating: "中", count: 34))
        #expect(cjk == "\"" + String(repeating: "中", count: 33) + "…\" (102 bytes)")
        #expect(InputEcho.quoted(String(repeating: "x", count: 500)[...]).utf8.count < 130)
    }
}
