import Foundation
import RelayCore

/// The fractions of valid requests answered 429, 500 and 503, as the command line sets
/// them at start and `PUT /rates` changes them while the simulator runs.
public struct FailureRates: Sendable, Equatable, Encodable {
    public var rate429: Double
    public var rate500: Double
    public var rate503: Double

    public init(rate429: Double = 0, rate500: Double = 0, rate503: Double = 0) {
        self.rate429 = rate429
        self.rate500 = rate500
        self.rate503 = rate503
    }

    /// Reads `{"rate_429":F,"rate_500":F,"rate_503":F}`; a rate left out is 0.
    ///
    /// - Throws: `APNSSimulatorError` naming what is wrong: not a JSON object, a rate
    ///   that is not a number from 0 to 1, an unknown key, or rates adding up to more than 1.
    public init(json: [UInt8]) throws {
        guard case .object(let object)? = try? JSONValue.parse(json) else {
            throw APNSSimulatorError(#"the body must be a JSON object such as {"rate_429":0.9}"#)
        }
        var rates = FailureRates()
        for (key, value) in object {
            guard case .number(let number) = value else {
                throw APNSSimulatorError("\(key) must be a number from 0 to 1")
            }
            let rate = number.double
            guard (0...1).contains(rate) else { throw APNSSimulatorError("\(key) must be a number from 0 to 1") }
            switch key {
            case "rate_429": rates.rate429 = rate
            case "rate_500": rates.rate500 = rate
            case "rate_503": rates.rate503 = rate
            default: throw APNSSimulatorError("unknown key \(key): expected rate_429, rate_500, rate_503")
            }
        }
        guard rates.rate429 + rates.rate500 + rates.rate503 <= 1 else {
            throw APNSSimulatorError("the rates add up to more than 1")
        }
        self = rates
    }

    private enum CodingKeys: String, CodingKey {
        case rate429 = "rate_429", rate500 = "rate_500", rate503 = "rate_503"
    }

    /// `{"rate_429":…,"rate_500":…,"rate_503":…}`; throws only for a rate that is not finite.
    public var json: [UInt8] {
        get throws { try ControlServer.encoded(self) }
    }
}
