import Foundation

/// Reads settings from an environment dictionary: a blank variable counts as unset, and a
/// number outside its range is refused with a sentence naming the variable.
public struct EnvironmentSettings: Sendable {
    public let environment: [String: String]

    public init(_ environment: [String: String]) {
        self.environment = environment
    }

    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// The value without surrounding spaces; nil when unset or blank.
    public func value(_ name: String) -> String? {
        guard let raw = environment[name]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        return raw
    }

    /// The whole number set, nil when unset.
    public func number(_ name: String, in range: ClosedRange<Int>) throws(Error) -> Int? {
        guard let raw = value(name) else { return nil }
        guard let number = Int(raw), range.contains(number) else {
            throw Error(description: "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \"\(raw)\"")
        }
        return number
    }
}
