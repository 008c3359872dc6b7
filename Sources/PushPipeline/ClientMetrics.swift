import APNSClient
import RelayCore

/// The APNs and FCM clients' state at scrape time, summed per service over the worker's live
/// clients (APNs: one per app and environment; FCM: one per app), each service's gauges
/// named after it (both run on the same connection machinery, so both count alike).
enum ClientMetrics {
    /// One service's gauge names and how the help text names it.
    struct Service {
        var label: String
        var clientsHelp: String
        var clients: String
        var streams: String
        var inFlight: String
        var connections: String
        var connectionsOpen: String
        var window: String
    }

    static let apns = Service(
        label: "APNs", clientsHelp: "APNs clients alive (one per app and environment in use).",
        clients: RelayMetrics.apnsClients, streams: RelayMetrics.apnsStreams, inFlight: RelayMetrics.apnsInFlight,
        connections: RelayMetrics.apnsConnections, connectionsOpen: RelayMetrics.apnsConnectionsOpen, window: RelayMetrics.apnsWindow)
    static let fcm = Service(
        label: "FCM", clientsHelp: "FCM clients alive (one per app with a service account in use).",
        clients: RelayMetrics.fcmClients, streams: RelayMetrics.fcmStreams, inFlight: RelayMetrics.fcmInFlight,
        connections: RelayMetrics.fcmConnections, connectionsOpen: RelayMetrics.fcmConnectionsOpen, window: RelayMetrics.fcmWindow)

    static func families(_ clients: SenderCache.Statistics) -> [MetricFamily] {
        families(clients.apns, of: apns) + families(clients.fcm, of: fcm)
    }

    static func families(_ clients: [APNSClientStatistics], of service: Service) -> [MetricFamily] {
        func gauge(_ name: String, _ help: String, _ value: (APNSClientStatistics) -> Int) -> MetricFamily {
            MetricFamily(name: name, type: .gauge, help: help, samples: [([:], Double(clients.reduce(0) { $0 + value($1) }))])
        }
        let name = service.label
        return [
            MetricFamily(name: service.clients, type: .gauge, help: service.clientsHelp, samples: [([:], Double(clients.count))]),
            gauge(service.streams, "HTTP/2 streams open to \(name): requests on the wire awaiting an answer.", \.streamsOpen),
            gauge(service.inFlight, "Sends waiting for an \(name) answer, queued or on the wire.", \.inFlight),
            gauge(service.connections, "Connections to \(name) opened by the clients alive now.", \.connectionsOpened),
            gauge(service.connectionsOpen, "Connections to \(name) up now (idle ones close after PUSHRELAY_APNS_IDLE_TIMEOUT_SECONDS).",
                  \.connectionsOpen),
            gauge(service.window, "Sends that may wait for an \(name) answer at once: the in-flight windows, following rate × round trip.",
                  \.window),
        ]
    }
}
