/// The labels of one time series, kept sorted by name so equal sets hash alike.
public struct MetricLabels: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    public struct Pair: Hashable, Sendable {
        public var name: String
        public var value: String
    }

    public let pairs: [Pair]

    public init(_ labels: [String: String]) {
        pairs = labels.map { Pair(name: $0.key, value: $0.value) }.sorted { $0.name < $1.name }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// The same labels plus one more (a histogram's `le`).
    func adding(_ name: String, _ value: String) -> MetricLabels {
        var dictionary = Dictionary(uniqueKeysWithValues: pairs.map { ($0.name, $0.value) })
        dictionary[name] = value
        return MetricLabels(dictionary)
    }
}
