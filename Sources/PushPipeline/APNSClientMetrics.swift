import APNSClient
import RelayCore

/// The APNs clients' state at scrape time, summed over the worker's live clients (one per
/// app and environment).
enum APNSClientMetrics {
    static func families(_ clients: [APNSClientStatistics]) -> [MetricFamily] {
        func gauge(_ name: String, _ help: String, _ value: (APNSClientStatistics) -> Int) -> MetricFamily {
            MetricFamily(name: name, type: .gauge, help: help, samples: [([:], Double(clients.reduce(0) { $0 + value($1) }))])
        }
        return [
            MetricFamily(name: RelayMetrics.apnsClients, type: .gauge, help: "APNs clients alive (one per app and environment in use).",
                         samples: [([:], Double(clients.count))]),
            gauge(RelayMetrics.apnsStreams, "HTTP/2 streams open to APNs: requests on the wire awaiting an answer.", \.streamsOpen),
            gauge(RelayMetrics.apnsInFlight, "Sends waiting for an APNs answer, queued or on the wire.", \.inFlight),
            gauge(RelayMetrics.apnsConnections, "Connections to APNs opened by the clients alive now.", \.connectionsOpened),
            gauge(RelayMetrics.apnsConnectionsOpen, "Connections to APNs up now (idle ones close after PUSHRELAY_APNS_IDLE_TIMEOUT_SECONDS).",
                  \.connectionsOpen),
            gauge(RelayMetrics.apnsWindow, "Sends that may wait for an APNs answer at once: the in-flight windows, following rate × round trip.",
                  \.window),
        ]
    }
}
