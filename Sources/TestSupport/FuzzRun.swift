import Foundation
import RelayCore

/// The size and seed of a seeded property test ("fuzz" suites), so a failure is
/// reproducible: the test names the seed and iteration, and the same environment replays it.
///
/// - `PUSHRELAY_FUZZ_ITERATIONS`: how many inputs (`make test` runs the suite's default;
///   `make fuzz` and `make reliability` set many more).
/// - `PUSHRELAY_FUZZ_SEED`: the first input's seed (default 1); input `i` uses `seed + i`.
public struct FuzzRun: Sendable {
    public let iterations: Int
    public let seed: UInt64

    public init(defaultIterations: Int) {
        let environment = ProcessInfo.processInfo.environment
        iterations = environment["PUSHRELAY_FUZZ_ITERATIONS"].flatMap(Int.init) ?? defaultIterations
        seed = environment["PUSHRELAY_FUZZ_SEED"].flatMap(UInt64.init) ?? 1
    }

    /// Calls `body` once per input with that input's own generator and a label naming it.
    public func forEachInput(_ body: (inout SplitMix64, _ label: String) throws -> Void) rethrows {
        for iteration in 0..<iterations {
            let inputSeed = seed &+ UInt64(iteration)
            var generator = SplitMix64(seed: inputSeed)
            try body(&generator, "PUSHRELAY_FUZZ_SEED=\(inputSeed) PUSHRELAY_FUZZ_ITERATIONS=1")
        }
    }
}
