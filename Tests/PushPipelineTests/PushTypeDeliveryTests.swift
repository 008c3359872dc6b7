import APNSSimulator
import Foundation
import Testing

/// End to end (issue 29): `options.apns_priority`, `notification.ios.push_type` and the new
/// `aps` fields reach the APNs simulator as headers and payload; what APNs would refuse is a
/// 400 at the API.
@Suite struct PushTypeDeliveryTests {
    @Test func priorityAndPushTypeReachTheSimulatorAsHeaders() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let token = try await relay.insertDevices(app, count: 1, prefix: "c9")[0]
            let cases: [([String: Any], [String: Any], String, String)] = [
                (["alert": "low"], ["apns_priority": 1], "alert", "1"),
                (["alert": "soon"], ["apns_priority": 5], "alert", "5"),
                (["alert": "now"], [:], "alert", "10"),
                (["content-available": 1, "push_type": "background"], [:], "background", "5"),
            ]
            for (ios, options, pushType, priority) in cases {
                relay.simulator.reset()
                let msgID = try await relay.accepted(app, [
                    "platform": "ios", "audience": "all", "notification": ["ios": ios], "options": options,
                ])
                try await relay.waitUntilFinished(msgID)
                let delivery = try #require(relay.simulator.deliveries(token: token).first)
                #expect(delivery.msgID == msgID)
                #expect(delivery.pushType == pushType)
                #expect(delivery.priority == priority)
                #expect(delivery.topic == PipelineHarness.topic)
            }
            relay.simulator.reset()
            let msgID = try await relay.accepted(app, [
                "platform": "ios", "audience": "all",
                "notification": ["ios": ["alert": "a", "filter-criteria": "work", "relevance-score": 0.25, "target-content-id": "w"]],
            ])
            try await relay.waitUntilFinished(msgID)
            let aps = try #require(relay.simulator.deliveries(token: token).first?.json["aps"] as? [String: Any])
            #expect(aps["filter-criteria"] as? String == "work")
            #expect(aps["relevance-score"] as? Double == 0.25)
            #expect(aps["target-content-id"] as? String == "w")
        }
    }

    @Test func whatAPNsWouldRefuseIsA400AtTheAPI() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            _ = try await relay.insertDevices(app, count: 1, prefix: "ca")
            let bodies: [[String: Any]] = [
                ["notification": ["alert": "a"], "options": ["apns_priority": 7]],
                ["notification": ["ios": ["content-available": 1]], "options": ["apns_priority": 10]],
                ["notification": ["ios": ["alert": "a", "push_type": "fax"]]],
                ["notification": ["ios": ["alert": "a", "push_type": "background"]]],
                ["notification": ["ios": ["alert": "a", "push_type": "location"]]],
                ["notification": ["ios": ["alert": String(repeating: "x", count: 4100)]]],
            ]
            for body in bodies {
                var push = body
                push["platform"] = "ios"
                push["audience"] = "all"
                let reply = try await relay.push(app, push)
                #expect(reply.status == 400, "\(body)")
                let error = reply.json["error"] as? [String: Any]
                #expect([1003, 1005].contains(error?["code"] as? Int), "\(body): \(reply.json)")
            }
            #expect(relay.simulator.stats.accepted == 0)
        }
    }
}
