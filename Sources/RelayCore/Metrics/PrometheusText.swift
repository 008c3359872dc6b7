/// Prometheus' text exposition format (version 0.0.4): `# HELP` and `# TYPE` before each
/// family's samples, histograms as cumulative `_bucket{le=…}` with `_sum` and `_count`.
public enum PrometheusText {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The families in the order given, each series sorted by its labels.
    public static func render(_ families: [MetricFamily]) -> String {
        var out = ""
        for family in families {
            out += "# HELP \(family.name) \(escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.type.rawValue)\n"
            let series = family.series.sorted { key($0.labels) < key($1.labels) }
            for (labels, value) in series {
                switch value {
                case .number(let number):
                    out += "\(family.name)\(labelText(labels)) \(format(number))\n"
                case .distribution(let distribution):
                    var cumulative = 0
                    for (bound, count) in zip(family.buckets, distribution.bucketCounts) {
                        cumulative += count
                        out += "\(family.name)_bucket\(labelText(labels.adding("le", format(bound)))) \(cumulative)\n"
                    }
                    out += "\(family.name)_bucket\(labelText(labels.adding("le", "+Inf"))) \(distribution.count)\n"
                    out += "\(family.name)_sum\(labelText(labels)) \(format(distribution.sum))\n"
                    out += "\(family.name)_count\(labelText(labels)) \(distribution.count)\n"
                }
            }
        }
        return out
    }

    /// Whole numbers without a fraction; the rest as Swift prints doubles (Go parses both).
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func key(_ labels: MetricLabels) -> String {
        labels.pairs.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
    }

    private static func labelText(_ labels: MetricLabels) -> String {
        if labels.pairs.isEmpty { return "" }
        return "{" + labels.pairs.map { "\($0.name)=\"\(escapeLabel($0.value))\"" }.joined(separator: ",") + "}"
    }

    static func escapeLabel(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    private static func escapeHelp(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }
}
