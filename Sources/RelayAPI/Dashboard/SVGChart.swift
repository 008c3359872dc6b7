import RelayCore

/// Charts drawn as inline SVG: no script, no library.
enum SVGChart {
    struct Bar: Sendable, Equatable {
        var label: String
        var sent: Int
        var failed: Int
    }

    /// Stacked bars (sent, then not delivered on top) with the peak on the y axis and a
    /// label every `labelEvery` bars.
    static func bars(_ bars: [Bar], width: Int = 720, height: Int = 180, labelEvery: Int = 10) -> String {
        let left = 48, bottom = 20, top = 8
        let plotHeight = Double(height - bottom - top)
        let peak = max(1, bars.map { $0.sent + $0.failed }.max() ?? 1)
        let step = bars.isEmpty ? 0 : Double(width - left) / Double(bars.count)
        var svg = "<svg class=\"chart\" viewBox=\"0 0 \(width) \(height)\" width=\"100%\" role=\"img\" aria-label=\"sent per minute\">"
        svg += "<line x1=\"\(left)\" y1=\"\(height - bottom)\" x2=\"\(width)\" y2=\"\(height - bottom)\" class=\"axis\"/>"
        svg += "<text x=\"\(left - 6)\" y=\"\(top + 10)\" text-anchor=\"end\" class=\"tick\">\(peak)</text>"
        svg += "<text x=\"\(left - 6)\" y=\"\(height - bottom)\" text-anchor=\"end\" class=\"tick\">0</text>"
        for (index, bar) in bars.enumerated() {
            let x = Double(left) + Double(index) * step
            let sentHeight = plotHeight * Double(bar.sent) / Double(peak)
            let failedHeight = plotHeight * Double(bar.failed) / Double(peak)
            let base = Double(height - bottom)
            let w = max(1, step - 1)
            let title = "<title>\(HTML.escape(bar.label)): \(bar.sent) sent, \(bar.failed) not delivered</title>"
            if bar.sent > 0 {
                svg += "<rect class=\"sent\" x=\"\(f(x))\" y=\"\(f(base - sentHeight))\" width=\"\(f(w))\" height=\"\(f(sentHeight))\">\(title)</rect>"
            }
            if bar.failed > 0 {
                svg += "<rect class=\"failed\" x=\"\(f(x))\" y=\"\(f(base - sentHeight - failedHeight))\" width=\"\(f(w))\" height=\"\(f(failedHeight))\">\(title)</rect>"
            }
            // A label needs about 30 px: none too close to the right edge.
            if index % labelEvery == 0, x < Double(width - 30) {
                svg += "<text x=\"\(f(x))\" y=\"\(height - 4)\" class=\"tick\">\(HTML.escape(bar.label))</text>"
            }
        }
        return svg + "</svg>"
    }

    private static func f(_ value: Double) -> String {
        String(Double(Int(saturating: value * 10)) / 10)
    }
}
