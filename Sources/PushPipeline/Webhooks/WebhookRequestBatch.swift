import Foundation

/// Where an event goes: its app's webhook, or a push's callback URL signed with that
/// webhook's secret, as the lease reads it.
struct WebhookTarget: Sendable, Hashable {
    var appKey: String
    var url: String
    var sealedSecret: [UInt8]
}

/// An event leased from the outbox.
struct LeasedWebhookEvent: Sendable, Equatable {
    var id: Int64
    var appID: Int64
    /// The event's JSON object, as stored.
    var payload: String
    /// Attempts before this one.
    var attempts: Int
    /// Where its retry horizon starts.
    var start: Date
    var target: WebhookTarget
}

/// The events one request carries: one target's (an app and a URL), in lease order, at most
/// so many and so large (an event larger than the limit alone goes alone).
struct WebhookRequestBatch: Sendable, Equatable {
    var target: WebhookTarget
    var events: [LeasedWebhookEvent]

    static func cut(_ events: [LeasedWebhookEvent], maxEvents: Int, maxBytes: Int) -> [WebhookRequestBatch] {
        var batches: [WebhookRequestBatch] = []
        var open: [WebhookTarget: (index: Int, bytes: Int)] = [:]
        for event in events {
            let size = event.payload.utf8.count + 32  // with its id and comma
            if let (index, bytes) = open[event.target], batches[index].events.count < maxEvents, bytes + size <= maxBytes {
                batches[index].events.append(event)
                open[event.target] = (index, bytes + size)
            } else {
                open[event.target] = (batches.count, size)
                batches.append(WebhookRequestBatch(target: event.target, events: [event]))
            }
        }
        return batches
    }

    /// `{"app_key": …, "events": [ … ]}`: each stored event (a JSON object) with its outbox
    /// id first, `"id": "…"`, the same on every attempt, so a receiver can drop a repeat. An
    /// app key is hex digits: nothing to escape.
    func body() -> [UInt8] {
        var body = Array(#"{"app_key":"\#(target.appKey)","events":["#.utf8)
        for (index, event) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            let fields = event.payload.utf8.dropFirst()
            body += Array(#"{"id":"\#(event.id)""#.utf8)
            if fields.first != UInt8(ascii: "}") { body.append(UInt8(ascii: ",")) }
            body += fields
        }
        body += Array("]}".utf8)
        return body
    }
}
