import Foundation
import RelayCore

/// How far away and how thin the simulated network is: every answer held back `latency ±
/// jitter` (uniform, never below 0), and each connection's bytes each way capped at
/// `bandwidthBytesPerSecond` (0: no cap). Set by the command line at start and by
/// `PUT /network` while the simulator runs.
public struct NetworkShape: Sendable, Equatable, Encodable {
    public var latencyMilliseconds: Int
    public var jitterMilliseconds: Int
    public var bandwidthBytesPerSecond: Int

    public init(latencyMilliseconds: Int = 0, jitterMilliseconds: Int = 0, bandwidthBytesPerSecond: Int = 0) {
        self.latencyMilliseconds = latencyMilliseconds
        self.jitterMilliseconds = jitterMilliseconds
        self.bandwidthBytesPerSecond = bandwidthBytesPerSecond
    }

    /// Reads `{"latency_ms":N,"latency_jitter_ms":N,"bandwidth_bytes_per_second":N}`; a key
    /// left out is 0.
    ///
    /// - Throws: `APNSSimulatorError` naming what is wrong: not a JSON object, a value that
    ///   is not a whole number from 0 up, or an unknown key.
    public init(json: [UInt8]) throws {
        guard case .object(let object)? = try? JSONValue.parse(json) else {
            throw APNSSimulatorError(#"the body must be a JSON object such as {"latency_ms":150}"#)
        }
        var shape = NetworkShape()
        for (key, value) in object {
            guard case .number(let number) = value, let whole = Int(exactly: number.double), whole >= 0 else {
                throw APNSSimulatorError("\(key) must be a whole number from 0 up")
            }
            switch key {
            case "latency_ms": shape.latencyMilliseconds = whole
            case "latency_jitter_ms": shape.jitterMilliseconds = whole
            case "bandwidth_bytes_per_second": shape.bandwidthBytesPerSecond = whole
            default:
                throw APNSSimulatorError("unknown key \(key): expected latency_ms, latency_jitter_ms, bandwidth_bytes_per_second")
            }
        }
        self = shape
    }

    private enum CodingKeys: String, CodingKey {
        case latencyMilliseconds = "latency_ms", jitterMilliseconds = "latency_jitter_ms"
        case bandwidthBytesPerSecond = "bandwidth_bytes_per_second"
    }

    /// The same keys `init(json:)` reads.
    public var json: [UInt8] {
        get throws { try ControlServer.encoded(self) }
    }

    /// One answer's delay in nanoseconds: latency plus a uniform draw from −jitter…+jitter,
    /// at least 0. Draws nothing without jitter.
    public func delayNanoseconds(using random: inout SplitMix64) -> UInt64 {
        let latency = Double(latencyMilliseconds) * 1e6
        guard jitterMilliseconds > 0 else { return UInt64(latency) }
        let jitter = Double(jitterMilliseconds) * 1e6
        return UInt64(max(0, latency + (random.nextUnit() * 2 - 1) * jitter))
    }
}
