import RelayCore
import Testing
@testable import APNSSimulator

/// The simulated network's pure parts: the bandwidth bucket (clock passed in), the queue of
/// delayed answers, and the latency/jitter/bandwidth setting as flags and control JSON.
@Suite struct NetworkShapeTests {
    static let second: UInt64 = 1_000_000_000

    @Test func bucketLetsTheBurstThroughThenTheRate() {
        var bucket = TokenBucket(bytesPerSecond: 1_000, burst: 500, now: 0)
        #expect(bucket.wait(now: 0) == 0, "it starts full")
        bucket.spend(500, now: 0)
        #expect(bucket.wait(now: 0) == 1, "empty: the next byte waits")
        #expect(bucket.wait(now: Self.second / 10) == 0, "100 bytes back after 100 ms")
        bucket.spend(1_100, now: Self.second / 10)
        #expect(bucket.tokens == -1_000, "a write overdraws it")
        #expect(bucket.wait(now: Self.second / 10) == Self.second, "a debt of 1,000 bytes is a second")
        #expect(bucket.wait(now: Self.second / 10 + Self.second / 2) == Self.second / 2)
        #expect(bucket.wait(now: 10 * Self.second) == 0)
        #expect(bucket.tokens == 500, "refills up to the burst, no further")
        #expect(bucket.wait(now: 5 * Self.second) == 0, "a clock going back changes nothing")
    }

    @Test func bucketAveragesToItsRate() {
        // 16 KiB writes as fast as the bucket allows, for 10 simulated seconds.
        var bucket = TokenBucket(bytesPerSecond: 100_000, now: 0)
        var now: UInt64 = 0
        var sent = 0
        while now < 10 * Self.second {
            now += bucket.wait(now: now)
            bucket.spend(16_384, now: now)
            sent += 16_384
        }
        // The rate, plus the first burst and the write that overdrew the bucket at the end.
        #expect((1_000_000...1_000_000 + 3 * 16_384).contains(sent), "\(sent) bytes in 10 s")
        #expect(TokenBucket(bytesPerSecond: 10_000_000, now: 0).burst == 200_000, "20 ms of the rate")
        #expect(TokenBucket(bytesPerSecond: 1_000, now: 0).burst == 16_384, "at least one frame")
    }

    @Test func delayedAnswersComeOutInDueOrder() {
        var answers = DelayedAnswers()
        var random = SplitMix64(seed: 1)
        let dues = (0..<1_000).map { _ in random.next() % 1_000 }
        for (index, due) in dues.enumerated() {
            answers.insert(.init(due: due, frame: .response(streamID: Int32(index), SimulatorResponse(status: 200), apnsID: "")))
        }
        #expect(answers.count == 1_000)
        var popped: [UInt64] = []
        while let answer = answers.popDue(now: 499) { popped.append(answer.due) }
        #expect(popped == dues.filter { $0 <= 499 }.sorted())
        #expect(answers.nextDue == dues.filter { $0 > 499 }.min())
        while let answer = answers.popDue(now: .max) { popped.append(answer.due) }
        #expect(popped == dues.sorted())
        #expect(answers.isEmpty)
    }

    /// A constant latency queues answers in due order (the FIFO), jitter now and then one
    /// earlier (the heap); answers are taken out while more come in, past the FIFO's compaction.
    @Test func delayedAnswersMixQueuedInOrderAndEarlier() {
        var answers = DelayedAnswers()
        var random = SplitMix64(seed: 5)
        var queued: [UInt64] = []
        var popped: [UInt64] = []
        for step in 0..<20_000 {
            let due = UInt64(step) * 10 + 1_000 - (random.next() % 7 == 0 ? random.next() % 500 : 0)
            answers.insert(.init(due: due, frame: .pingAck(UInt64(step))))
            queued.append(due)
            if step % 100 == 99 {
                let now = UInt64(step) * 10
                var batch: [UInt64] = []
                while let answer = answers.popDue(now: now) { batch.append(answer.due) }
                #expect(batch.allSatisfy { $0 <= now }, "nothing before it is due")
                #expect(answers.nextDue.map { $0 > now } ?? true, "everything due was taken")
                popped += batch
            }
        }
        #expect(answers.count == queued.count - popped.count)
        while let answer = answers.popDue(now: .max) { popped.append(answer.due) }
        #expect(popped.sorted() == queued.sorted())
        #expect(zip(popped, popped.dropFirst()).allSatisfy { $0 <= $1 }, "in due order")
        #expect(answers.isEmpty && answers.nextDue == nil)
    }

