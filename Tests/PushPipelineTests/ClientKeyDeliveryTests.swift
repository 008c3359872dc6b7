import Foundation
import Testing

/// Issue 28: a device registered from the phone with a client key (no backend proxy) gets
/// the app's pushes through APNs (the simulator), until it unregisters itself.
@Suite struct ClientKeyDeliveryTests {
    @Test func aDeviceRegisteredWithAClientKeyGetsAPush() async throws {
        try await PipelineHarness.with { relay in
            let app = try await relay.createApp()
            let issued = try await relay.request("POST", "/admin/v1/apps/\(app.key)/client-keys", json: ["name": "phone"])
            let clientKey = try #require(issued.json["client_key"] as? String)
            let token = PipelineHarness.token(prefix: "c1", index: 1)
            let registered = try await relay.request("POST", "/client/v1/devices", auth: .bearer(clientKey),
                                                     json: ["platform": "ios", "token": token, "environment": "production"])
            #expect(registered.status == 200, "\(registered.text)")
            let rid = try #require(registered.json["registration_id"] as? String)
            let secret = try #require(registered.json["device_secret"] as? String)

            let msgID = try await relay.accepted(app, ["platform": "all", "audience": ["registration_id": [rid]], "notification": ["alert": "hi"]])
            let message = try await relay.waitUntilFinished(msgID)
            #expect(try message.int("sent_count") == 1)
            #expect(relay.simulator.deliveries().filter { $0.msgID == msgID }.map(\.token) == [token])

            // Unregistered by the device itself, it is no audience any more.
            #expect(try await relay.request("DELETE", "/client/v1/devices/\(rid)", auth: .bearer(secret)).status == 200)
            let after = try await relay.push(app, ["platform": "all", "audience": ["registration_id": [rid]], "notification": ["alert": "again"]])
            #expect(after.errorCode == 1011, "\(after.text)")
        }
    }
}
