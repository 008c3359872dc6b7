@testable import PushPipeline
import Testing

/// `DeliverySpans.numbered`: the runs of sent device ids an outcome write records, a span each.
@Suite struct DeliverySpansTests {
    /// The runs as ranges of ids.
    private func runs(_ ids: [Int64], maxGap: Int64 = DeliverySpans.maxGap) -> [ClosedRange<Int64>] {
        let numbered = DeliverySpans.numbered(ids, maxGap: maxGap)
        #expect(numbered.ids == Set(ids).sorted(), "every id once, ascending")
        #expect(numbered.runs.first ?? 0 == 0 && zip(numbered.runs, numbered.runs.dropFirst()).allSatisfy { $1 == $0 || $1 == $0 + 1 },
                "runs numbered from 0 without a hole")
        return Dictionary(grouping: zip(numbered.ids, numbered.runs), by: \.1).values
            .map { members in members.map(\.0).min()!...members.map(\.0).max()! }
            .sorted { $0.lowerBound < $1.lowerBound }
    }

    @Test func aChunkInIdOrderIsOneRunWhateverTheOrderOfItsOutcomes() {
        let chunk: [Int64] = Array(1_000...1_499).filter { $0 % 7 != 0 }
        #expect(runs(chunk.shuffled()) == [1_000...1_499])
        #expect(runs([42]) == [42...42])
        #expect(runs([]) == [])
        #expect(runs([5, 5, 6]) == [5...6], "a repeated id is one id")
        #expect(DeliverySpans.numbered([6, 5, 5]).ids == [5, 6])
    }

    @Test func aRunEndsWhereTwoIdsLieMoreThanTheGapApart() {
        let gap = DeliverySpans.maxGap
        #expect(runs([10, 10 + gap]) == [10...(10 + gap)], "a gap of exactly maxGap stays in the run")
        #expect(runs([10, 11 + gap]) == [10...10, (11 + gap)...(11 + gap)])
        #expect(runs([3, 1, 2, 9_000, 9_001, 1_000_000, 5_000_000], maxGap: 100)
                == [1...3, 9_000...9_001, 1_000_000...1_000_000, 5_000_000...5_000_000])
        #expect(DeliverySpans.numbered([3, 1, 2, 9_000, 9_001, 1_000_000], maxGap: 100).runs == [0, 0, 0, 1, 1, 2])
    }

    @Test func scatteredDevicesMakeNarrowRunsCoveringOnlyThemselves() {
        // A push to 500 devices spread over ten million ids: no run covers an id between two
        // of them more than maxGap apart, so a status lookup there meets none of these spans.
        var generator = SystemRandomNumberGenerator()
        let ids = (0..<500).map { _ in Int64.random(in: 1...10_000_000, using: &generator) }
        let runs = runs(ids)
        #expect(Set(ids).allSatisfy { id in runs.contains { $0.contains(id) } })
        #expect(zip(runs, runs.dropFirst()).allSatisfy { $1.lowerBound - $0.upperBound > DeliverySpans.maxGap })
        let sorted = Set(ids).sorted()
        for (a, b) in zip(sorted, sorted.dropFirst()) where b - a > DeliverySpans.maxGap {
            #expect(!runs.contains { $0.contains(a + 1) }, "between \(a) and \(b)")
        }
    }

    @Test func extremeIdsDoNotOverflow() {
        #expect(runs([Int64.min, Int64.max]) == [Int64.min...Int64.min, Int64.max...Int64.max])
        #expect(runs([Int64.max - 1, Int64.max]) == [(Int64.max - 1)...Int64.max])
    }
}
