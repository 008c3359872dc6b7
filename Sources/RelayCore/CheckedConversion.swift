/// Double-to-integer conversions that never trap. `Int64(someDouble)` stops the whole
/// process when the value is NaN, infinite or out of range, and doubles reach us from
/// outside (instants, fractions, durations): convert them here instead.
extension FixedWidthInteger {
    /// `value` rounded by `rule`, or nil when the result is not a number of this type
    /// (NaN, infinite, or out of range).
    public init?(rounding value: Double, _ rule: FloatingPointRoundingRule) {
        self.init(exactly: value.rounded(rule))
    }

    /// `value` rounded by `rule` and clamped to this type's range; NaN is 0. For what has a
    /// natural limit (a sleep, a percentage on a page), not for validating input.
    public init(saturating value: Double, rounding rule: FloatingPointRoundingRule = .towardZero) {
        if value.isNaN {
            self = 0
        } else if let exact = Self(rounding: value, rule) {
            self = exact
        } else {
            self = value < 0 ? Self.min : Self.max
        }
    }
}
