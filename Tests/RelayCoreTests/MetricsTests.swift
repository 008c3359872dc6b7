import RelayCore
import Testing

@Suite struct MetricsTests {
    @Test func countersAndGaugesRenderWithTypeAndHelpFirst() {
        let registry = MetricsRegistry()
        registry.declare("jobs_total", .counter, help: "Jobs done.")
        registry.declare("temperature", .gauge, help: "Degrees.\nCelsius")
        registry.increment("jobs_total", ["kind": "b"])
        registry.increment("jobs_total", ["kind": "a"], by: 2)
        registry.increment("jobs_total", ["kind": "a"])
        registry.set("temperature", to: 21.5)
        #expect(PrometheusText.render(registry.snapshot()) == """
            # HELP jobs_total Jobs done.
            # TYPE jobs_total counter
            jobs_total{kind="a"} 3
            jobs_total{kind="b"} 1
            # HELP temperature Degrees.\\nCelsius
            # TYPE temperature gauge
            temperature 21.5

            """)
    }

    @Test func histogramBucketsAreCumulativeWithInfSumAndCount() {
        let registry = MetricsRegistry()
        registry.declare("latency_seconds", .histogram, help: "Latency.", buckets: [0.1, 1])
        for value in [0.05, 0.1, 0.5, 3] { registry.observe("latency_seconds", ["route": "/x"], value) }
        #expect(PrometheusText.render(registry.snapshot()) == """
            # HELP latency_seconds Latency.
            # TYPE latency_seconds histogram
            latency_seconds_bucket{le="0.1",route="/x"} 2
            latency_seconds_bucket{le="1",route="/x"} 3
            latency_seconds_bucket{le="+Inf",route="/x"} 4
            latency_seconds_sum{route="/x"} 3.65
            latency_seconds_count{route="/x"} 4

            """)
    }

    @Test func labelValuesAreEscaped() {
        let registry = MetricsRegistry()
        registry.declare("odd_total", .counter, help: "Odd labels.")
        registry.increment("odd_total", ["reason": "a \"quoted\" \\ back\nslash"])
        #expect(PrometheusText.render(registry.snapshot()).contains(#"odd_total{reason="a \"quoted\" \\ back\nslash"} 1"#))
    }

    @Test func boundedLabelsKeepAFixedNumberOfValues() {
        let registry = MetricsRegistry(maxValuesPerLabel: 2)
        #expect(registry.bounded("app_key", "a") == "a")
        #expect(registry.bounded("app_key", "b") == "b")
        #expect(registry.bounded("app_key", "c") == "other")
        #expect(registry.bounded("app_key", "a") == "a", "values seen before keep their series")
        #expect(registry.bounded("reason", "x") == "x", "each label has its own budget")
    }

    @Test func collectorsAreReadAtEveryScrapeUntilRemoved() {
        let registry = MetricsRegistry()
        registry.setCollector("depth") { [MetricFamily(name: "depth", type: .gauge, help: "Depth.", samples: [([:], 7)])] }
        #expect(PrometheusText.render(registry.snapshot()).contains("depth 7\n"))
        registry.removeCollector("depth")
        #expect(registry.snapshot().isEmpty)
    }
}
