import Foundation
import RelayCore

/// The size and seed of a seeded property test ("fuzz" suites), so a failure is
/// reproducible: each input has its own seed, which a failing expectation names.
///
/// - `PUSHRELAY_FUZZ_ITERATIONS`: how many inputs (`make test` runs the suite's default;
///   `make fuzz` and `make reliability` set many more).
/// - `PUSHRELAY_FUZZ_SEED`: the run's seed (default 1), from which the inputs' seeds come.
/// - `PUSHRELAY_FUZZ_INPUT`: replays the one input with this seed.
public struct FuzzRun: Sendable {
    public let iterations: Int
    public let seed: UInt64
    public let replay: UInt64?

    public init(defaultIterations: Int) {
        let environment = ProcessInfo.processInfo.environment
        iterations = environment["PUSHRELAY_FUZZ_ITERATIONS"].flatMap(Int.init) ?? defaultIterations
        seed = environment["PUSHRELAY_FUZZ_SEED"].flatMap(UInt64.init) ?? 1
        replay = environment["PUSHRELAY_FUZZ_INPUT"].flatMap(UInt64.init)
    }

    /// Calls `body` once per input with that input's own generator and a label naming it.
    public func forEachInput(_ body: (inout SplitMix64, _ label: String) throws -> Void) rethrows {
        var seeds = SplitMix64(seed: seed)
        for _ in 0..<(replay == nil ? iterations : 1) {
            let inputSeed = replay ?? seeds.next()
            var generator = SplitMix64(seed: inputSeed)
            try body(&generator, "replay with PUSHRELAY_FUZZ_INPUT=\(inputSeed)")
        }
    }
}