    @Test func jitterIsUniformAroundTheLatencyAndSeeded() {
        let shape = NetworkShape(latencyMilliseconds: 150, jitterMilliseconds: 50)
        var random = SplitMix64(seed: 7)
        let delays = (0..<10_000).map { _ in shape.delayNanoseconds(using: &random) }
        #expect(delays.allSatisfy { (100_000_000...200_000_000).contains($0) })
        #expect(delays.min()! < 101_000_000 && delays.max()! > 199_000_000, "the whole range is used")
        let mean = Double(delays.reduce(0, +)) / Double(delays.count)
        #expect(abs(mean - 150_000_000) < 2_000_000)
        var again = SplitMix64(seed: 7)
        #expect((0..<10_000).map { _ in shape.delayNanoseconds(using: &again) } == delays, "the same seed, the same delays")

        var untouched = SplitMix64(seed: 7)
        #expect(NetworkShape(latencyMilliseconds: 20).delayNanoseconds(using: &untouched) == 20_000_000)
        #expect(untouched.next() == SplitMix64(seed: 7).nextCopy(), "no jitter, no draw")
        var wide = SplitMix64(seed: 3)
        let clamped = NetworkShape(latencyMilliseconds: 10, jitterMilliseconds: 100)
        #expect((0..<1_000).allSatisfy { _ in clamped.delayNanoseconds(using: &wide) <= 110_000_000 })
    }

    @Test func networkIsReadFromJSONAndFlags() throws {
        #expect(try NetworkShape(json: Array(#"{"latency_ms":150,"latency_jitter_ms":20}"#.utf8))
            == NetworkShape(latencyMilliseconds: 150, jitterMilliseconds: 20))
        #expect(try NetworkShape(json: Array(#"{"bandwidth_bytes_per_second":1000000}"#.utf8))
            == NetworkShape(bandwidthBytesPerSecond: 1_000_000))
        #expect(try NetworkShape(json: Array("{}".utf8)) == NetworkShape(), "left out means 0: {} clears them")
        for bad in [#"{"latency_ms":-1}"#, #"{"latency_ms":1.5}"#, #"{"latency_ms":"150"}"#, #"{"delay":1}"#, "[1]", "x"] {
            #expect(throws: APNSSimulatorError.self, "\(bad)") { try NetworkShape(json: Array(bad.utf8)) }
        }
        let shape = NetworkShape(latencyMilliseconds: 300, jitterMilliseconds: 30, bandwidthBytesPerSecond: 125_000)
        #expect(try NetworkShape(json: shape.json) == shape, "the answer reads back as what was set")

        let configuration = try APNSSimulatorConfiguration.parse(arguments: [
            "--latency-ms", "150", "--latency-jitter-ms=25", "--bandwidth-bytes-per-second", "125000",
        ])
        #expect(configuration.network == NetworkShape(latencyMilliseconds: 150, jitterMilliseconds: 25, bandwidthBytesPerSecond: 125_000))
        for bad in [["--latency-jitter-ms", "-1"], ["--bandwidth-bytes-per-second", "-5"], ["--latency-jitter-ms", "x"]] {
            #expect(throws: APNSSimulatorError.self, "\(bad)") { try APNSSimulatorConfiguration.parse(arguments: bad) }
        }
        #expect(ControlRoute(method: "GET", uri: "/network") == .network)
        #expect(ControlRoute(method: "PUT", uri: "/network") == .setNetwork)
        #expect(ControlRoute(method: "POST", uri: "/network") == .methodNotAllowed)
    }
}

private extension SplitMix64 {
    /// The first value a fresh generator gives, for comparing states.
    func nextCopy() -> UInt64 {
        var copy = self
        return copy.next()
    }
}
