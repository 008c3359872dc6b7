/// What a metric family is, as Prometheus' `# TYPE` line says it.
public enum MetricType: String, Sendable {
    /// Only goes up (until the process restarts).
    case counter
    /// Goes up and down: a reading taken at scrape time.
    case gauge
    /// Observations counted into cumulative buckets, with their sum and count.
    case histogram
}

/// One family as scraped: its name, type, help and every series' value.
public struct MetricFamily: Sendable, Equatable {
    /// A histogram series: observations per bucket (not cumulative), their sum and count.
    public struct Distribution: Sendable, Equatable {
        public var bucketCounts: [Int]
        public var sum: Double
        public var count: Int
    }

    public enum Value: Sendable, Equatable {
        case number(Double)
        case distribution(Distribution)
    }

    public var name: String
    public var type: MetricType
    public var help: String
    /// Upper bounds of a histogram's buckets (ascending; +Inf is implied).
    public var buckets: [Double]
    public var series: [(labels: MetricLabels, value: Value)]

    /// A counter or gauge family read at scrape time.
    public init(name: String, type: MetricType, help: String, samples: [(MetricLabels, Double)]) {
        self.init(name: name, type: type, help: help, buckets: [], series: samples.map { ($0.0, .number($0.1)) })
    }

    init(name: String, type: MetricType, help: String, buckets: [Double], series: [(labels: MetricLabels, value: Value)]) {
        self.name = name
        self.type = type
        self.help = help
        self.buckets = buckets
        self.series = series
    }

    public static func == (lhs: MetricFamily, rhs: MetricFamily) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.help == rhs.help && lhs.buckets == rhs.buckets
            && lhs.series.map(\.labels) == rhs.series.map(\.labels) && lhs.series.map(\.value) == rhs.series.map(\.value)
    }
}
