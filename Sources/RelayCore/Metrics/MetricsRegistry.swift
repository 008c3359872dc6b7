import Synchronization

/// The process's metrics: counters, gauges and histograms recorded as things happen, plus
/// collectors read at scrape time, rendered as Prometheus text.
///
/// Families are declared once (`declare`) with their type and help; recording into an
/// undeclared family is a programming error caught in debug builds and ignored otherwise.
/// Label values that grow with the data (app keys) go through `bounded`, so a relay with
/// thousands of apps keeps a fixed number of series.
public final class MetricsRegistry: Sendable {
    /// The registry every part of the relay records into unless given another.
    public static let shared = MetricsRegistry.relay()

    /// Histogram buckets for latencies in seconds, 1 ms to 10 s.
    public static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    private struct Family {
        var type: MetricType
        var help: String
        var buckets: [Double]
        var series: [MetricLabels: MetricFamily.Value] = [:]
    }

    private struct State {
        var families: [String: Family] = [:]
        var order: [String] = []
        var collectors: [String: @Sendable () -> [MetricFamily]] = [:]
        var seen: [String: Set<String>] = [:]
    }

    private let state = Mutex(State())
    /// Distinct values a bounded label keeps before the rest become `other`.
    public let maxValuesPerLabel: Int

    public init(maxValuesPerLabel: Int = 100) {
        self.maxValuesPerLabel = maxValuesPerLabel
    }

    /// Declares a family; declaring it again with the same name changes nothing.
    ///
    /// - Parameters:
    ///   - buckets: a histogram's upper bounds, ascending.
    public func declare(_ name: String, _ type: MetricType, help: String, buckets: [Double] = MetricsRegistry.latencyBuckets) {
        state.withLock { state in
            guard state.families[name] == nil else { return }
            state.families[name] = Family(type: type, help: help, buckets: type == .histogram ? buckets : [])
            state.order.append(name)
        }
    }

    /// Adds to a counter (or a gauge).
    public func increment(_ name: String, _ labels: MetricLabels = [:], by amount: Double = 1) {
        update(name) { family in
            guard case .number(let value) = family.series[labels] ?? .number(0) else { return }
            family.series[labels] = .number(value + amount)
        }
    }

    /// Sets a gauge.
    public func set(_ name: String, _ labels: MetricLabels = [:], to value: Double) {
        update(name) { $0.series[labels] = .number(value) }
    }

    /// Records one observation into a histogram.
    public func observe(_ name: String, _ labels: MetricLabels = [:], _ value: Double) {
        update(name) { family in
            var distribution: MetricFamily.Distribution
            if case .distribution(let existing) = family.series[labels] {
                distribution = existing
            } else {
                distribution = .init(bucketCounts: Array(repeating: 0, count: family.buckets.count), sum: 0, count: 0)
            }
            if let index = family.buckets.firstIndex(where: { value <= $0 }) { distribution.bucketCounts[index] += 1 }
            distribution.sum += value
            distribution.count += 1
            family.series[labels] = .distribution(distribution)
        }
    }

    /// `value` itself while fewer than `maxValuesPerLabel` distinct values of `label` were
    /// seen (or it is one of them), `other` after that.
    public func bounded(_ label: String, _ value: String) -> String {
        state.withLock { state in
            if state.seen[label, default: []].contains(value) { return value }
            guard state.seen[label, default: []].count < maxValuesPerLabel else { return "other" }
            state.seen[label, default: []].insert(value)
            return value
        }
    }

    /// Adds (or replaces) a collector read at every scrape, under `key`.
    public func setCollector(_ key: String, _ collect: @escaping @Sendable () -> [MetricFamily]) {
        state.withLock { $0.collectors[key] = collect }
    }

    public func removeCollector(_ key: String) {
        _ = state.withLock { $0.collectors.removeValue(forKey: key) }
    }

    /// Every family, declared ones first in declaration order, then the collectors'.
    public func snapshot() -> [MetricFamily] {
        let (recorded, collectors) = state.withLock { state in
            (state.order.compactMap { name -> MetricFamily? in
                guard let family = state.families[name] else { return nil }
                return MetricFamily(name: name, type: family.type, help: family.help, buckets: family.buckets,
                                    series: family.series.map { (labels: $0.key, value: $0.value) })
            }, state.collectors.sorted { $0.key < $1.key }.map(\.value))
        }
        // Collectors run outside the lock: they may read other locks of their own.
        return recorded + collectors.flatMap { $0() }
    }

    private func update(_ name: String, _ body: (inout Family) -> Void) {
        state.withLock { state in
            guard state.families[name] != nil else {
                assertionFailure("metric \(name) was never declared")
                return
            }
            body(&state.families[name]!)
        }
    }
}
